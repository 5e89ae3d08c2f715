/**
 * The `pattern` prediction source: recurring (leading verb, area) pairs of the newest commits of a
 * real git repository become predictions on a real store (PGlite); a pair that stops recurring
 * drops out; a subject never reaches the registry, only its verb.
 */
import { randomUUID } from 'node:crypto';
import type { Store } from '@sous/store';
import { git, makeGitRepo, rmTempDir, writeFile } from '../../../test/support/tmp';
import { pgliteFactory } from '../../store/test/helpers';
import { Predictions, commitPatterns, leadingVerb, readCommitNames, type Briefing } from '../src';

test('the leading verb of a subject: conventional prefixes, capitals and colons; none for a ticket or sha', () => {
  expect(['fix(parser): off by one', 'Fix: crash', 'Add the lexer', 'refactor!: api', '#123 fix', 'a1b2c3 wip', ''].map(leadingVerb)).toEqual([
    'fix', 'fix', 'add', 'refactor', undefined, undefined, undefined,
  ]);
});

test('patterns are pairs that recur at least three times, most frequent first, evidence the most touched files', () => {
  const c = (subject: string, ...files: string[]) => ({ subject, files });
  const patterns = commitPatterns([
    c('fix(parser): a', 'src/parser/a.ts'), c('Fix parser b', 'src/parser/b.ts', 'src/parser/a.ts'), c('fix: c', 'src/parser/a.ts'),
    c('docs: x', 'docs/x.md'), c('docs: y', 'docs/y.md'),
    c('add lexer', 'src/lexer.ts'), c('add more', 'src/x.ts'), c('add again', 'src/y.ts'), c('add four', 'src/z.ts'),
  ]);
  expect(patterns).toEqual([
    { verb: 'add', area: 'src', count: 4, paths: ['src/lexer.ts', 'src/x.ts', 'src/y.ts', 'src/z.ts'] },
    { verb: 'fix', area: 'src/parser', count: 3, paths: ['src/parser/a.ts', 'src/parser/b.ts'] },
  ]);
});

describe.each([pgliteFactory()])('pattern predictions on a real repository ($name)', (factory) => {
  let store: Store;
  let repo: string;
  beforeAll(async () => {
    store = await factory.open();
  }, 60_000);
  afterAll(async () => {
    await store.close();
    await factory.cleanup();
    rmTempDir(repo);
  });

  test('three fixes in src/parser make a pattern prediction without the subjects; it goes when the pair no longer recurs', async () => {
    repo = makeGitRepo();
    for (const [i, subject] of ['fix(parser): secret-ticket-alpha', 'Fix parser crash on tabs', 'fix: parser empty input'].entries()) {
      writeFile(repo, `src/parser/p${i}.ts`, `export const p${i} = ${i};\n`);
      git(repo, ['add', '-A']);
      git(repo, ['commit', '-q', '-m', subject]);
    }
    const workspaceId = (await store.workspaces.upsertByRoot({ rootPath: `/tmp/patterns-${randomUUID()}` })).id;
    const brief = async (): Promise<Briefing> => ({ items: [{ path: 'src/parser/p0.ts', score: 1, rationale: ['path matches'], lines: { start: 1, end: 1 } }] });
    let window = 50;
    const predictions = new Predictions({ store, workspaceId, hashOf: async () => 'h', brief, commits: () => readCommitNames(repo, () => true, window) });
    await predictions.patterns();
    const [p] = await predictions.active();
    expect(p).toMatchObject({ source: 'pattern', state: 'ready', weight: 0.4, prompt: 'fix in src/parser (a recurring kind of change: 3 of the last 50 commits)' });
    expect(Object.keys(p!.evidence).sort()).toEqual(['src/parser/p0.ts', 'src/parser/p1.ts', 'src/parser/p2.ts']);
    expect(JSON.stringify(await store.predictions.list(workspaceId))).not.toMatch(/secret-ticket|crash on tabs/);
    // The same commits again: the live prediction stays as it is.
    await predictions.patterns();
    expect((await predictions.active()).map((x) => x.id)).toEqual([p!.id]);
    // Fewer than three fixes in the window: no pattern any more.
    window = 2;
    await predictions.signal('commit', 'all');
    expect(await predictions.active()).toEqual([]);
  });
});
