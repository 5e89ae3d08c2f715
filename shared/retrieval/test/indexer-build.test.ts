import * as fs from 'node:fs';
import * as path from 'node:path';
import { buildRepositoryIndex, IndexError, type ContextResult } from '../src/indexer';
import { COCHANGE_FACTOR, SIGNAL_WEIGHTS } from '../src/ranking';
import { createScopePolicy } from '../src/scope';
import { makeTempDir } from '../../../test/support/tmp';
import { cleanupFixtures, defaultPolicy, fixture, git, resultPaths, SECRET, trackForCleanup, write } from './indexer-fixture';

afterEach(cleanupFixtures);
const paths = resultPaths;
const signals = (result: ContextResult, p: string): string[] => (result.items.find((i) => i.path === p)?.rationale ?? []).map((r) => r.signal);

/** Every file's mtime under `dir`, `.git` included. */
function mtimes(dir: string): Map<string, number> {
  const out = new Map<string, number>();
  const walk = (d: string): void => {
    for (const entry of fs.readdirSync(d, { withFileTypes: true })) {
      const full = path.join(d, entry.name);
      if (entry.isDirectory()) walk(full);
      else out.set(path.relative(dir, full), fs.statSync(full).mtimeMs);
    }
  };
  walk(dir);
  return out;
}

describe('buildRepositoryIndex', () => {
  test('indexes a file whose name holds a newline, and finds it', async () => {
    const dir = fixture();
    write(dir, 'src/a\nb.py', 'def reconcile_newline_ledger(rows):\n    return sum(rows)\n');
    write(dir, 'a\nb.py', 'def settle_root_newline_account(rows):\n    return rows\n');
    git(dir, ['add', '-A']);
    git(dir, ['commit', '-q', '-m', 'files with a newline in their names']);
    const index = await buildRepositoryIndex(dir, defaultPolicy());
    expect(index.snapshot().map((r) => r.path)).toContain('src/a\nb.py');
    expect(paths(index.query('reconcile_newline_ledger', { topN: 3 }))[0]).toBe('src/a\nb.py');

    const whole = await buildRepositoryIndex(dir, createScopePolicy({ allowedPaths: ['**'], excludedPatterns: [] }));
    expect(whole.snapshot().map((r) => r.path)).toEqual(expect.arrayContaining(['a\nb.py', 'src/a\nb.py']));
    expect(paths(whole.query('settle_root_newline_account', { topN: 3 }))[0]).toBe('a\nb.py');
  });

  test('indexes in-scope files with symbols, the import graph and progress', async () => {
    const dir = fixture();
    const progress: Array<[number, number]> = [];
    const index = await buildRepositoryIndex(dir, defaultPolicy(), { onProgress: (done, total) => progress.push([done, total]) });

    const snapshot = index.snapshot();
    expect(snapshot.map((r) => r.path)).toEqual([
      'docs/guide.md', 'src/app/config.ts', 'src/app/handler.ts', 'src/app/notes.ts', 'src/app/repo.ts', 'src/app/user.ts',
      'src/index.ts', 'src/pricing/__init__.py', 'src/pricing/api.py', 'src/pricing/discount.py',
    ]);
    const user = snapshot.find((r) => r.path === 'src/app/user.ts');
    expect(user?.imports).toEqual(['src/app/repo.ts']);
    expect(user?.language).toBe('typescript');
    expect(user?.sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(user?.definitions.map((d) => d.name)).toContain('loadUserProfile');
    expect(snapshot.find((r) => r.path === 'src/pricing/api.py')?.imports).toEqual(['src/pricing/discount.py']);
    // Plain data: survives a JSON round trip unchanged.
    expect(JSON.parse(JSON.stringify(snapshot))).toEqual(snapshot);

    const stats = index.stats();
    expect(stats.files_indexed).toBe(10);
    // README.md, scripts/deploy.ts and src/prod.env are listed but out of scope.
    expect(stats.skipped).toEqual({ out_of_scope: 3 });
    expect(stats.reads).toBe(10);
    expect(stats.head).toBe(git(dir, ['rev-parse', 'HEAD']).trim());
    expect(progress[progress.length - 1]).toEqual([13, 13]);
  });

  test('(a) a Python traceback ranks the innermost frame file first', async () => {
    const index = await buildRepositoryIndex(fixture(), defaultPolicy());
    const result = index.query([
      'Checkout crashes:',
      'Traceback (most recent call last):',
      '  File "/srv/shop/src/pricing/api.py", line 4, in post_order',
      '  File "/srv/shop/src/pricing/discount.py", line 3, in apply_discount',
      'ZeroDivisionError: division by zero',
    ].join('\n'));
    expect(paths(result)[0]).toBe('src/pricing/discount.py');
    expect(signals(result, 'src/pricing/discount.py')).toContain('traceback_frame');
    expect(paths(result)[1]).toBe('src/pricing/api.py');
    expect(result.items[0]?.snippet.text).toContain('return total / quantity');
    expect(result.stats.files_indexed).toBe(10);
    expect(result.stats.took_ms).toBeGreaterThanOrEqual(0);
  });

  test('(b) the file defining an identifier ranks above files only mentioning it', async () => {
    const index = await buildRepositoryIndex(fixture(), defaultPolicy());
    const result = index.query('Why does loadUserProfile return undefined for new accounts?');
    const order = paths(result);
    expect(order[0]).toBe('src/app/user.ts');
    expect(signals(result, 'src/app/user.ts')).toContain('symbol_defined');
    expect(order).toContain('src/app/handler.ts');
    expect(order).toContain('src/app/notes.ts');
    // The importer of the defining file is lifted through the graph.
    expect(signals(result, 'src/app/handler.ts')).toContain('graph_neighbour');
  });

  test('(c) a named path wins over word matches elsewhere', async () => {
    const index = await buildRepositoryIndex(fixture(), defaultPolicy());
    const result = index.query('Saving does not persist, see src/app/repo.ts');
    expect(paths(result)[0]).toBe('src/app/repo.ts');
    expect(signals(result, 'src/app/repo.ts')).toContain('path_named');
    // A name the prompt also uses, defined elsewhere, ranks near it: both are what the prompt is about.
    const both = paths(index.query('Saving does not persist, see src/app/repo.ts; loadUserProfile then returns nothing')).slice(0, 3);
    expect(both).toContain('src/app/repo.ts');
    expect(both).toContain('src/app/user.ts');
  });

  test('a prompt of boilerplate words only still finds the file that uses them', async () => {
    const dir = fixture();
    write(dir, 'src/text/source.ts', "export const lines = (text: string) => text.split('\\r\\n'); // line separator on windows\n");
    const index = await buildRepositoryIndex(dir, defaultPolicy());
    // "line" and "error" alone are dropped as trace boilerplate; with nothing else left they count.
    expect(paths(index.query('wrong line error'))).toContain('src/text/source.ts');
    // A prompt with words of its own ranks by them, as before.
    expect(paths(index.query('windows separator'))[0]).toBe('src/text/source.ts');
  });

  test('co-changed files are weaker neighbours', async () => {
    const index = await buildRepositoryIndex(fixture(), defaultPolicy());
    const result = index.query('The wording in docs/guide.md is outdated');
    expect(paths(result)[0]).toBe('docs/guide.md');
    const handler = result.items.find((i) => i.path === 'src/app/handler.ts');
    const lift = handler?.rationale.find((r) => r.signal === 'graph_neighbour');
    expect(lift?.detail).toBe('changed together with docs/guide.md');
    // COCHANGE_FACTOR of what an importer of the same file would get (graph weight × the guide's own
    // score, before any lift of its own).
    const guideOwn = (result.items[0]?.rationale ?? []).filter((r) => r.signal !== 'graph_neighbour').reduce((sum, r) => sum + r.weight, 0);
    expect(lift?.weight).toBeCloseTo(COCHANGE_FACTOR * SIGNAL_WEIGHTS.graph_neighbour * guideOwn, 4);
  });

  test('(d) excluded and out-of-scope files never appear; keys appear only redacted', async () => {
    const index = await buildRepositoryIndex(fixture(), defaultPolicy());
    const named = index.query(`Is the key ${SECRET} in src/prod.env or scripts/deploy.ts (deployTarget, BILLING_KEY)?`, { topN: 50 });
    expect(paths(named)).not.toContain('src/prod.env');
    expect(paths(named)).not.toContain('scripts/deploy.ts');
    expect(JSON.stringify(named)).not.toContain(SECRET);

    const config = index.query('Where is billingApiKey configured?');
    expect(paths(config)[0]).toBe('src/app/config.ts');
    const snippet = config.items[0]?.snippet.text ?? '';
    expect(snippet).toContain("billingApiKey = '[redacted]'");
    expect(JSON.stringify(config)).not.toContain(SECRET);
    expect(JSON.stringify(index.snapshot())).not.toContain(SECRET);
  });

  test('rejects a topN outside 1..50', async () => {
    const index = await buildRepositoryIndex(fixture(), defaultPolicy());
    expect(() => index.query('x', { topN: 0 })).toThrow('topN must be an integer from 1 to 50 (got 0)');
    expect(() => index.query('x', { topN: 51 })).toThrow(IndexError);
    expect(index.query('loadUserProfile', { topN: 1 }).items).toHaveLength(1);
  });

  test('building and querying leave the repository untouched', async () => {
    const dir = fixture();
    write(dir, 'src/app/draft.ts', 'export const draft = loadUserProfile;\n'); // untracked
    write(dir, 'src/app/notes.ts', '// edited, not committed\n'); // modified
    const status = git(dir, ['status', '--porcelain']);
    const head = git(dir, ['rev-parse', 'HEAD']);
    const before = mtimes(dir);

    const index = await buildRepositoryIndex(dir, defaultPolicy());
    index.query('loadUserProfile in src/app/user.ts');
    index.query('Traceback (most recent call last):\n  File "src/pricing/discount.py", line 3, in apply_discount');
    await index.refresh();
    await index.updateFile('src/app/draft.ts');

    expect(mtimes(dir)).toEqual(before);
    expect(git(dir, ['rev-parse', 'HEAD'])).toBe(head);
    expect(git(dir, ['status', '--porcelain'])).toBe(status);
    expect(index.snapshot().map((r) => r.path)).toContain('src/app/draft.ts');
  });

  test('(h) an empty repository and one without commits work', async () => {
    const empty = makeTempDir('sous-empty-');
    trackForCleanup(empty);
    git(empty, ['init', '-q', '-b', 'main']);
    const emptyIndex = await buildRepositoryIndex(empty, defaultPolicy());
    expect(emptyIndex.size).toBe(0);
    expect(emptyIndex.query('anything at all').items).toEqual([]);
    expect(emptyIndex.stats()).toMatchObject({ files_indexed: 0, head: null, parses: 0 });

    const fresh = makeTempDir('sous-nocommit-');
    trackForCleanup(fresh);
    git(fresh, ['init', '-q', '-b', 'main']);
    write(fresh, 'src/a.ts', "import { computeTotal } from './b';\nexport const a = () => computeTotal();\n");
    write(fresh, 'src/b.ts', 'export function computeTotal(): number { return 1; }\n');
    const index = await buildRepositoryIndex(fresh, defaultPolicy());
    expect(index.stats()).toMatchObject({ files_indexed: 2, head: null });
    expect(index.snapshot().find((r) => r.path === 'src/a.ts')?.imports).toEqual(['src/b.ts']);
    const result = index.query('where is computeTotal defined?');
    expect(paths(result)[0]).toBe('src/b.ts');
    expect(result.items.every((i) => !i.rationale.some((r) => r.signal === 'recently_changed'))).toBe(true);
  });
});
