import {
  analyzePrompt,
  Bm25Index,
  bestSnippet,
  estimateTokens,
  fitToBudget,
  rankFiles,
  ROLE_RULES,
  SIGNAL_WEIGHTS,
  type RankCandidate,
  type RankedFile,
} from '../src/ranking';

const signals = (file: RankedFile | undefined): string[] => (file?.rationale ?? []).map((r) => r.signal);
const paths = (ranked: RankedFile[]): string[] => ranked.map((r) => r.path);

describe('rankFiles', () => {
  test('for a bug report, word matches in code outrank the same words in docs, declarations and tests, unless those are asked for', () => {
    const text = 'lock names that are object keys must not collide with the pending queue';
    const candidates: RankCandidate[] = [
      { path: 'README.md', text: `${text} ${text}` },
      { path: 'lib/index.d.ts', text: `${text} ${text}` },
      { path: 'test/index.test.js', text: `${text} ${text}` },
      { path: 'lib/index.js', text },
    ];
    const report = rankFiles(analyzePrompt('Be robust to lock names that are also Object keys'), candidates);
    expect(paths(report)[0]).toBe('lib/index.js');
    const docsFactor = ROLE_RULES.find((r) => r.role === 'docs')?.factor;
    expect(report.find((r) => r.path === 'README.md')?.rationale.at(-1)).toEqual({ signal: 'role_prior', detail: `docs x${docsFactor} (the prompt does not ask for docs)`, weight: 0 });
    const docs = rankFiles(analyzePrompt('The README says lock names may be Object keys'), candidates);
    expect(paths(docs)[0]).toBe('README.md');
    const tests = rankFiles(analyzePrompt('the test for lock names that are Object keys is flaky'), candidates);
    expect(paths(tests)[0]).toBe('test/index.test.js');
  });

  test('a traceback frame beats lexical noise', () => {
    const analysis = analyzePrompt([
      'Checkout fails for discount coupons (discount coupon discount):',
      'Traceback (most recent call last):',
      '  File "/srv/shop/shop/api.py", line 8, in post_order',
      '  File "/srv/shop/shop/pricing.py", line 31, in price_line',
      'ZeroDivisionError: division by zero',
    ].join('\n'));
    const candidates: RankCandidate[] = [
      { path: 'shop/pricing.py', text: 'def price_line(line):\n    return line.total / line.quantity' },
      { path: 'shop/api.py', text: 'def post_order(request):\n    return price_line(request.line)' },
      { path: 'docs/coupons.md', text: 'Checkout discount coupons: a discount coupon applies a discount at checkout.' },
    ];
    const ranked = rankFiles(analysis, candidates);
    expect(paths(ranked)).toEqual(['shop/pricing.py', 'shop/api.py', 'docs/coupons.md']);
    expect(signals(ranked[0])).toContain('traceback_frame');
    // Its name holds a prose word of the title: the whole prompt's prose makes no path terms, the
    // title's words do (title_path).
    expect(signals(ranked[2])).toEqual(['lexical', 'title_terms', 'title_path', 'role_prior']);
  });

  test("a report's title names the feature, and the file named after it wins a tie (title_path)", () => {
    const same = 'def handle(project, group):\n    project.lock(group)  # dependency group';
    const candidates: RankCandidate[] = [
      { path: 'src/tool/cli/commands/add.py', text: same },
      { path: 'src/tool/cli/commands/remove.py', text: same },
    ];
    const titled = rankFiles(analyzePrompt('tool remove fails silently\nWith a dependency group it prints nothing and exits 0.'), candidates);
    expect(paths(titled)).toEqual(['src/tool/cli/commands/remove.py', 'src/tool/cli/commands/add.py']);
    expect(titled[0]?.rationale.find((e) => e.signal === 'title_path')?.detail).toBe('path has title words remove, tool');
    // A one-line prompt has no title: its prose words make no path terms, and the tie stays a tie.
    const untitled = rankFiles(analyzePrompt('tool remove fails silently with a dependency group'), candidates);
    expect(untitled.flatMap((r) => r.rationale).some((e) => e.signal === 'title_path')).toBe(false);
    expect(paths(untitled)[0]).toBe('src/tool/cli/commands/add.py');
  });

  test('a named path wins over lexical matches elsewhere', () => {
    const analysis = analyzePrompt('The invoice total is rounded wrong, see src/billing/round.ts:12');
    const ranked = rankFiles(analysis, [
      { path: 'src/billing/invoice.ts', text: 'invoice total invoice total rounded wrong total' },
      { path: 'src/billing/round.ts', text: 'export const roundCents = (n: number) => Math.round(n * 100) / 100;' },
      { path: 'test/round.ts', text: 'nothing relevant' },
    ]);
    expect(ranked[0]?.path).toBe('src/billing/round.ts');
    expect(ranked[0]?.rationale[0]).toEqual({ signal: 'path_named', detail: 'prompt names src/billing/round.ts:12', weight: SIGNAL_WEIGHTS.path_named });
    // Only its name relates it (the prompt's `round.ts`, "rounded"): last, for that reason alone.
    expect(ranked[ranked.length - 1]?.path).toBe('test/round.ts');
    expect(signals(ranked[ranked.length - 1])).toEqual(['path_terms', 'role_prior']);
  });

  test('among files with the same words, the one whose folder the prompt names wins; common folder names count for nothing', () => {
    const body = 'always close the last open tag when writing the report';
    const candidates: RankCandidate[] = [
      ...Array.from({ length: 30 }, (_, i): RankCandidate => ({ path: `lib/other${i}/index.js`, text: body })),
      { path: 'lib/clover/index.js', text: body },
    ];
    const ranked = rankFiles(analyzePrompt('**clover:** always close last open tag'), candidates);
    expect(ranked[0]?.path).toBe('lib/clover/index.js');
    expect(ranked[0]?.rationale[0]).toMatchObject({ signal: 'path_terms', detail: 'path has clover' });
    // `lib` and `index` are in every path: they label nothing and never count.
    const common = rankFiles(analyzePrompt('the lib index is slow'), candidates);
    expect(common.some((r) => signals(r).includes('path_terms'))).toBe(false);
  });

  test('a name defined in many files counts less than one defined in a single file', () => {
    const candidates: RankCandidate[] = [
      { path: 'src/qs/parse.ts', text: 'export function parseQuery() {}', definitions: ['parseQuery'] },
      ...Array.from({ length: 20 }, (_, i): RankCandidate => ({ path: `src/p${i}.ts`, text: 'export function parse() {}', definitions: ['parse'] })),
    ];
    const ranked = rankFiles(analyzePrompt('`parse` and `parseQuery` drop empty keys'), candidates);
    expect(ranked[0]?.path).toBe('src/qs/parse.ts');
    const common = ranked.find((r) => r.path === 'src/p0.ts')?.rationale.find((r) => r.signal === 'symbol_defined');
    expect(common?.detail).toBe('defines parse (20 files define it)');
    expect(common?.weight).toBeLessThan(SIGNAL_WEIGHTS.symbol_defined * 0.5);
  });

  test('the file defining a symbol beats one that only mentions it', () => {
    const analysis = analyzePrompt('parseConfig returns undefined for empty files');
    const ranked = rankFiles(analysis, [
      { path: 'src/cli.ts', text: 'parseConfig(a); parseConfig(b); parseConfig(c); // parseConfig everywhere', definitions: ['main'] },
      { path: 'src/config.ts', text: 'export function parseConfig(text: string) { return load(text); }', definitions: ['parseConfig', 'load'] },
    ]);
    expect(paths(ranked)).toEqual(['src/config.ts', 'src/cli.ts']);
    expect(ranked[0]?.rationale).toContainEqual({ signal: 'symbol_defined', detail: 'defines parseConfig', weight: SIGNAL_WEIGHTS.symbol_defined });
    expect(signals(ranked[1])).not.toContain('symbol_defined');
  });

  test('graph propagation lifts a neighbour of a strong file', () => {
    const analysis = analyzePrompt('crash in src/session.ts');
    const candidates: RankCandidate[] = [
      { path: 'src/session.ts', text: 'import { sign } from "./token"', neighbours: ['src/token.ts'] },
      { path: 'src/token.ts', text: 'export function sign() {}' },
      { path: 'src/unrelated.ts', text: 'export function other() {}' },
    ];
    const ranked = rankFiles(analysis, candidates);
    const token = ranked.find((r) => r.path === 'src/token.ts');
    expect(token?.rationale).toEqual([{ signal: 'graph_neighbour', detail: 'neighbour of src/session.ts', weight: expect.any(Number) }]);
    expect(token?.score).toBeCloseTo(SIGNAL_WEIGHTS.graph_neighbour * (ranked[0]?.score ?? 0), 5);
    expect(paths(ranked)).toEqual(['src/session.ts', 'src/token.ts']);
  });

  test('the rationale lists every signal that fired and sums to the score', () => {
    const analysis = analyzePrompt([
      'getUserName breaks in src/user.ts',
      '    at getUserName (src/user.ts:4:10)',
    ].join('\n'));
    const ranked = rankFiles(analysis, [
      { path: 'src/user.ts', text: 'export function getUserName(user) { return user.name }', definitions: ['getUserName'], recency: 0.5, neighbours: ['src/app.ts'] },
      { path: 'src/app.ts', text: 'import { getUserName } from "./user"' },
    ]);
    const top = ranked[0];
    expect(top?.path).toBe('src/user.ts');
    expect(signals(top)).toEqual(expect.arrayContaining(['path_named', 'traceback_frame', 'symbol_defined', 'lexical', 'recently_changed']));
    expect(top?.score).toBeCloseTo((top?.rationale ?? []).reduce((s, r) => s + r.weight, 0), 5);
    expect(signals(ranked[1]).sort()).toEqual(['graph_neighbour', 'lexical', 'title_terms']);
  });

  test('ties break by path, limit and weights apply', () => {
    const analysis = analyzePrompt('timeout');
    const same = 'retry on timeout';
    const ranked = rankFiles(analysis, [{ path: 'b.ts', text: same }, { path: 'a.ts', text: same }, { path: 'c.ts', text: same }], { limit: 2 });
    expect(paths(ranked)).toEqual(['a.ts', 'b.ts']);
    const heavier = rankFiles(analysis, [{ path: 'a.ts', text: same }], { weights: { lexical: 2 } });
    expect(heavier[0]?.score).toBe(2);
  });
});

test('rankFiles can use a prebuilt index and ignores hits outside the candidates', () => {
  const index = new Bm25Index();
  index.add('src/cache.ts', 'export function evictStale(cache) { cache.evict() }');
  index.add('src/other.ts', 'evictStale evictStale');
  const ranked = rankFiles(analyzePrompt('evictStale never runs'), [{ path: 'src/cache.ts' }], { index });
  expect(paths(ranked)).toEqual(['src/cache.ts']);
  expect(ranked[0]?.rationale[0]).toMatchObject({ signal: 'lexical', weight: SIGNAL_WEIGHTS.lexical });
});

describe('token budgets', () => {
  test('estimateTokens is characters / 4, rounded up', () => {
    expect(estimateTokens('')).toBe(0);
    expect(estimateTokens('abcd')).toBe(1);
    expect(estimateTokens('abcde')).toBe(2);
  });

  test('fitToBudget keeps rank order, clips the first overflow on a line and drops the rest', () => {
    const line = `${'x'.repeat(39)}\n`; // 40 chars = 10 tokens
    const items = [
      { path: 'a.ts', text: line.repeat(5) }, // 50 tokens
      { path: 'b.ts', text: line.repeat(10) }, // 100 tokens
      { path: 'c.ts', text: 'tiny' },
    ];
    const fit = fitToBudget(items, 120);
    expect(fit.items.map((i) => [i.path, i.clipped])).toEqual([['a.ts', false], ['b.ts', true]]);
    expect(fit.usedTokens).toBeLessThanOrEqual(120);
    expect(fit.usedTokens).toBe(fit.items.reduce((s, i) => s + estimateTokens(i.text), 0));
    expect(fit.items[1]?.text.split('\n').every((l) => l.length === 39)).toBe(true);
    expect(fit.dropped).toBe(1);
  });

  test('fitToBudget drops instead of clipping when too little room is left', () => {
    const fit = fitToBudget([{ text: 'y'.repeat(396) }, { text: 'z'.repeat(400) }], 100);
    expect(fit.items).toHaveLength(1);
    expect(fit.usedTokens).toBe(99);
    expect(fitToBudget([{ text: 'abc' }], 0)).toEqual({ items: [], usedTokens: 0, dropped: 1 });
  });
});

describe('bestSnippet', () => {
  const file = [
    ...Array.from({ length: 30 }, (_, i) => `const filler${i} = ${i};`),
    'export function applyDiscount(order, coupon) {',
    '  const rate = coupon.rate;',
    '  return order.total * (1 - rate);',
    '}',
    ...Array.from({ length: 30 }, (_, i) => `const tail${i} = ${i};`),
  ].join('\n');

  test('picks the window around the matching lines', () => {
    const terms = analyzePrompt('applyDiscount ignores the coupon rate').terms;
    const snippet = bestSnippet(file, terms, 8);
    expect(snippet.endLine - snippet.startLine + 1).toBe(8);
    expect(snippet.startLine).toBeLessThanOrEqual(31);
    expect(snippet.endLine).toBeGreaterThanOrEqual(33);
    expect(snippet.text).toContain('export function applyDiscount(order, coupon) {');
    expect(snippet.text.split('\n')).toHaveLength(8);
  });

  test('finds stemmed and compound terms (entries for entry, parts of names)', () => {
    const text = ['one', 'two', 'const cacheEntries = load();', 'three', 'four'].join('\n');
    expect(bestSnippet(text, [{ term: 'entry', weight: 1 }], 1)).toMatchObject({ startLine: 3, endLine: 3 });
    expect(bestSnippet(text, [{ term: 'cache', weight: 1 }], 1)).toMatchObject({ startLine: 3, endLine: 3 });
  });

  test('returns the start of the file when nothing matches, and short files whole', () => {
    expect(bestSnippet(file, [{ term: 'absent', weight: 1 }], 5)).toMatchObject({ startLine: 1, endLine: 5 });
    expect(bestSnippet('one\ntwo', [{ term: 'two', weight: 1 }])).toEqual({ startLine: 1, endLine: 2, text: 'one\ntwo' });
  });
});
