import { defaultConfig } from '@sous/config';
import { buildRepositoryIndex, scopePolicyFromConfig } from '@sous/retrieval';
import { symbolParserPool } from '../../retrieval/src/symbols/parser-pool';
import { createRepositoryView, type RepositoryView } from '../src/view/repository-view';
import { reviewDetector } from '../src/detectors/review/review';
import { maskCode, signatures } from '../src/detectors/review/signature-change';
import type { DetectorResult, Frontier } from '../src/detectors/types';
import type { Candidate } from '../src/work/types';
import { git, makeEmptyGitRepo, rmTempDir, writeFile } from '../../../test/support/tmp';

afterAll(() => symbolParserPool().release());

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmTempDir(dir);
});

/** A repository built commit by commit; each step writes its files, then commits. */
function repoWith(steps: Array<{ message: string; files: Record<string, string> }>): string {
  const dir = makeEmptyGitRepo('sous-review-');
  dirs.push(dir);
  for (const step of steps) commit(dir, step.message, step.files);
  return dir;
}

function commit(dir: string, message: string, files: Record<string, string>): string {
  edit(dir, files);
  git(dir, ['add', '-A']);
  git(dir, ['commit', '-q', '-m', message]);
  return git(dir, ['rev-parse', 'HEAD']).trim();
}

/** Writes files without committing (uncommitted changes). */
function edit(dir: string, files: Record<string, string>): void {
  for (const [rel, content] of Object.entries(files)) writeFile(dir, rel, content);
}

function allFiles(view: RepositoryView): Frontier {
  return { entries: view.paths().map((path) => ({ path, priority: 1 })), priority: () => 1 };
}

async function review(dir: string): Promise<DetectorResult & { view: RepositoryView }> {
  const policy = scopePolicyFromConfig(defaultConfig());
  const view = createRepositoryView(await buildRepositoryIndex(dir, policy), policy);
  const result = await reviewDetector.detect({ view, trigger: { kind: 'uncommitted' }, frontier: allFiles(view), signal: new AbortController().signal });
  return { ...result, view };
}

function only(candidates: Candidate[], detector: string): Candidate[] {
  return candidates.filter((c) => c.detector === detector);
}

const MATH = 'export function total(a: number, b: number): number {\n  return a + b;\n}\n';
const REPORT = "import { total } from './math';\n\nexport function report(): string {\n  const sum = total(1, 2);\n  return `sum: ${sum}`;\n}\n";

describe('review detector: debug statements and TODOs', () => {
  test('uncommitted console.log and TODO give one debug card and one TODO card with the right lines', async () => {
    const dir = repoWith([{ message: 'initial', files: { 'src/app.ts': 'export function run(x: number): number {\n  return x * 2;\n}\n' } }]);
    edit(dir, {
      'src/app.ts':
        'export function run(x: number): number {\n  console.log("run", x);\n  // TODO: handle negative x\n  const y = x * 2;\n  console.log(y);\n  return y;\n}\n',
    });
    const { candidates, covered, view } = await review(dir);

    const debug = only(candidates, 'review.debug_statement');
    expect(debug).toHaveLength(1);
    const card = debug[0] as Candidate;
    expect(card.kind).toBe('review_note');
    expect(card.claim).toBe('src/app.ts|debug');
    expect(card.evidence.map((e) => e.lineStart)).toEqual([2, 5]);
    expect(card.evidence.every((e) => e.contentHash === view.file('src/app.ts')?.sha256 && e.commit === undefined)).toBe(true);
    expect(card.title).toContain('2 debug statements');

    const todo = only(candidates, 'review.todo_added');
    expect(todo).toHaveLength(1);
    expect(todo[0]?.claim).toBe('src/app.ts|todo');
    expect(todo[0]?.evidence.map((e) => e.lineStart)).toEqual([3]);
    expect(covered).toEqual(['src/app.ts']);
  });

  test('a debug statement added by a recent commit cites the commit; test files may log', async () => {
    const dir = repoWith([
      { message: 'initial', files: { 'src/lib.ts': 'export const a = 1;\n', 'src/lib.test.ts': 'test("a", () => {});\n' } },
    ]);
    const sha = commit(dir, 'add logging', {
      'src/lib.ts': 'export const a = 1;\nconsole.debug("a is", a);\n// console.log("commented out");\nexport function f(): void {\n  debugger;\n}\n',
      'src/lib.test.ts': 'console.log("fixture");\ntest("a", () => {});\n',
    });
    const { candidates } = await review(dir);
    const debug = only(candidates, 'review.debug_statement');
    expect(debug).toHaveLength(1);
    expect(debug[0]?.claim).toBe('src/lib.ts|debug');
    expect(debug[0]?.evidence).toEqual([
      expect.objectContaining({ path: 'src/lib.ts', lineStart: 2, commit: sha, note: 'adds `console.debug`' }),
      expect.objectContaining({ path: 'src/lib.ts', lineStart: 5, commit: sha, note: 'adds `debugger`' }),
    ]);
    expect(debug[0]?.whyNow).toContain(sha.slice(0, 7));
  });

  test('a debug line added by a commit and edited away since gives no card', async () => {
    const dir = repoWith([{ message: 'initial', files: { 'src/lib.py': 'def f(x):\n    return x\n' } }]);
    commit(dir, 'debug', { 'src/lib.py': 'def f(x):\n    breakpoint()\n    return x\n' });
    edit(dir, { 'src/lib.py': 'def f(x):\n    return x\n' });
    const { candidates } = await review(dir);
    expect(only(candidates, 'review.debug_statement')).toEqual([]);
  });
});

describe('review detector: secrets', () => {
  test('credential examples in docs and tests, and hyphenated prose, are not secrets', async () => {
    const dir = repoWith([{ message: 'initial', files: { 'docs/setup.md': '# Setup\n', 'src/db.test.ts': 'test("x", () => {});\n', 'src/app.ts': 'export const a = 1;\n' } }]);
    edit(dir, {
      'docs/setup.md': '# Setup\n\nSet `password: "correcthorsebatterystaple"` in the file.\nThe task-runner-configuration-file-format is described below.\n',
      'src/db.test.ts': 'const password = "hunter2hunter2hunter2";\ntest("x", () => {});\n',
    });
    const { candidates, view } = await review(dir);
    expect(only(candidates, 'review.secret_added')).toEqual([]);
    // Prose is indexed as written: nothing in it reads as a key.
    expect(view.text('docs/setup.md')).toContain('task-runner-configuration-file-format');
  });

  test('an added sk- key gives a secret card that never contains the value', async () => {
    const secret = 'sk-' + 'abcdefghijklmnopqrstuvwx';
    const dir = repoWith([{ message: 'initial', files: { 'src/client.ts': 'export const url = "https://api.example.com";\n' } }]);
    edit(dir, { 'src/client.ts': `export const url = "https://api.example.com";\nconst key = "${secret}";\nexport const headers = { auth: key };\n` });
    const { candidates } = await review(dir);
    const cards = only(candidates, 'review.secret_added');
    expect(cards).toHaveLength(1);
    const card = cards[0] as Candidate;
    expect(card.strength).toBeCloseTo(0.9);
    expect(card.evidence).toEqual([expect.objectContaining({ path: 'src/client.ts', lineStart: 2 })]);
    expect(card.body).toContain('`key = [redacted]`');
    const json = JSON.stringify(candidates);
    expect(json).not.toContain(secret);
    expect(json).not.toContain('abcdefghijkl');
  });

  test('key shapes the default pattern misses are found; a literal [redacted] in unredacted code is not', async () => {
    const aws = 'AKIA' + 'ABCDEFGHIJKLMNOP';
    const dir = repoWith([{ message: 'initial', files: { 'src/mask.ts': 'export const x = 1;\n', 'src/aws.ts': 'export const region = "eu";\n' } }]);
    edit(dir, {
      'src/mask.ts': "export const x = 1;\nexport const mask = (s: string): string => s.replace(/k/g, '[redacted]');\n",
      'src/aws.ts': `export const region = "eu";\nexport const accessKeyId = "${aws}";\nexport const password = "hunter2hunter2hunter2";\n`,
    });
    const { candidates } = await review(dir);
    const cards = only(candidates, 'review.secret_added');
    expect(cards.map((c) => c.claim)).toEqual(['src/aws.ts|secret']);
    expect(cards[0]?.evidence.map((e) => [e.lineStart, e.note])).toEqual([
      [2, 'adds a AWS access key id to `accessKeyId`'],
      [3, 'adds a hard-coded credential to `password`'],
    ]);
    const json = JSON.stringify(candidates);
    expect(json).not.toContain(aws);
    expect(json).not.toContain('hunter2');
  });
  test('each credential format is named on the card from the redacted text, and a key block counts once', async () => {
    const j = (...parts: string[]) => parts.join('');
    const values = {
      gh: j('ghp', '_', 'Zq7'.repeat(12)),
      slack: j('xoxb', '-', '2468013579-QwErTyUiOp'),
      stripe: j('sk_live', '_', '4eC39HqLyjWDarjtT1zdp7dc'),
      pw: j('Tr0ub4', 'dor'),
      body: 'x7Kq'.repeat(10),
    };
    const dir = repoWith([{ message: 'initial', files: { 'src/conf.ts': 'export const a = 1;\n' } }]);
    edit(dir, {
      'src/conf.ts': [
        'export const a = 1;',
        `export const gh = "${values.gh}";`,
        `export const slack = "${values.slack}";`,
        `export const db = "postgres://app:${values.pw}@db/app";`,
        `export const stripe = "${values.stripe}";`,
        'export const pem = `-----BEGIN RSA PRIVATE KEY-----',
        values.body,
        values.body,
        '-----END RSA PRIVATE KEY-----`;',
        'export const password = getpass();',
        '',
      ].join('\n'),
    });
    const { candidates, view } = await review(dir);
    // The detector sees only redacted text.
    expect(view.text('src/conf.ts')).not.toContain(values.body);
    const cards = only(candidates, 'review.secret_added');
    expect(cards).toHaveLength(1);
    expect(cards[0]?.evidence.map((e) => [e.lineStart, e.note])).toEqual([
      [2, 'adds a GitHub token to `gh`'],
      [3, 'adds a Slack token to `slack`'],
      [4, 'adds a password in a URL to `db`'],
      [5, 'adds a Stripe key to `stripe`'],
      [6, 'adds a private key to `pem`'],
    ]);
    const json = JSON.stringify(candidates);
    for (const value of Object.values(values)) expect(json).not.toContain(value);
  });
});

describe('review detector: stale callers', () => {
  test('a new required parameter with an untouched caller on the old count gives a card citing the call', async () => {
    const dir = repoWith([
      {
        message: 'initial',
        files: {
          'src/math.ts': MATH,
          'src/report.ts': REPORT,
          'src/index.ts': "export { total } from './math';\n",
          'src/ui.ts': "import { total } from './index';\n\nexport const shown = [total(3, 4), total(1, 2, 3), total(...pair)];\n",
          // A parameter of the same name is no caller; neither is a string or a comment.
          'src/apply.ts': 'export function apply(total: (a: number, b: number) => number): number {\n  return total(1, 2);\n}\n',
          'src/text.ts': "import { total } from './math';\n// total(1, 2)\nexport const s = 'total(1, 2)';\n",
        },
      },
    ]);
    edit(dir, { 'src/math.ts': 'export function total(a: number, b: number, c: number): number {\n  return a + b + c;\n}\n' });
    const { candidates, view } = await review(dir);
    const cards = only(candidates, 'review.stale_callers');
    expect(cards).toHaveLength(1);
    const card = cards[0] as Candidate;
    expect(card.claim).toBe('src/math.ts|total|signature');
    expect(card.evidence[0]).toEqual(expect.objectContaining({ path: 'src/math.ts', lineStart: 1, contentHash: view.file('src/math.ts')?.sha256 }));
    expect(card.evidence[1]).toEqual(
      expect.objectContaining({ path: 'src/report.ts', lineStart: 4, contentHash: view.file('src/report.ts')?.sha256, note: 'calls `total` with 2 arguments' }),
    );
    expect(card.evidence[2]).toEqual(expect.objectContaining({ path: 'src/ui.ts', lineStart: 3, note: 'calls `total` with 2 arguments' }));
    expect(card.evidence).toHaveLength(3);
    expect(card.title).toBe('`total` now takes 3 parameters; 2 call sites still pass the old count');
  });

  test('a new parameter with a default keeps old calls valid: no card', async () => {
    const dir = repoWith([{ message: 'initial', files: { 'src/math.ts': MATH, 'src/report.ts': REPORT } }]);
    edit(dir, { 'src/math.ts': 'export function total(a: number, b: number, c = 0): number {\n  return a + b + c;\n}\n' });
    const { candidates } = await review(dir);
    expect(only(candidates, 'review.stale_callers')).toEqual([]);
  });

  test('a committed signature change whose callers were updated in the same commit gives no card', async () => {
    const dir = repoWith([{ message: 'initial', files: { 'src/math.ts': MATH, 'src/report.ts': REPORT } }]);
    commit(dir, 'three terms', {
      'src/math.ts': 'export function total(a: number, b: number, c: number): number {\n  return a + b + c;\n}\n',
      'src/report.ts': REPORT.replace('total(1, 2)', 'total(1, 2, 3)'),
    });
    const { candidates } = await review(dir);
    expect(only(candidates, 'review.stale_callers')).toEqual([]);
  });

  test('a committed Python signature change with an untouched caller gives a card citing the commit', async () => {
    const dir = repoWith([
      { message: 'initial', files: { 'src/calc.py': 'def area(w, h):\n    return w * h\n', 'src/use.py': 'from calc import area\n\nprint_area = area(2, 3)\nrest = area(*dims)\n' } },
    ]);
    const sha = commit(dir, 'units', { 'src/calc.py': 'def area(w, h, unit):\n    return f"{w * h}{unit}"\n' });
    const { candidates } = await review(dir);
    const cards = only(candidates, 'review.stale_callers');
    expect(cards.map((c) => c.claim)).toEqual(['src/calc.py|area|signature']);
    expect(cards[0]?.evidence).toEqual([
      expect.objectContaining({ path: 'src/calc.py', lineStart: 1, commit: sha }),
      expect.objectContaining({ path: 'src/use.py', lineStart: 3 }),
    ]);
  });

  test('a Rust function without self is called by its path, never as a method: another type’s `.process(…)` is no caller', async () => {
    const dir = repoWith([
      {
        message: 'initial',
        files: {
          'Cargo.toml': '[package]\nname = "bindgen"\nversion = "0.1.0"\n',
          'src/lib.rs': 'pub mod wit;\npub mod js;\n',
          'src/wit.rs': 'pub fn process(module: u32, threads: u32) -> u32 {\n    module + threads\n}\n',
          // wasm-bindgen's shape: the JS side calls its own builder's `process`, and the free function by its path.
          'src/js.rs': [
            'use crate::wit;',
            '',
            'pub fn generate(builder: &mut Builder) -> u32 {',
            '    let a = wit::process(1, 2);',
            '    let b = builder',
            '        .process(1, 2)',
            '        .unwrap_or(0);',
            '    a + b',
            '}',
            '',
          ].join('\n'),
        },
      },
    ]);
    edit(dir, { 'src/wit.rs': 'pub fn process(module: u32, threads: u32, start: bool) -> u32 {\n    if start { module + threads } else { 0 }\n}\n' });
    const { candidates } = await review(dir);
    const cards = only(candidates, 'review.stale_callers');
    expect(cards.map((c) => c.claim)).toEqual(['src/wit.rs|process|signature']);
    expect(cards[0]?.evidence.slice(1).map((e) => [e.path, e.lineStart])).toEqual([['src/js.rs', 4]]);
  });

  test("a Go method is called only from its package or a file that imports it: another package's `cmd.Context()` is no caller", async () => {
    const dir = repoWith([
      {
        message: 'initial',
        files: {
          'src/pkg/pkgtest/tester.go': 'package pkgtest\n\ntype Tester struct{}\n\nfunc (t *Tester) Context() string {\n\treturn ""\n}\n',
          // syft's shape: cobra's command has a `Context()` of its own.
          'src/cmd/root.go': 'package cmd\n\nimport "github.com/spf13/cobra"\n\nfunc run(c *cobra.Command) {\n\t_ = c.Context()\n}\n',
          'src/pkg/scan/scan.go': 'package scan\n\nimport "github.com/acme/scan/src/pkg/pkgtest"\n\nfunc use(t *pkgtest.Tester) string {\n\treturn t.Context()\n}\n',
        },
      },
    ]);
    edit(dir, { 'src/pkg/pkgtest/tester.go': 'package pkgtest\n\ntype Tester struct{}\n\nfunc (t *Tester) Context(name string) string {\n\treturn name\n}\n' });
    const { candidates } = await review(dir);
    const cards = only(candidates, 'review.stale_callers');
    expect(cards.map((c) => c.claim)).toEqual(['src/pkg/pkgtest/tester.go|Context|signature']);
    expect(cards[0]?.evidence.slice(1).map((e) => [e.path, e.lineStart])).toEqual([['src/pkg/scan/scan.go', 6]]);
  });

  test('signatures are read across lines and strings and comments are masked', () => {
    const text = [
      'export const sum = async (',
      '  xs: Map<string, number>,',
      '  label = "a, b",',
      '): Promise<number> => 0;',
      '// export function commented(a, b) {}',
      'export function rest(a: number, ...more: number[]) {}',
    ].join('\n');
    expect(signatures(text, 'js').map((s) => [s.name, s.line, s.min, s.max, s.variadic])).toEqual([
      ['rest', 6, 1, 1, true],
      ['sum', 1, 1, 2, false],
    ]);
    expect(maskCode('f("a, b") // x(1)', 'js')).toBe('f("    ")        ');
  });
});

describe('review detector: missing test changes', () => {
  const history = [
    { message: 'add parser', files: { 'src/parse.ts': 'export const v = 1;\n', 'src/parse.test.ts': 'test("v", () => {});\n' } },
    { message: 'parser v2', files: { 'src/parse.ts': 'export const v = 2;\n', 'src/parse.test.ts': 'test("v2", () => {});\n' } },
    { message: 'parser v3', files: { 'src/parse.ts': 'export const v = 3;\n', 'src/parse.test.ts': 'test("v3", () => {});\n' } },
  ];

  test('a source file changed without the test it always changed with gives a card', async () => {
    const dir = repoWith(history);
    edit(dir, { 'src/parse.ts': 'export const v = 4;\n' });
    const { candidates, view } = await review(dir);
    expect(candidates.map((c) => c.detector)).toEqual(['review.missing_test_change']);
    const card = candidates[0] as Candidate;
    expect(card.claim).toBe('src/parse.ts|missing-test|src/parse.test.ts');
    expect(card.evidence).toEqual([
      expect.objectContaining({ path: 'src/parse.ts', contentHash: view.file('src/parse.ts')?.sha256 }),
      expect.objectContaining({ path: 'src/parse.test.ts', contentHash: view.file('src/parse.test.ts')?.sha256, note: 'changed together in the past but not now' }),
    ]);
  });

  test('a source file changed with its test gives none', async () => {
    const dir = repoWith(history);
    edit(dir, { 'src/parse.ts': 'export const v = 4;\n', 'src/parse.test.ts': 'test("v4", () => {});\n' });
    const { candidates } = await review(dir);
    expect(candidates).toEqual([]);
  });
});

test('a clean repository with ordinary recent commits gives no candidates, and its first commit is not reviewed', async () => {
  const dir = repoWith([
    { message: 'initial', files: { 'src/math.ts': MATH, 'src/report.ts': REPORT, 'docs/guide.md': '# Guide\n\nCall `total`.\n' } },
    { message: 'more', files: { 'src/math.ts': `${MATH}\nexport function double(a: number): number {\n  return a * 2;\n}\n` } },
  ]);
  const { candidates, covered } = await review(dir);
  expect(candidates).toEqual([]);
  // The first commit imports the tree; only the second is a change anyone can review.
  expect([...covered].sort()).toEqual(['src/math.ts']);
});

describe('changes that are not reviewable', () => {
  test("a first commit (an import, or a shallow clone's only commit) gives no review notes", async () => {
    const dir = repoWith([{ message: 'import', files: { 'src/app.ts': 'export function run(): void {\n  console.log("debug");\n  // TODO: later\n}\n' } }]);
    expect((await review(dir)).candidates).toEqual([]);
    // The same tree cloned shallow: its one commit has no parent here either.
    commit(dir, 'second', { 'src/other.ts': 'export const other = 1;\n' });
    const shallow = makeEmptyGitRepo('sous-review-shallow-');
    dirs.push(shallow);
    rmTempDir(shallow);
    git(dir, ['clone', '-q', '--depth', '1', `file://${dir}`, shallow]);
    expect((await review(shallow)).candidates).toEqual([]);
  });

  test('a commit of more than 100 files (vendoring, a reformat) gives no review notes', async () => {
    const dir = repoWith([{ message: 'initial', files: { 'src/app.ts': 'export const app = 1;\n' } }]);
    const bulk: Record<string, string> = {};
    for (let i = 0; i < 101; i++) bulk[`src/vendor/m${i}.ts`] = `export function m${i}(): void {\n  console.log("debug ${i}");\n}\n`;
    commit(dir, 'vendor a library', bulk);
    expect((await review(dir)).candidates).toEqual([]);
  });
});

test('a repository without commits gives no candidates and does not throw', async () => {
  const dir = makeEmptyGitRepo('sous-review-empty-');
  dirs.push(dir);
  writeFile(dir, 'src/new.ts', 'console.log("hi");\n');
  const { candidates, covered } = await review(dir);
  expect(candidates).toEqual([]);
  expect(covered).toEqual([]);
});
