import * as fs from 'node:fs';
import * as path from 'node:path';
import { buildRepositoryIndex } from '../src/indexer';
import { estimateTokens } from '../src/ranking';
import { cleanupFixtures, commit, defaultPolicy, FILES, fixture, git, resultPaths, write } from './indexer-fixture';

afterEach(cleanupFixtures);
const paths = resultPaths;

describe('RepositoryIndex updates', () => {
  test('(e) updateFile after an edit changes results and parses only that file', async () => {
    const dir = fixture();
    const index = await buildRepositoryIndex(dir, defaultPolicy());
    const parses = index.stats().parses;
    const prompt = 'purgeDormantMembers is too aggressive';
    expect(paths(index.query(prompt))).not.toContain('src/app/repo.ts');

    write(dir, 'src/app/repo.ts', `${FILES['src/app/repo.ts']}export function purgeDormantMembers(days: number): number {\n  return days;\n}\n`);
    expect(await index.updateFile('src/app/repo.ts')).toBe('changed');
    expect(index.stats().parses).toBe(parses + 1);
    const after = index.query(prompt);
    expect(paths(after)[0]).toBe('src/app/repo.ts');
    expect(after.items[0]?.rationale.map((r) => r.signal)).toContain('symbol_defined');
    expect(after.items[0]?.snippet.text).toContain('purgeDormantMembers');

    // Unchanged content: read again, not parsed again.
    expect(await index.updateFile('src/app/user.ts')).toBe('unchanged');
    expect(index.stats().parses).toBe(parses + 1);
  });

  test('a definition removed by an update stops matching, one renamed matches under its new name', async () => {
    const dir = fixture();
    write(dir, 'src/app/repo.ts', `${FILES['src/app/repo.ts']}export function purgeDormantMembers(days: number): number {\n  return days;\n}\n`);
    const index = await buildRepositoryIndex(dir, defaultPolicy());
    expect(paths(index.query('purgeDormantMembers'))[0]).toBe('src/app/repo.ts');

    // Renamed: the old name is gone from the file, so nothing relates it to the old prompt any more.
    write(dir, 'src/app/repo.ts', `${FILES['src/app/repo.ts']}export function sweepIdleAccounts(days: number): number {\n  return days;\n}\n`);
    expect(await index.updateFile('src/app/repo.ts')).toBe('changed');
    expect(paths(index.query('purgeDormantMembers', { topN: 50 }))).not.toContain('src/app/repo.ts');
    const renamed = index.query('sweepIdleAccounts');
    expect(paths(renamed)[0]).toBe('src/app/repo.ts');
    expect(renamed.items[0]?.rationale.find((r) => r.signal === 'symbol_defined')?.detail).toBe('defines sweepIdleAccounts');
  });

  test('updateFile and removeFile take files out of BM25, the graph and the maps', async () => {
    const dir = fixture();
    const index = await buildRepositoryIndex(dir, defaultPolicy());
    fs.rmSync(path.join(dir, 'src/app/repo.ts'));
    expect(await index.updateFile('src/app/repo.ts')).toBe('removed');
    expect(index.snapshot().find((r) => r.path === 'src/app/user.ts')?.imports).toEqual([]);
    expect(paths(index.query('AccountStore saves accounts', { topN: 50 }))).not.toContain('src/app/repo.ts');

    expect(await index.removeFile('src/pricing/discount.py')).toBe(true);
    expect(await index.removeFile('src/pricing/discount.py')).toBe(false);
    expect(index.snapshot().find((r) => r.path === 'src/pricing/api.py')?.imports).toEqual([]);
    expect(paths(index.query('apply_discount divides by quantity', { topN: 50 }))).not.toContain('src/pricing/discount.py');

    // Back on disk: re-added, and the importer's edge comes back.
    write(dir, 'src/app/repo.ts', FILES['src/app/repo.ts'] as string);
    expect(await index.updateFile('./src/app/repo.ts')).toBe('added');
    expect(index.snapshot().find((r) => r.path === 'src/app/user.ts')?.imports).toEqual(['src/app/repo.ts']);

    // Ignored by git or out of scope: never indexed through updateFile either.
    write(dir, '.gitignore', 'src/generated/\n');
    write(dir, 'src/generated/big.ts', 'export const generated = 1;\n');
    expect(await index.updateFile('src/generated/big.ts')).toBe('unchanged');
    expect(await index.updateFile('src/prod.env')).toBe('unchanged');
    expect(index.snapshot().map((r) => r.path)).not.toContain('src/generated/big.ts');
    await expect(index.updateFile('../outside.ts')).rejects.toThrow('is not a path inside the repository');
  });

  test('(f) refresh reports added, changed, removed and unchanged files', async () => {
    const dir = fixture();
    const index = await buildRepositoryIndex(dir, defaultPolicy());
    expect(await index.refresh()).toEqual({ added: 0, changed: 0, removed: 0, unchanged: 10 });
    const parses = index.stats().parses;

    write(dir, 'src/app/audit.ts', "import { handleRequest } from './handler';\nexport const auditTrail = () => handleRequest('x');\n");
    fs.rmSync(path.join(dir, 'src/app/notes.ts'));
    write(dir, 'src/app/handler.ts', `import { AccountStore } from './repo';\n${FILES['src/app/handler.ts']}export const handlerStore = new AccountStore();\n`);
    expect(await index.refresh()).toEqual({ added: 1, changed: 1, removed: 1, unchanged: 8 });
    expect(index.stats().parses).toBe(parses + 2);
    expect(index.snapshot().find((r) => r.path === 'src/app/audit.ts')?.imports).toEqual(['src/app/handler.ts']);
    expect(index.snapshot().find((r) => r.path === 'src/app/handler.ts')?.imports).toEqual(['src/app/repo.ts', 'src/app/user.ts']);
    expect(paths(index.query('auditTrail'))[0]).toBe('src/app/audit.ts');
    expect(paths(index.query('loadUserProfile may return undefined', { topN: 50 }))).not.toContain('src/app/notes.ts');
  });

  test('unchanged and refused files are not read again until they change', async () => {
    const dir = fixture();
    write(dir, 'src/blob.ts', 'binary\0content\n');
    const index = await buildRepositoryIndex(dir, defaultPolicy());
    expect(index.stats().skipped).toEqual({ out_of_scope: 3, binary: 1 });
    const reads = index.stats().reads;
    expect(await index.refresh()).toEqual({ added: 0, changed: 0, removed: 0, unchanged: 10 });
    // Nothing moved: every file is only stat'ed (size and mtime as when read or refused).
    expect(index.stats().reads).toBe(reads);

    write(dir, 'src/blob.ts', 'export const nowText = 1;\n');
    expect(await index.refresh()).toMatchObject({ added: 1, changed: 0, removed: 0 });
    expect(index.stats().reads).toBe(reads + 1);
    expect(index.stats().skipped).toEqual({ out_of_scope: 3 });
  });

  test('identical contents and a branch switch back are parsed once', async () => {
    const dir = fixture();
    commit(dir, { 'src/app/copy.ts': FILES['src/app/repo.ts'] as string }, '2024-04-01T00:00:00Z');
    const index = await buildRepositoryIndex(dir, defaultPolicy());
    expect(index.stats()).toMatchObject({ files_indexed: 11, parses: 10, blobs: 10 });

    git(dir, ['checkout', '-q', '-b', 'feature']);
    commit(dir, { 'src/app/user.ts': `${FILES['src/app/user.ts']}export const featureFlag = true;\n` }, '2024-05-01T00:00:00Z');
    expect(await index.refresh()).toMatchObject({ changed: 1 });
    expect(index.stats().parses).toBe(11);
    expect(index.stats().head).toBe(git(dir, ['rev-parse', 'HEAD']).trim());

    git(dir, ['checkout', '-q', 'main']);
    expect(await index.refresh()).toMatchObject({ added: 0, changed: 1, removed: 0 });
    expect(index.stats().parses).toBe(11);
    expect(paths(index.query('featureFlag', { topN: 50 }))).not.toContain('src/app/user.ts');
  });

  test('(g) budgetTokens is respected', async () => {
    const index = await buildRepositoryIndex(fixture(), defaultPolicy());
    const prompt = 'loadUserProfile AccountStore handleRequest apply_discount';
    const unbounded = index.query(prompt);
    const total = unbounded.items.reduce((sum, i) => sum + i.tokens, 0);
    expect(unbounded.items.length).toBeGreaterThan(2);

    const budget = Math.floor(total / 2);
    const fitted = index.query(prompt, { budgetTokens: budget });
    const used = fitted.items.reduce((sum, i) => sum + i.tokens, 0);
    expect(used).toBeLessThanOrEqual(budget);
    expect(fitted.items.length).toBeGreaterThan(0);
    expect(fitted.items.length).toBeLessThan(unbounded.items.length);
    // Rank order kept: the fitted items are a prefix of the unbounded ranking.
    expect(paths(fitted)).toEqual(paths(unbounded).slice(0, fitted.items.length));
    for (const item of fitted.items) {
      expect(item.tokens).toBe(estimateTokens(item.snippet.text));
      expect(item.snippet.endLine - item.snippet.startLine + 1).toBe(item.snippet.text.split('\n').length);
    }
    expect(index.query(prompt, { budgetTokens: 0 }).items).toEqual([]);
    expect(() => index.query(prompt, { budgetTokens: -1 })).toThrow('budgetTokens must be a non-negative integer');
  });
});
