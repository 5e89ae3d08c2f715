/**
 * What the preparation engine asks of the store, on PGlite and PostgreSQL: claim lookup, updates that
 * replace evidence, cards citing changed files, cards with their evidence, feedback per detector.
 */
import { randomUUID } from 'node:crypto';
import type { Store } from '@sous/store';
import { pgliteFactory, postgresFactory, type StoreFactory } from './helpers';

const factories: StoreFactory[] = [pgliteFactory(), postgresFactory()];

describe.each(factories)('prepared work in the store ($name)', (factory) => {
  let store: Store;

  beforeAll(async () => {
    store = await factory.open();
  });

  afterAll(async () => {
    await store?.close();
    await factory.cleanup();
  });

  async function workspace(): Promise<string> {
    return (await store.workspaces.upsertByRoot({ rootPath: `/tmp/sous-prepared/${randomUUID()}` })).id;
  }

  function card(workspaceId: string, claimKey: string, paths: string[], state: 'ready' | 'candidate' = 'ready') {
    return store.workProducts.insert({
      workspaceId,
      kind: 'docs_drift',
      state,
      title: `claim ${claimKey}`,
      detector: 'docs_drift.removed_name',
      claimKey,
      score: 0.7,
      evidence: paths.map((path, i) => ({ path, lineStart: i + 1, lineEnd: i + 1, contentHash: `h${i}`, note: 'mentions it' })),
    });
  }

  it('finds the newest card of a claim that is not superseded', async () => {
    const ws = await workspace();
    const old = await card(ws, 'k1', ['docs/a.md']);
    await store.workProducts.update(old.id, { state: 'superseded', stateReason: 'replaced' });
    const current = await card(ws, 'k1', ['docs/a.md', 'src/b.ts']);
    const found = await store.workProducts.findByClaim(ws, 'k1');
    expect(found?.id).toBe(current.id);
    expect(found?.evidence.map((e) => e.path)).toEqual(['docs/a.md', 'src/b.ts']);
    expect(await store.workProducts.findByClaim(ws, 'other')).toBeUndefined();
    expect(await store.workProducts.findByClaim(await workspace(), 'k1')).toBeUndefined();
  });

  it('updates fields and replaces evidence in one step', async () => {
    const ws = await workspace();
    const c = await card(ws, 'k2', ['docs/a.md', 'docs/b.md']);
    const updated = await store.workProducts.update(c.id, {
      state: 'stale',
      stateReason: 'docs/a.md changed',
      score: 0.2,
      evidence: [{ path: 'docs/c.md', lineStart: 3, lineEnd: 4, contentHash: 'new', note: 'moved here' }],
    });
    expect(updated).toMatchObject({ state: 'stale', stateReason: 'docs/a.md changed', score: 0.2 });
    expect(updated?.evidence.map((e) => [e.path, e.position, e.lineStart])).toEqual([['docs/c.md', 0, 3]]);
    const cleared = await store.workProducts.update(c.id, { stateReason: null });
    expect(cleared?.stateReason).toBeNull();
    expect(cleared?.evidence).toHaveLength(1);
    expect(await store.workProducts.update(randomUUID(), { state: 'ready' })).toBeUndefined();
  });

  it('lists the open cards citing changed files, with their evidence', async () => {
    const ws = await workspace();
    const a = await card(ws, 'ka', ['docs/a.md', 'src/x.ts']);
    const b = await card(ws, 'kb', ['docs/b.md'], 'candidate');
    const hidden = await card(ws, 'kc', ['src/x.ts']);
    await store.workProducts.update(hidden.id, { state: 'hidden' });
    const citing = await store.workProducts.citing(ws, ['src/x.ts', 'docs/b.md'], ['ready', 'candidate']);
    expect(citing.map((c) => c.id).sort()).toEqual([a.id, b.id].sort());
    expect(citing.find((c) => c.id === a.id)?.evidence).toHaveLength(2);
    expect(await store.workProducts.citing(ws, [], ['ready'])).toEqual([]);
    expect(await store.workProducts.citing(ws, ['nothing.md'], ['ready'])).toEqual([]);
  });

  it('lists cards with evidence by state and kind', async () => {
    const ws = await workspace();
    await card(ws, 'k1', ['docs/a.md']);
    await card(ws, 'k2', ['docs/b.md'], 'candidate');
    const ready = await store.workProducts.listWithEvidence({ workspaceId: ws, states: ['ready'] });
    expect(ready.map((c) => c.claimKey)).toEqual(['k1']);
    expect(ready[0]?.evidence[0]?.path).toBe('docs/a.md');
    expect(await store.workProducts.listWithEvidence({ workspaceId: ws, kinds: ['review_note'] })).toEqual([]);
  });

  it('counts feedback per detector within one workspace', async () => {
    const ws = await workspace();
    const c = await card(ws, 'k1', ['docs/a.md']);
    await store.feedback.record({ workProductId: c.id, value: 'irrelevant' });
    await store.feedback.record({ workProductId: c.id, value: 'irrelevant' });
    await store.feedback.record({ workProductId: c.id, value: 'useful' });
    const other = await workspace();
    const elsewhere = await card(other, 'k1', ['docs/a.md']);
    await store.feedback.record({ workProductId: elsewhere.id, value: 'wrong' });
    const counts = await store.feedback.countsByDetector(ws);
    expect(counts.get('docs_drift.removed_name')).toEqual({ useful: 1, partial: 0, irrelevant: 2, wrong: 0 });
    expect((await store.feedback.countsByDetector(other)).get('docs_drift.removed_name')?.wrong).toBe(1);
  });
});
