/**
 * The prediction registry on a real store (PGlite): briefings wait while Sous may not read, the arc
 * source keeps one live prediction per area and a bounded number overall, and every invalidation
 * signal (including `category_shift`) demotes, clears and stales only predictions whose evidence hash
 * changed. The briefing function stands in for the live index (the daemon test uses the real one).
 */
import { randomUUID } from 'node:crypto';
import type { Store } from '@sous/store';
import { pgliteFactory } from '../../store/test/helpers';
import { Goals, Predictions, type Briefing } from '../src';

describe.each([pgliteFactory()])('Predictions on a real store ($name)', (factory) => {
  let store: Store;
  beforeAll(async () => {
    store = await factory.open();
  }, 60_000);
  afterAll(async () => {
    await store.close();
    await factory.cleanup();
  });

  async function over(files: Record<string, string>, readable = { now: true }): Promise<{ predictions: Predictions; goals: Goals; briefed: string[] }> {
    const workspaceId = (await store.workspaces.upsertByRoot({ rootPath: `/tmp/predictions-${randomUUID()}` })).id;
    const briefed: string[] = [];
    const hashOf = async (p: string): Promise<string | null> => files[p] ?? null;
    const brief = async (prompt: string): Promise<Briefing | null> => {
      if (!readable.now) return null;
      briefed.push(prompt);
      return { items: [{ path: 'a.ts', score: 1, rationale: ['name matches'], lines: { start: 1, end: 3 } }] };
    };
    return { predictions: new Predictions({ store, workspaceId, hashOf, brief, mayRead: () => readable.now }), goals: new Goals({ store, workspaceId, hashOf }), briefed };
  }

  test('a goal declared while Sous may not read waits; the first refresh after seeds it ready with a briefing', async () => {
    const readable = { now: false };
    const { predictions, goals, briefed } = await over({ 'a.ts': 'h1' }, readable);
    const goal = await goals.declare({ title: 'Tidy a', related_files: ['a.ts'] });
    await predictions.goalChanged(goal.id);
    expect(await predictions.dashboard()).toMatchObject({ predictions: [] });
    readable.now = true;
    await predictions.refresh();
    const [p] = await predictions.active();
    expect(p).toMatchObject({ source: 'goal', goal_id: goal.id, state: 'ready', evidence: { 'a.ts': 'h1' }, briefing: { items: [{ path: 'a.ts' }] } });
    expect(briefed).toEqual(['continue: Tidy a']);
  });

  test('only a changed evidence hash invalidates; each signal reason is recorded; weights halve', async () => {
    const files: Record<string, string> = { 'a.ts': 'h1', 'b.ts': 'h2' };
    const { predictions, goals } = await over(files);
    const ga = await goals.declare({ title: 'A', related_files: ['a.ts'] });
    const gb = await goals.declare({ title: 'B', related_files: ['b.ts'] });
    await predictions.refresh();
    expect(await predictions.invalidate('category_shift', 'all')).toBe(0);
    files['a.ts'] = 'h1x';
    expect(await predictions.invalidate('category_shift', ['b.ts'])).toBe(0);
    expect(await predictions.invalidate('category_shift', 'all')).toBe(1);
    const { predictions: all } = await predictions.dashboard();
    expect(all.find((p) => p.goal_id === ga.id)).toMatchObject({ state: 'stale', stale_reason: 'category_shift', weight: 0.5, briefing: null });
    expect(all.find((p) => p.goal_id === gb.id)).toMatchObject({ state: 'ready', weight: 1 });
    // A stale prediction is not invalidated again (its weight halves once per staleness).
    files['a.ts'] = 'h1y';
    expect(await predictions.invalidate('commit', 'all')).toBe(0);
  });

  test('adopt: a ready prediction becomes adopted, an adoption signal is logged (ids only), overlapping live ones go stale', async () => {
    const { predictions, goals } = await over({ 'a.ts': 'h1', 'b.ts': 'h2' });
    const ga = await goals.declare({ title: 'Secret plan for a', related_files: ['a.ts'] });
    const gb = await goals.declare({ title: 'Other plan for a', related_files: ['a.ts', 'b.ts'] });
    const gc = await goals.declare({ title: 'Plan for b only', related_files: ['b.ts'] });
    await predictions.refresh();
    const byGoal = new Map((await predictions.active()).map((p) => [p.goal_id, p]));
    const adopted = await predictions.adopt(byGoal.get(ga.id)!.id);
    expect(adopted.state).toBe('adopted');
    const signals = await store.signals.listRecent('adoption', { workspaceId: (await store.predictions.get(adopted.id))!.workspaceId });
    expect(signals.map((s) => s.payload)).toEqual([{ prediction_id: adopted.id, source: 'goal' }]);
    const all = (await predictions.dashboard()).predictions;
    expect(all.find((p) => p.goal_id === gb.id)).toMatchObject({ state: 'stale', stale_reason: 'adoption', weight: 0.5, briefing: null });
    expect(all.find((p) => p.goal_id === gc.id)).toMatchObject({ state: 'ready', weight: 1 });
    await expect(predictions.adopt(adopted.id)).rejects.toMatchObject({ code: 'conflict', details: { state: 'adopted' } });
    await expect(predictions.adopt('missing')).rejects.toMatchObject({ code: 'not_found' });
  });

  test('arcs: one live prediction per area; a new edit after staleness replaces it; at most 20 are kept', async () => {
    const files: Record<string, string> = {};
    const { predictions } = await over(files);
    files['src/a.ts'] = 'h1';
    await predictions.signal('file_change', ['src/a.ts']);
    await predictions.signal('file_change', ['src/a.ts']);
    let arcs = (await predictions.dashboard()).predictions.filter((p) => p.source === 'arc');
    expect(arcs.map((p) => [p.prompt, p.state])).toEqual([['review and continue the changes in src', 'ready']]);
    files['src/a.ts'] = 'h2';
    await predictions.signal('file_change', ['src/a.ts']);
    arcs = (await predictions.dashboard()).predictions.filter((p) => p.source === 'arc');
    expect(arcs.map((p) => [p.state, p.evidence])).toEqual([['ready', { 'src/a.ts': 'h2' }]]);
    for (let i = 0; i < 25; i += 1) {
      files[`d${i}/x.ts`] = 'h';
      await predictions.signal('file_change', [`d${i}/x.ts`]);
    }
    arcs = (await predictions.dashboard()).predictions.filter((p) => p.source === 'arc');
    expect(arcs).toHaveLength(20);
    expect(arcs.map((p) => p.prompt)).toContain('review and continue the changes in d24');
  }, 60_000);
});
