/** Goal reconciliation: the rules (what demotes, what promotes, which paths are accepted), then the service on a real store. */
import { randomUUID } from 'node:crypto';
import type { Store } from '@sous/store';
import { pgliteFactory } from '../../store/test/helpers';
import { Goals, canonicalRelatedPath, reconcile } from '../src';

describe('reconcile', () => {
  test('matching evidence is current; a deleted or changed file is stale, with one reason per file', () => {
    expect(reconcile({ 'a.ts': 'h1', 'b.ts': null }, { 'a.ts': 'h1', 'b.ts': null })).toEqual({ state: 'current', reasons: [] });
    expect(reconcile({ 'a.ts': 'h1', 'b.ts': 'h2' }, { 'a.ts': null, 'b.ts': 'h3' })).toEqual({ state: 'stale', reasons: ['a.ts was deleted', 'b.ts changed since declared'] });
  });

  test('a missing file that appears confirms the goal, unless another file went stale', () => {
    expect(reconcile({ 'new.ts': null }, { 'new.ts': 'h' })).toEqual({ state: 'confirmed', reasons: ['new.ts now exists'] });
    expect(reconcile({ 'new.ts': null, 'a.ts': 'h1' }, { 'new.ts': 'h', 'a.ts': null })).toEqual({ state: 'stale', reasons: ['a.ts was deleted'] });
  });

  test('the same evidence and files give the same answer every time (no clock)', () => {
    const evidence = { 'a.ts': 'h1' };
    expect(reconcile(evidence, { 'a.ts': 'h2' })).toEqual(reconcile(evidence, { 'a.ts': 'h2' }));
  });
});

describe('canonicalRelatedPath', () => {
  test('relative paths are normalised; absolute, escaping and backslash paths are refused', () => {
    expect(canonicalRelatedPath('./src//x.py')).toBe('src/x.py');
    for (const bad of ['/etc/passwd', '../x', 'src/../../x', 'C:/x', 'src\\x', '.', '']) expect(canonicalRelatedPath(bad)).toBeUndefined();
  });
});

describe.each([pgliteFactory()])('Goals on a real store ($name)', (factory) => {
  let store: Store;
  beforeAll(async () => {
    store = await factory.open();
  }, 60_000);
  afterAll(async () => {
    await store.close();
    await factory.cleanup();
  });

  /** A workspace whose files are the entries of `files` (path → hash; absent = missing). */
  async function goalsOver(files: Record<string, string>, readable: { now: boolean }): Promise<Goals> {
    const workspaceId = (await store.workspaces.upsertByRoot({ rootPath: `/tmp/goals-${randomUUID()}` })).id;
    return new Goals({ store, workspaceId, hashOf: async (p) => files[p] ?? null, mayRead: () => readable.now });
  }

  test('declared while Sous may not read: unreconciled, with the evidence recorded at the first signal after', async () => {
    const files: Record<string, string> = { 'a.ts': 'h1' };
    const readable = { now: false };
    const goals = await goalsOver(files, readable);
    const goal = await goals.declare({ title: 'Paused workspace', related_files: ['a.ts'] });
    expect(goal.reconciliation_state).toBe('unreconciled');
    files['a.ts'] = 'h2';
    expect(await goals.reconcile(['a.ts'])).toEqual([]);
    readable.now = true;
    expect((await goals.reconcile(['a.ts'])).map((g) => g.reconciliation_state)).toEqual(['current']);
    files['a.ts'] = 'h3';
    expect((await goals.reconcile('all')).map((g) => g.reconciliation_reasons)).toEqual([['a.ts changed since declared']]);
  });

  test('a goal of another workspace is not found here; signals about other files leave a goal alone', async () => {
    const files: Record<string, string> = { 'a.ts': 'h1', 'b.ts': 'h1' };
    const mine = await goalsOver(files, { now: true });
    const theirs = await goalsOver(files, { now: true });
    const goal = await theirs.declare({ title: 'Theirs', related_files: ['a.ts'] });
    await expect(mine.get(goal.id)).rejects.toMatchObject({ code: 'not_found' });
    await expect(mine.updateStatus(goal.id, 'paused')).rejects.toMatchObject({ code: 'not_found' });
    await expect(mine.delete(goal.id)).rejects.toMatchObject({ code: 'not_found' });
    delete files['a.ts'];
    expect(await theirs.reconcile(['b.ts'])).toEqual([]);
    expect((await theirs.reconcile(['a.ts'])).map((g) => g.reconciliation_state)).toEqual(['stale']);
  });
});
