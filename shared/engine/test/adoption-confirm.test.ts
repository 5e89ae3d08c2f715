/**
 * Refinement's adoption confirmation on a real store (PGlite), with a controlled clock: with
 * `refinement.enabled` an adoption is pending for the window and takes effect (adoption signal,
 * overlapping predictions stale) only once the window has passed; a cleared draft inside the window
 * withdraws a composer adoption; with refinement off an adoption takes effect at once.
 */
import { randomUUID } from 'node:crypto';
import type { Store } from '@sous/store';
import { pgliteFactory } from '../../store/test/helpers';
import { Goals, Predictions, type Briefing } from '../src';

describe.each([pgliteFactory()])('adoption confirmation ($name)', (factory) => {
  let store: Store;
  beforeAll(async () => {
    store = await factory.open();
  }, 60_000);
  afterAll(async () => {
    await store.close();
    await factory.cleanup();
  });

  async function over(refinement: { enabled: boolean; confirmSeconds: number }) {
    const workspaceId = (await store.workspaces.upsertByRoot({ rootPath: `/tmp/adoption-${randomUUID()}` })).id;
    const clock = { ms: Date.parse('2026-11-26T03:00:00.000Z') };
    const hashOf = async (p: string): Promise<string | null> => (p === 'a.ts' ? 'h1' : null);
    const brief = async (): Promise<Briefing> => ({ items: [{ path: 'a.ts', score: 1, rationale: ['name matches'], lines: { start: 1, end: 2 } }] });
    const predictions = new Predictions({ store, workspaceId, hashOf, brief, refinement: () => refinement, now: () => new Date(clock.ms) });
    const goals = new Goals({ store, workspaceId, hashOf });
    const adoptions = async () => (await store.signals.listRecent('adoption', { workspaceId })).map((s) => s.payload);
    const find = async (id: string) => (await predictions.dashboard()).predictions.find((p) => p.id === id)!;
    return { predictions, goals, clock, adoptions, find };
  }

  test('with refinement on, an adoption is pending for the window and takes effect only once it has passed', async () => {
    const { predictions, goals, clock, adoptions, find } = await over({ enabled: true, confirmSeconds: 30 });
    await goals.declare({ title: 'Plan A', related_files: ['a.ts'] });
    await goals.declare({ title: 'Plan A too', related_files: ['a.ts'] });
    await predictions.refresh();
    const [first, second] = await predictions.active();
    const adopted = await predictions.adopt(first!.id);
    expect(adopted).toMatchObject({ state: 'adopted', adoption: 'pending', adoption_confirm_at: '2026-11-26T03:00:30.000Z' });
    clock.ms += 29_999;
    expect(await find(first!.id)).toMatchObject({ adoption: 'pending' });
    expect(await find(second!.id)).toMatchObject({ state: 'ready' });
    expect(await adoptions()).toEqual([]);
    clock.ms += 1;
    expect(await find(first!.id)).toMatchObject({ state: 'adopted', adoption: 'confirmed', adoption_confirm_at: null });
    expect(await find(second!.id)).toMatchObject({ state: 'stale', stale_reason: 'adoption' });
    expect(await adoptions()).toEqual([{ prediction_id: first!.id, source: 'goal' }]);
  });

  test('a draft cleared inside the window withdraws the composer adoption; after the window it does not', async () => {
    const { predictions, clock, adoptions, find } = await over({ enabled: true, confirmSeconds: 10 });
    const draft = (await predictions.composer({ sessionId: 's1', state: 'actionable', eventId: 'e1', multiplier: 1 })).prediction!;
    expect(draft.state).toBe('ready');
    const submitted = (await predictions.composer({ sessionId: 's1', state: 'submitted', eventId: 'e2', multiplier: 1 })).prediction!;
    expect(submitted).toMatchObject({ id: draft.id, state: 'adopted', adoption: 'pending', composer_event_id: 'e2' });
    clock.ms += 5_000;
    expect(await predictions.composer({ sessionId: 's1', state: 'cleared', eventId: 'e3', multiplier: 1 })).toEqual({ prediction: null, stale: 1 });
    expect(await find(draft.id)).toMatchObject({ state: 'stale', stale_reason: 'draft_cleared', adoption: 'withdrawn', briefing: null });
    clock.ms += 60_000;
    await predictions.dashboard();
    expect(await adoptions()).toEqual([]);

    const kept = (await predictions.composer({ sessionId: 's2', state: 'actionable', eventId: 'e4', multiplier: 1 })).prediction!;
    await predictions.composer({ sessionId: 's2', state: 'submitted', eventId: 'e5', multiplier: 1 });
    clock.ms += 10_000;
    expect(await predictions.composer({ sessionId: 's2', state: 'cleared', eventId: 'e6', multiplier: 1 })).toEqual({ prediction: null, stale: 0 });
    expect(await find(kept.id)).toMatchObject({ state: 'adopted', adoption: 'confirmed', composer_event_id: 'e5' });
    expect(await adoptions()).toEqual([{ prediction_id: kept.id, source: 'composer_intent', composer_event_id: 'e5' }]);
  });

  test('with refinement off, an adoption takes effect at once', async () => {
    const { predictions, goals, adoptions } = await over({ enabled: false, confirmSeconds: 30 });
    await goals.declare({ title: 'Plan B', related_files: ['a.ts'] });
    await predictions.refresh();
    const [p] = await predictions.active();
    expect(await predictions.adopt(p!.id)).toMatchObject({ state: 'adopted', adoption: 'confirmed', adoption_confirm_at: null });
    expect(await adoptions()).toEqual([{ prediction_id: p!.id, source: 'goal' }]);
  });
});
