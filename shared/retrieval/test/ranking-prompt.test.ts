import { analyzePrompt, MAX_QUERY_TERMS, withBoilerplate, type PromptAnalysis } from '../src/ranking';

const termWeight = (analysis: PromptAnalysis, term: string): number | undefined =>
  analysis.terms.find((t) => t.term === term)?.weight;

interface Case {
  name: string;
  prompt: string;
  frames?: Array<{ file: string; line?: number; function?: string; relevance?: number }>;
  paths?: Array<{ path: string; line?: number }>;
  errors?: string[];
  identifiers?: string[];
  /** Terms that must be present. */
  terms?: string[];
  /** Terms that must be absent (noise). */
  absent?: string[];
}

const cases: Case[] = [
  {
    name: 'Python traceback: innermost (last) frame is most relevant',
    prompt: [
      'Saving a profile crashes:',
      'Traceback (most recent call last):',
      '  File "/home/u/app/app/views.py", line 40, in handle_request',
      '    user = load_user(request)',
      '  File "/home/u/app/app/models/user.py", line 12, in load_user',
      '    return USERS[data["id"]]',
      "KeyError: 'id'",
    ].join('\n'),
    frames: [
      { file: '/home/u/app/app/views.py', line: 40, function: 'handle_request', relevance: 0.6 },
      { file: '/home/u/app/app/models/user.py', line: 12, function: 'load_user', relevance: 1 },
    ],
    paths: [],
    errors: ['KeyError'],
    terms: ['load_user', 'handle_request', 'id', 'keyerror', 'profile'],
    absent: ['traceback', 'recent', 'file', 'line'],
  },
  {
    name: 'Node stack: first frame is most relevant, internals skipped',
    prompt: [
      "TypeError: Cannot read properties of undefined (reading 'name')",
      '    at getUserName (/srv/app/src/services/user.ts:10:5)',
      '    at Object.<anonymous> (src/routes/profile.ts:22:13)',
      '    at Module._compile (node:internal/modules/cjs/loader:1105:14)',
    ].join('\n'),
    frames: [
      { file: '/srv/app/src/services/user.ts', line: 10, function: 'getUserName', relevance: 1 },
      { file: 'src/routes/profile.ts', line: 22, relevance: 0.6 },
    ],
    errors: ['TypeError'],
    terms: ['getusername', 'user', 'name'],
    absent: ['internal', 'cjs', 'loader'],
  },
  {
    name: 'Java stack: package gives the directory, JDK frames skipped',
    prompt: [
      'Exception in thread "main" java.lang.NullPointerException: Cannot invoke "String.length()"',
      '\tat com.acme.billing.InvoiceService.total(InvoiceService.java:33)',
      '\tat java.base/java.util.ArrayList.forEach(ArrayList.java:1541)',
      '\tat com.acme.billing.Main.main(Main.java:9)',
    ].join('\n'),
    frames: [
      { file: 'com/acme/billing/InvoiceService.java', line: 33, function: 'total', relevance: 1 },
      { file: 'com/acme/billing/Main.java', line: 9, function: 'main', relevance: 0.6 },
    ],
    paths: [],
    errors: ['NullPointerException'],
    identifiers: ['NullPointerException', 'String', 'length'],
    terms: ['nullpointerexception', 'total'],
    absent: ['acme', 'com', 'main'],
  },
  {
    name: 'Go panic: runtime frames skipped, function from the line above',
    prompt: [
      'panic: runtime error: index out of range [3] with length 3',
      '',
      'goroutine 1 [running]:',
      'main.(*Server).handle(0xc000010000, {0x1, 0x2})',
      '\t/home/u/app/server.go:42 +0x1d',
      'main.main()',
      '\t/home/u/app/main.go:12 +0x25',
    ].join('\n'),
    frames: [
      { file: '/home/u/app/server.go', line: 42, function: 'handle', relevance: 1 },
      { file: '/home/u/app/main.go', line: 12, function: 'main', relevance: 0.6 },
    ],
    errors: ['panic'],
    terms: ['handle', 'index', 'range'],
    absent: ['x1d', 'xc000010000', 'goroutine'],
  },
  {
    name: 'Rust panic with backtrace: one frame per file and line',
    prompt: [
      "thread 'main' panicked at src/parser.rs:10:5:",
      'called `Option::unwrap()` on a `None` value',
      'stack backtrace:',
      '   0: rust_begin_unwind',
      '             at /rustc/90b35a623/library/std/src/panicking.rs:597:5',
      '   1: myapp::parser::read_header',
      '             at ./src/parser.rs:10:5',
    ].join('\n'),
    frames: [{ file: 'src/parser.rs', line: 10, function: 'read_header', relevance: 1 }],
    paths: [],
    identifiers: ['Option', 'unwrap', 'None'],
    terms: ['read_header', 'unwrap'],
  },
  {
    name: 'prose with identifiers, a path with a line and a URL',
    prompt: 'The checkout total is wrong when a coupon is applied; I think applyDiscount in ./lib/cart.js:42 ignores user_id. See `CartService.applyDiscount` and https://example.com/docs/a.html',
    frames: [],
    paths: [{ path: 'lib/cart.js', line: 42 }],
    errors: [],
    identifiers: ['CartService', 'applyDiscount', 'user_id'],
    terms: ['applydiscount', 'cartservice', 'user_id', 'coupon', 'checkout', 'cart'],
    absent: ['the', 'is', 'think', 'see', 'example', 'html'],
  },
  {
    name: 'paths in several spellings',
    prompt: 'Compare src/app/user.ts with user.py and "services\\api\\server.go:7"; the version 1.2.3 and e.g. user.name are not paths.',
    paths: [{ path: 'src/app/user.ts' }, { path: 'user.py' }, { path: 'services/api/server.go', line: 7 }],
    frames: [],
  },
];

describe('analyzePrompt', () => {
  test.each(cases)('$name', (c) => {
    const analysis = analyzePrompt(c.prompt);
    if (c.frames !== undefined) expect(analysis.frames).toEqual(c.frames.map((f) => expect.objectContaining(f)));
    if (c.paths !== undefined) expect(analysis.paths).toEqual(c.paths);
    if (c.errors !== undefined) expect(analysis.errors.map((e) => e.type)).toEqual(c.errors);
    if (c.identifiers !== undefined) expect(analysis.identifiers).toEqual(expect.arrayContaining(c.identifiers));
    const terms = analysis.terms.map((t) => t.term);
    expect(terms).toEqual(expect.arrayContaining(c.terms ?? []));
    for (const noise of c.absent ?? []) expect(terms).not.toContain(noise);
  });

  test('keeps the error message and the quoted key', () => {
    const analysis = analyzePrompt("KeyError: 'id'");
    expect(analysis.errors).toEqual([{ type: 'KeyError', message: "'id'" }]);
    expect(termWeight(analysis, 'id')).toBeGreaterThan(1);
  });

  test('identifiers and frame functions weigh more than prose words', () => {
    const analysis = analyzePrompt('Totals drift after refund: computeInvoiceTotal is off.\n    at applyRefund (src/refund.ts:3:1)');
    const word = termWeight(analysis, 'drift') ?? 0;
    expect(word).toBeGreaterThan(0);
    expect(termWeight(analysis, 'computeinvoicetotal')).toBeGreaterThan(word);
    expect(termWeight(analysis, 'applyrefund')).toBeGreaterThan(word);
    expect(analysis.terms.map((t) => t.weight)).toEqual([...analysis.terms.map((t) => t.weight)].sort((a, b) => b - a));
  });

  test('collects backtick fragments', () => {
    expect(analyzePrompt('Calling `cache.invalidate(key)` twice hangs').fragments).toEqual(['cache.invalidate(key)']);
  });

  test('words of a hyphenated fragment are terms, not symbol names', () => {
    const analysis = analyzePrompt('Set stricter `Content-Security-Policy` header, see `--dry-run` and `getCsp`');
    expect(analysis.identifiers).toEqual(['getCsp']);
    expect(analysis.terms.map((t) => t.term)).toEqual(expect.arrayContaining(['content', 'security', 'policy', 'dry']));
  });

  test('handles large pathological input (regexes stay linear)', () => {
    const huge = [' ' + 'a.'.repeat(50000), 'aB'.repeat(50000), 'x: '.repeat(30000), 'Error'.repeat(20000)].join('\n');
    const analysis = analyzePrompt(huge);
    expect(analysis.frames).toEqual([]);
    expect(analysis.paths).toEqual([]);
  });

  test('a pasted wall of words keeps at most MAX_QUERY_TERMS terms: the code names, then the first words', () => {
    let seed = 7;
    const letter = (): string => String.fromCharCode(97 + ((seed = (seed * 16807) % 2147483647) % 26));
    const words = Array.from({ length: 4000 }, () => Array.from({ length: 8 }, letter).join(''));
    const analysis = analyzePrompt(`The parser crashes in \`readConfigFile\`.\n${words.join(' ')}`);
    expect(analysis.terms).toHaveLength(MAX_QUERY_TERMS);
    expect(termWeight(analysis, 'readconfigfile')).toBeDefined();
    expect(termWeight(analysis, words[0] ?? '')).toBeDefined();
    expect(termWeight(analysis, words[3999] ?? '')).toBeUndefined();
  });

  test('an empty prompt yields empty lists', () => {
    expect(analyzePrompt('')).toEqual({ paths: [], frames: [], errors: [], identifiers: [], fragments: [], words: [], boilerplate: [], labels: [], phrases: [], modules: [], flags: [], terms: [], titleTerms: [] });
  });

  test('boilerplate words are kept aside, and put back only when asked', () => {
    const analysis = analyzePrompt('windows has \\r\\n line separator error');
    expect(analysis.words).not.toContain('line');
    expect(analysis.boilerplate).toEqual(expect.arrayContaining(['line', 'error']));
    const wider = withBoilerplate(analysis);
    expect(wider?.words).toEqual(expect.arrayContaining(['line', 'error', ...analysis.words]));
    expect(wider?.terms.map((t) => t.term)).toEqual(expect.arrayContaining(['line', 'error']));
    expect(withBoilerplate(analyzePrompt('parseConfig drops keys'))).toBeUndefined();
  });
});
