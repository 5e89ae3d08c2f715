/**
 * Deep-Run sessions in the store, on PGlite and PostgreSQL: one running session per workspace,
 * step numbers claimed once (also by two claimers at the same moment), tallies added up with
 * produced ids kept in order without duplicates, interrupted steps counted, and the first end wins.
 */
import { randomUUID } from 'node:crypto';
import type { DeepRunInput, DeepRunSettings, Store } from '@sous/store';
import { pgliteFactory, postgresFactory, rejection, type StoreFactory } from './helpers';

const factories: StoreFactory[] = [pgliteFactory(), postgresFactory()];

const SETTINGS: DeepRunSettings = {
  model_calls_per_step: 8,
  pass_caps: { brief: 4, draft: 2, rationale: 4, angle: 2 },
  exploration_depth: 4,
  frontier_max_size: 500,
  llm_gate: 'non_trivial',
  targets_per_step: 2,
  step_gap_seconds: 60,
  model: { name: 'qwen2.5-coder:1.5b', base_url: 'http://127.0.0.1:11434/v1', local: true },
  price_per_million_usd: { input: 0, output: 0 },
};

describe.each(factories)('Deep-Run sessions in the store ($name)', (factory) => {
  let store: Store;

  beforeAll(async () => {
    store = await factory.open();
  });

  afterAll(async () => {
    await store?.close();
    await factory.cleanup();
  });

  async function session(overrides: Partial<DeepRunInput> = {}) {
    const workspaceId = overrides.workspaceId ?? (await store.workspaces.upsertByRoot({ rootPath: `/tmp/sous-deep-run/${randomUUID()}` })).id;
    const startedAt = new Date('2026-11-27T09:00:00Z');
    return store.deepRuns.create({ workspaceId, preset: 'balanced', bundle: 'local_balanced', settings: SETTINGS, durationMinutes: 120, costCapUsd: 0, startedAt, deadline: new Date(startedAt.getTime() + 30 * 60_000), ...overrides });
  }

  it('keeps one running session per workspace; an ended one makes room', async () => {
    const first = await session();
    expect(first).toMatchObject({ state: 'running', nextStep: 1, runningStep: null, stepsDone: 0, produced: [], spendUsd: 0 });
    expect(await rejection(session({ workspaceId: first.workspaceId }))).toMatchObject({ code: 'store_duplicate' });
    const ended = await store.deepRuns.end(first.id, { state: 'stopped', reason: 'stop', detail: 'stopped on request', at: new Date() });
    expect(ended).toMatchObject({ state: 'stopped', stopReason: 'stop' });
    // The first end wins: a later one changes nothing.
    expect(await store.deepRuns.end(first.id, { state: 'finished', reason: 'duration', detail: 'late', at: new Date() })).toBeUndefined();
    const second = await session({ workspaceId: first.workspaceId });
    expect((await store.deepRuns.list(first.workspaceId)).map((r) => r.id)).toEqual([second.id, first.id]);
    expect((await store.deepRuns.list(first.workspaceId, { states: ['running'] })).map((r) => r.id)).toEqual([second.id]);
  });

  it('claims each step number once, even when two claimers race', async () => {
    const s = await session();
    const at = new Date();
    const [a, b] = await Promise.all([store.deepRuns.claimStep(s.id, 1, 'host:1', at), store.deepRuns.claimStep(s.id, 1, 'host:2', at)]);
    expect([a, b].filter((r) => r !== undefined)).toHaveLength(1);
    const won = (a ?? b)!;
    expect(won).toMatchObject({ runningStep: 1, nextStep: 2 });
    // No second step while one runs, and never an old number again.
    expect(await store.deepRuns.claimStep(s.id, 2, 'host:1', at)).toBeUndefined();
    await store.deepRuns.finishStep(s.id, 1, { modelCalls: 3, promptTokens: 300, completionTokens: 30, tokensEstimated: false, spendUsd: 0.25, produced: ['w1', 'w2'] });
    expect(await store.deepRuns.claimStep(s.id, 1, 'host:1', at)).toBeUndefined();
    expect(await store.deepRuns.claimStep(s.id, 2, 'host:1', at)).toMatchObject({ runningStep: 2, nextStep: 3 });
    const after = await store.deepRuns.finishStep(s.id, 2, { modelCalls: 1, promptTokens: 100, completionTokens: 10, tokensEstimated: true, spendUsd: 0.125, produced: ['w2', 'w3'] });
    expect(after).toMatchObject({ stepsDone: 2, runningStep: null, modelCalls: 4, promptTokens: 400, completionTokens: 40, tokensEstimated: true, spendUsd: 0.375, produced: ['w1', 'w2', 'w3'] });
  });

  it('counts an interrupted step and goes on with the next number; an ended session claims nothing', async () => {
    const s = await session();
    await store.deepRuns.claimStep(s.id, 1, 'host:9', new Date());
    expect(await store.deepRuns.interruptStep(s.id, 1)).toMatchObject({ runningStep: null, stepsInterrupted: 1, stepsDone: 0, nextStep: 2 });
    // A late finish of the interrupted step records nothing.
    expect(await store.deepRuns.finishStep(s.id, 1, { modelCalls: 1, promptTokens: 1, completionTokens: 1, tokensEstimated: false, spendUsd: 1, produced: ['x'] })).toBeUndefined();
    await store.deepRuns.end(s.id, { state: 'paused', reason: 'pause', detail: 'paused', at: new Date() });
    expect(await store.deepRuns.claimStep(s.id, 2, 'host:9', new Date())).toBeUndefined();
    expect(await store.deepRuns.get(s.id)).toMatchObject({ state: 'paused', spendUsd: 0, produced: [] });
  });
});
