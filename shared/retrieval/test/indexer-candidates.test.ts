/**
 * A query ranks only the files the prompt reaches; files that only a graph lift makes relevant must
 * still be found, however many other files match the prompt's words.
 */
import { buildRepositoryIndex, type ContextResult } from '../src/indexer';
import { makeGitRepo } from '../../../test/support/tmp';
import { cleanupFixtures, commit, defaultPolicy, resultPaths, trackForCleanup } from './indexer-fixture';

afterEach(cleanupFixtures);
const rationale = (result: ContextResult, p: string): string[] =>
  (result.items.find((i) => i.path === p)?.rationale ?? []).map((r) => `${r.signal}: ${r.detail}`);

test('a file reachable only as an import neighbour is found among many word matches', async () => {
  const dir = trackForCleanup(makeGitRepo('sous-candidates-'));
  const files: Record<string, string> = {
    'src/core/session.ts': "import { tokenVault } from './vault';\nexport function openSession(id: string) {\n  return tokenVault.get(id);\n}\n",
    // No word of the prompt: only the import from session.ts relates it.
    'src/core/vault.ts': 'export const tokenVault = new Map<string, string>();\n',
  };
  // Far more files matching the prompt's words than a query takes as lexical seeds.
  for (let i = 0; i < 80; i++) files[`src/notes/note${i}.ts`] = `// stale sessions after logout, case ${i}\nexport const note${i} = ${i};\n`;
  commit(dir, files, '2024-01-01T00:00:00Z');

  const index = await buildRepositoryIndex(dir, defaultPolicy());
  const result = index.query('openSession returns stale sessions after logout');
  expect(resultPaths(result).slice(0, 2)).toEqual(['src/core/session.ts', 'src/core/vault.ts']);
  expect(rationale(result, 'src/core/vault.ts')).toContain('graph_neighbour: neighbour of src/core/session.ts');
  expect(rationale(result, 'src/core/vault.ts').some((r) => r.startsWith('lexical'))).toBe(false);
});

test('a co-change neighbour is found when only its own history list names the prompted file', async () => {
  const dir = trackForCleanup(makeGitRepo('sous-candidates-'));
  const partners = ['alpha', 'bravo', 'charlie', 'delta', 'echo'].map((n) => `src/cc/${n}.ts`);
  const base: Record<string, string> = { 'src/cc/hub.ts': 'export const hubValue = 0;\n', 'src/cc/tail.ts': 'export const tailValue = 0;\n' };
  for (const p of partners) base[p] = `export const value = '${p}';\n`;
  commit(dir, base, '2024-01-01T00:00:00Z');
  // hub.ts changes with five partners three times: its capped list holds only them. tail.ts changes
  // with hub.ts twice: the pair counts, but only tail.ts's list names it.
  for (let i = 1; i <= 3; i++) {
    commit(dir, Object.fromEntries(['src/cc/hub.ts', ...partners].map((p) => [p, `${base[p] ?? ''}// v${i}\n`])), `2024-02-0${i}T00:00:00Z`);
  }
  for (let i = 1; i <= 2; i++) {
    commit(dir, { 'src/cc/hub.ts': `${base['src/cc/hub.ts'] ?? ''}// w${i}\n`, 'src/cc/tail.ts': `${base['src/cc/tail.ts'] ?? ''}// w${i}\n` }, `2024-03-0${i}T00:00:00Z`);
  }

  const index = await buildRepositoryIndex(dir, defaultPolicy());
  const result = index.query('The wording in src/cc/hub.ts is outdated');
  expect(resultPaths(result)[0]).toBe('src/cc/hub.ts');
  expect(rationale(result, 'src/cc/tail.ts')).toContain('graph_neighbour: changed together with src/cc/hub.ts');
});

test('a file reachable only through the test named for it is found among many word matches', async () => {
  const dir = trackForCleanup(makeGitRepo('sous-candidates-'));
  const files: Record<string, string> = {
    // The test spells out the report's scenario; the code it tests shares none of its words.
    // Under src/: the default scope (src/**, docs/**) would leave a top-level tests/ out.
    'src/tests/test_resolver.py': 'def test_yanked_release_skipped_when_pinned():\n    # pinned yanked release skipped by the lock\n    assert lock(pinned=True)\n',
    'src/app/resolver.py': 'def choose(candidates):\n    return max(candidates)\n',
  };
  for (let i = 0; i < 80; i++) files[`src/notes/note${i}.py`] = `# a yanked release, note ${i}\nNOTE_${i} = ${i}\n`;
  commit(dir, files, '2024-01-01T00:00:00Z');

  const index = await buildRepositoryIndex(dir, defaultPolicy());
  const result = index.query('Pinned yanked release skipped by the lock\n\nA pinned yanked release is skipped when the lock runs.', { topN: 5 });
  expect(resultPaths(result)).toContain('src/app/resolver.py');
  expect(rationale(result, 'src/app/resolver.py')).toContain('test_counterpart: its test src/tests/test_resolver.py matches the prompt');
});
