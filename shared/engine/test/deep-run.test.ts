/**
 * Deep-Run sessions in the engine (real repository index, real detectors, PGlite store, the real
 * in-process job queue, our fake OpenAI-compatible backend counting calls and tokens): every stop
 * condition (duration, compute.max_session_minutes, cost cap, pause, stop), calls and spend as the
 * backend counted them, drafts left as candidate or ready cards with the repository untouched, and
 * a restart that resumes or ends a session without running any step twice. The clock is the
 * runner's injected one, moved forward when a step finishes, so no test waits for minutes.
 */
import { randomUUID } from 'node:crypto';
import * as os from 'node:os';
import { defaultConfig, type SousConfig } from '@sous/config';
import { buildRepositoryIndex, scopePolicyFromConfig, type RepositoryIndex } from '@sous/retrieval';
import type { DeepRunRow, Store } from '@sous/store';
import { createChatClient } from '../../backend/src/chat';
import { createJobQueue } from '../../jobs/src/create';
import type { JobQueue } from '../../jobs/src/types';
import { pgliteFactory } from '../../store/test/helpers';
import { symbolParserPool } from '../../retrieval/src/symbols/parser-pool';
import { startFakeBackend, type FakeBackend } from '../../../test/support/fake-backend';
import { gitSnapshot } from '../../../test/support/cli';
import { git, makeGitRepo, rmTempDir, writeFile } from '../../../test/support/tmp';
import { until } from '../../../test/support/wait';
import {
  DEEP_RUN_STEP_JOB,
  DeepRuns,
  EngineEvents,
  costUsd,
  createRepositoryView,
  type BundleBaseline,
  type DeepRunStepPayload,
  type DeepRunView,
  type Price,
} from '../src';

const MODEL = 'qwen2.5-coder:1.5b';
const DEEP_RESEARCH: BundleBaseline = { id: 'deep_research', posture: 'hybrid', spend: 'medium', drafting: 1.1, explore: 0.15, persist: 1.5, deep_run: 'aggressive' };
const LOCAL_BALANCED: BundleBaseline = { id: 'local_balanced', posture: 'local_preferred', spend: 'zero', drafting: 1, explore: 0, persist: 1, deep_run: 'balanced' };
const factory = pgliteFactory();
const policy = scopePolicyFromConfig(defaultConfig());

interface Harness {
  runs: DeepRuns;
  queue: JobQueue;
  workspaceId: string;
  events: EngineEvents;
  clock: { now: number };
  paused: { reason: string | null };
  /** The fake backend's counts when the harness was made. */
  before: { calls: number; prompt: number; completion: number };
}

describe('Deep-Run sessions', () => {
  let store: Store;
  let repo: string;
  let index: RepositoryIndex;
  let backend: FakeBackend;
  let silent: FakeBackend;
  const harnesses: Harness[] = [];

  beforeAll(async () => {
    store = await factory.open();
    backend = await startFakeBackend({ usage: 'chars' });
    silent = await startFakeBackend({ usage: 'none' });
    repo = makeGitRepo();
    writeFile(repo, 'src/config.ts', 'export function parseConfig(text: string): Record<string, string> {\n  return JSON.parse(text);\n}\n');
    writeFile(repo, 'docs/guide.md', '# Guide\n\nRead the settings with `parseConfig` before starting.\n');
    writeFile(repo, 'src/math.ts', 'export function total(a: number, b: number): number {\n  return a + b;\n}\n');
    writeFile(repo, 'src/report.ts', "import { total } from './math';\nexport const sum = total(1, 2);\n");
    git(repo, ['add', '-A']);
    git(repo, ['commit', '-q', '-m', 'config, guide, math']);
    writeFile(repo, 'src/config.ts', 'export function loadConfig(text: string): Record<string, string> {\n  return JSON.parse(text);\n}\n');
    git(repo, ['commit', '-q', '-am', 'Rename parseConfig to loadConfig']);
    writeFile(repo, 'src/math.ts', 'export function total(a: number, b: number, c: number): number {\n  return a + b + c;\n}\n');
    index = await buildRepositoryIndex(repo, policy);
  });

  afterEach(async () => {
    for (const h of harnesses.splice(0)) {
      h.runs.close();
      await h.queue.close({ graceMs: 5_000 });
    }
  });

  afterAll(async () => {
    await backend?.close();
    await silent?.close();
    await store?.close();
    await factory.cleanup();
    rmTempDir(repo);
    symbolParserPool().release();
  });

  /** A runner on a workspace of its own, with a goal to explore, on `server` at `price`. */
  async function harness(
    options: { price?: Price; maxSessionMinutes?: number; baseline?: BundleBaseline; local?: boolean; server?: FakeBackend; stepGapMs?: number; restartOf?: Harness } = {},
  ): Promise<Harness> {
    const server = options.server ?? backend;
    // `restartOf`: the same workspace and clock, a new queue and runner (a daemon that came back).
    let workspaceId = options.restartOf?.workspaceId;
    if (workspaceId === undefined) {
      workspaceId = (await store.workspaces.upsertByRoot({ rootPath: `${repo}-${randomUUID()}` })).id;
      await store.goals.create({ workspaceId, title: 'Callers of total pass three terms', relatedFiles: ['src/math.ts', 'src/report.ts'] });
    }
    const config: SousConfig = defaultConfig();
    // The session works from the stale caller of `total`, held by default: let it into the feed.
    config.exploration.detectors_held = config.exploration.detectors_held.filter((d) => d !== 'review.stale_callers');
    config.compute.max_session_minutes = options.maxSessionMinutes ?? 30;
    const queue = createJobQueue({ timeoutSeconds: () => 120 });
    const events = new EngineEvents();
    const clock = options.restartOf?.clock ?? { now: Date.parse('2026-11-27T09:00:00Z') };
    const paused: Harness['paused'] = { reason: null };
    const runs = new DeepRuns({
      store,
      workspaceId,
      config: () => config,
      baseline: () => options.baseline ?? DEEP_RESEARCH,
      model: () => ({ name: MODEL, base_url: server.baseUrl, local: options.local ?? true, chat: () => createChatClient({ name: 'fake', baseUrl: server.baseUrl, model: MODEL, apiKeyEnv: '' }, { env: {}, timeoutMs: 10_000 }) }),
      view: async () => createRepositoryView(index, policy),
      paused: () => paused.reason,
      enqueueStep: async (payload) => {
        await queue.enqueue(DEEP_RUN_STEP_JOB, payload);
      },
      events,
      now: () => clock.now,
      stepGapMs: options.stepGapMs ?? 10,
      tickMs: 20,
      ...(options.price ? { price: () => options.price! } : {}),
    });
    queue.register<DeepRunStepPayload>(DEEP_RUN_STEP_JOB, (payload, job) => runs.runStep(payload, job.signal));
    await queue.start();
    const h: Harness = { runs, queue, workspaceId, events, clock, paused, before: { calls: server.chatCalls, prompt: server.chatUsage.promptTokens, completion: server.chatUsage.completionTokens } };
    harnesses.push(h);
    return h;
  }

  /** Moves the clock `minutes` forward each time a step finishes (so limits are reached between steps). */
  function minutesPerStep(h: Harness, minutes: number): void {
    h.events.subscribe((e) => {
      if (e.type === 'deep_run.step') h.clock.now += minutes * 60_000;
    });
  }

  /** The session once it has ended and no step job is queued or running. */
  async function ended(h: Harness, id: string): Promise<DeepRunView> {
    const view = await until(async () => {
      const v = await h.runs.inspect(id);
      return v && v.state !== 'running' ? v : undefined;
    }, 90_000, 20);
    await until(async () => ((await h.queue.list({ limit: 500 })).some((j) => j.state === 'queued' || j.state === 'running') ? undefined : true), 30_000, 20);
    return (await h.runs.inspect(id)) ?? view;
  }

  /** Calls and tokens the fake backend answered since the harness was made. */
  function served(h: Harness, server = backend): { calls: number; prompt: number; completion: number } {
    return { calls: server.chatCalls - h.before.calls, prompt: server.chatUsage.promptTokens - h.before.prompt, completion: server.chatUsage.completionTokens - h.before.completion };
  }

  test('stops at its duration; calls and tokens are those the backend counted; drafts wait as cards; the repository is untouched', async () => {
    const gitBefore = gitSnapshot(repo);
    const h = await harness({ price: { input: 2, output: 10 } });
    minutesPerStep(h, 4);
    const started = await h.runs.start({ duration_minutes: 10, cost_cap_usd: 5 });
    expect(started).toMatchObject({ state: 'running', preset: 'aggressive', bundle: 'deep_research', duration_minutes: 10, cost_cap_usd: 5, deadline_by: 'duration', units: { duration: 'minutes', cost_cap: 'US dollars of estimated hosted-model spend' } });
    expect(Date.parse(started.deadline) - Date.parse(started.started_at)).toBe(10 * 60_000);

    const done = await ended(h, started.id);
    // 4 minutes per step: the third step ends at 12 minutes, past the 10-minute duration.
    expect(done).toMatchObject({ state: 'finished', stop_reason: 'duration', progress: { steps_done: 3, steps_interrupted: 0, running_step: null } });
    const counted = served(h);
    expect(counted.calls).toBeGreaterThan(0);
    expect(done.model).toMatchObject({ calls: counted.calls, prompt_tokens: counted.prompt, completion_tokens: counted.completion, tokens_estimated: false, local: true });
    expect(done.spend.estimated_usd).toBeCloseTo(costUsd(counted.prompt, counted.completion, { input: 2, output: 10 }), 6);
    expect(done.spend.method).toMatch(/usage/);

    // What it produced: cards that wait for adopt or dismiss, never applied.
    expect(done.produced.count).toBeGreaterThan(0);
    const cards = await store.workProducts.byIds(h.workspaceId, done.produced.cards.map((c) => c.id));
    expect(cards.length).toBe(done.produced.cards.length);
    for (const card of cards) expect(['candidate', 'ready']).toContain(card.state);
    expect(cards.some((c) => c.kind === 'prediction_draft')).toBe(true);
    expect(gitSnapshot(repo)).toEqual(gitBefore);
  });

  test('compute.max_session_minutes cuts a longer duration short', async () => {
    const h = await harness({ maxSessionMinutes: 5 });
    minutesPerStep(h, 2);
    const started = await h.runs.start({ preset: 'conservative', duration_minutes: 480 });
    expect(started).toMatchObject({ deadline_by: 'max_session_minutes', preset: 'conservative', cost_cap_usd: 5 });
    expect(Date.parse(started.deadline) - Date.parse(started.started_at)).toBe(5 * 60_000);
    const done = await ended(h, started.id);
    expect(done).toMatchObject({ state: 'finished', stop_reason: 'max_session_minutes', progress: { steps_done: 3 } });
    expect(done.spend.estimated_usd).toBe(0);
    expect(done.model.calls).toBe(served(h).calls);
  });

  test('stops before a model call would take the estimated spend past the cost cap', async () => {
    // $200 per million tokens: a call costs about $0.05 and its worst case (prompt ÷ 3 plus the whole
    // answer allowance) about $0.15, so the first step's seven calls would pass a $0.20 cap.
    const price = { input: 200, output: 200 };
    const h = await harness({ price });
    const started = await h.runs.start({ duration_minutes: 60, cost_cap_usd: 0.2 });
    const done = await ended(h, started.id);
    expect(done).toMatchObject({ state: 'finished', stop_reason: 'cost_cap' });
    expect(done.stop_detail).toMatch(/past the cap of \$0\.2/);
    const counted = served(h);
    expect(counted.calls).toBeGreaterThan(0);
    expect(done.model.calls).toBe(counted.calls);
    const spent = costUsd(counted.prompt, counted.completion, price);
    expect(done.spend.estimated_usd).toBeCloseTo(spent, 6);
    expect(spent).toBeLessThanOrEqual(0.2);
    expect(done.spend.remaining_usd).toBeCloseTo(0.2 - spent, 6);
  });

  test('a hosted backend costs the assumed price, and a cap of $0 stops the session before its first call', async () => {
    const h = await harness({ local: false });
    const started = await h.runs.start({ cost_cap_usd: 0 });
    expect(started.spend.price_per_million_usd).toEqual({ input: 3, output: 15 });
    const done = await ended(h, started.id);
    expect(done).toMatchObject({ state: 'finished', stop_reason: 'cost_cap', model: { calls: 0, local: false }, spend: { estimated_usd: 0 } });
    expect(served(h).calls).toBe(0);
  });

  test('a hosted backend is refused under a local posture, saying what to change', async () => {
    const h = await harness({ local: false, baseline: LOCAL_BALANCED });
    expect(h.runs.defaults().refused).toMatch(/hosted.*local_balanced.*local_preferred/);
    await expect(h.runs.start({})).rejects.toMatchObject({ code: 'conflict', message: expect.stringMatching(/sous setup apply hybrid_balanced/) });
    expect(await h.runs.inspect()).toBeNull();
  });

  test('an Auto Focus pause ends the session as paused; no step runs after it', async () => {
    const h = await harness();
    h.events.subscribe((e) => {
      if (e.type === 'deep_run.step' && e.step === 2) h.paused.reason = 'Paused: by the user.';
    });
    const started = await h.runs.start({ duration_minutes: 60 });
    const done = await ended(h, started.id);
    expect(done).toMatchObject({ state: 'paused', stop_reason: 'pause', progress: { steps_done: 2 } });
    expect(done.model.calls).toBe(served(h).calls);
    // A paused workspace starts nothing new.
    await expect(h.runs.start({})).rejects.toMatchObject({ code: 'conflict', message: expect.stringMatching(/paused/) });
  });

  test('stop ends the session at once; a second stop, or one with no session running, is a conflict', async () => {
    const h = await harness();
    h.events.subscribe((e) => {
      if (e.type === 'deep_run.step' && e.step === 2) void h.runs.stop();
    });
    const started = await h.runs.start({ duration_minutes: 60 });
    await expect(h.runs.start({})).rejects.toMatchObject({ code: 'conflict', message: expect.stringContaining(started.id) });
    const done = await ended(h, started.id);
    expect(done).toMatchObject({ state: 'stopped', stop_reason: 'stop' });
    expect(done.progress.steps_done).toBeGreaterThanOrEqual(2);
    expect(done.model.calls).toBe(served(h).calls);
    await expect(h.runs.stop(started.id)).rejects.toMatchObject({ code: 'conflict', message: expect.stringMatching(/already ended \(stopped/) });
    await expect(h.runs.stop()).rejects.toMatchObject({ code: 'conflict', message: expect.stringMatching(/no Deep-Run session is running/) });
    await expect(h.runs.inspect('nope')).rejects.toMatchObject({ code: 'not_found' });
  });

  test('without usage from the backend, tokens are estimated from characters and status says so', async () => {
    const price = { input: 1, output: 1 };
    const h = await harness({ server: silent, price });
    minutesPerStep(h, 30);
    const started = await h.runs.start({ duration_minutes: 20 });
    const done = await ended(h, started.id);
    expect(done).toMatchObject({ state: 'finished', stop_reason: 'duration', progress: { steps_done: 1 } });
    expect(done.model.calls).toBe(served(h, silent).calls);
    expect(done.model.tokens_estimated).toBe(true);
    expect(done.model.prompt_tokens).toBeGreaterThan(0);
    expect(done.spend.estimated_usd).toBeCloseTo(costUsd(done.model.prompt_tokens, done.model.completion_tokens, price), 9);
  });

  test('after a restart a session resumes with its next step, an interrupted step is never run again, and one past its deadline ends', async () => {
    const first = await harness({ stepGapMs: 60_000 });
    const started = await first.runs.start({ duration_minutes: 30 });
    await until(async () => ((await first.runs.inspect(started.id))?.progress.steps_done === 1 ? true : undefined), 60_000, 20);
    // The daemon dies while step 2 runs: its claim names a process that is gone.
    first.runs.close();
    await first.queue.close({ graceMs: 0 });
    const claimed = await store.deepRuns.claimStep(started.id, 2, `${os.hostname()}:999999999`, new Date(first.clock.now));
    expect(claimed?.runningStep).toBe(2);

    const second = await harness({ restartOf: first });
    minutesPerStep(second, 31);
    expect(await second.runs.resume()).toEqual([started.id]);
    // The same step delivered again (a job that survived the restart) is refused: step 2 was claimed.
    const duplicate = await second.runs.runStep({ session: started.id, step: 2 }, new AbortController().signal);
    expect(duplicate).toMatchObject({ outcome: 'skipped', reason: expect.stringMatching(/never runs twice/) });
    const done = await ended(second, started.id);
    // Step 3 ran and took the clock past the deadline; step 2 counts as interrupted, never run.
    expect(done).toMatchObject({ state: 'finished', stop_reason: 'duration', progress: { steps_done: 2, steps_interrupted: 1 } });
    const steps = (await second.queue.list({ limit: 50 })).map((j) => (j.result as { step?: number; outcome?: string } | undefined));
    expect(steps.filter((r) => r?.outcome === 'done').map((r) => r?.step)).toEqual([3]);

    // A session whose deadline passed while the daemon was down ends when it comes back.
    const third = await harness({ stepGapMs: 60_000 });
    const late = await third.runs.start({ duration_minutes: 15 });
    await until(async () => ((await third.runs.inspect(late.id))?.progress.steps_done === 1 ? true : undefined), 60_000, 20);
    third.runs.close();
    await third.queue.close({ graceMs: 0 });
    third.clock.now += 16 * 60_000;
    const revived = await harness({ restartOf: third });
    expect(await revived.runs.resume()).toEqual([]);
    const row = (await store.deepRuns.get(late.id)) as DeepRunRow;
    expect(row).toMatchObject({ state: 'finished', stopReason: 'daemon_restart', stepsDone: 1 });
    expect(row.stopDetail).toMatch(/daemon was down when its deadline/);
  });
});
