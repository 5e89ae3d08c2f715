/**
 * Deep-Run through every surface of a real daemon (embedded PGlite, in-process queue, a temporary
 * repository, our fake OpenAI-compatible backend counting calls and tokens): HTTP, the `sous` CLI
 * and MCP tools. Each stop condition ends a session with its reason and the calls and spend the
 * backend counted; produced drafts wait as cards with adopt/dismiss actions while the repository
 * stays untouched; bad input is a clear 400, a one-line CLI error with exit 2, or an MCP error
 * result; a daemon restart resumes a running session without running any step twice. The runner's
 * clock is the daemon's injected one, moved forward when a step finishes (no test waits minutes).
 * The server topology (PostgreSQL, BullMQ) keeps a queued step job across a restart: it and the
 * resumed step run once between them.
 */
import * as fs from 'node:fs';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { ensureConfigFile, setConfigValue, sousPaths } from '@sous/config';
import { createSousMcpServer } from '@sous/mcp';
import { DaemonClient, parseProcessOptions } from '@sous/runtime';
import { startDaemon, type RunningDaemon } from '../services/daemon/src/daemon';
import { embeddedEnv, gitSnapshot, sous } from './support/cli';
import { startFakeBackend, type FakeBackend } from './support/fake-backend';
import { rawRequest } from './support/http';
import { makeRenameDriftRepo } from './support/prepared-work';
import { git, rmTempDir, writeFile } from './support/tmp';
import { until } from './support/wait';
import { serverTopology } from './support/topologies';
import { createJobQueue } from '@sous/jobs';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- JSON bodies are checked field by field
type Json = Record<string, any>;

describe('Deep-Run sessions through a real daemon', () => {
  let repo: string;
  let backend: FakeBackend;
  let daemon: RunningDaemon;
  let gitBefore: ReturnType<typeof gitSnapshot>;
  const clock = { now: Date.parse('2026-11-27T09:00:00Z') };
  /** Minutes the clock moves when a step finishes (0: it stands still). */
  let minutesPerStep = 0;
  let price = { input: 2, output: 10 };
  /** While true the backend answers at length (cut at each call's max_tokens). */
  let longAnswers = false;
  let env: NodeJS.ProcessEnv;

  const get = (path: string) => rawRequest({ port: daemon.port, path });
  const post = (path: string, body: unknown) => rawRequest({ port: daemon.port, method: 'POST', path, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

  async function start(stepGapMs = 20): Promise<RunningDaemon> {
    const d = await startDaemon(parseProcessOptions(['--path', repo, '--port', '0'], { LOG_LEVEL: 'warn' }, { port: 0 }), {}, {
      deepRun: { now: () => clock.now, stepGapMs, tickMs: 20, price: () => price },
    });
    d.context.preparation.events.subscribe((e) => {
      if (e.type === 'deep_run.step') clock.now += minutesPerStep * 60_000;
    });
    await until(async () => ((await rawRequest({ port: d.port, path: '/status' })).json?.index?.state === 'ready' ? true : undefined), 90_000, 100);
    return d;
  }

  /** The session once it has ended and no step job is queued or running. */
  async function ended(id: string): Promise<Json> {
    await until(async () => ((await get(`/deep-run/sessions/${id}`)).json.session.state !== 'running' ? true : undefined), 90_000, 50);
    await until(async () => ((await get('/jobs?limit=500')).json.jobs.some((j: Json) => j.name === 'deep_run.step' && (j.state === 'queued' || j.state === 'running')) ? undefined : true), 30_000, 50);
    return (await get(`/deep-run/sessions/${id}`)).json.session;
  }

  /** Chat calls and tokens the fake backend answered since `mark`. */
  const mark = () => ({ calls: backend.chatCalls, prompt: backend.chatUsage.promptTokens, completion: backend.chatUsage.completionTokens });
  const since = (m: ReturnType<typeof mark>) => ({ calls: backend.chatCalls - m.calls, prompt: backend.chatUsage.promptTokens - m.prompt, completion: backend.chatUsage.completionTokens - m.completion });

  beforeAll(async () => {
    backend = await startFakeBackend({ usage: 'chars', answer: () => (longAnswers ? 'The cited lines hold. '.repeat(200) : undefined) });
    // A docs drift (the guide names a renamed function and links a moved file) and a stale caller
    // (total() gained a term in uncommitted work, src/report.ts still passes two): a drift card, its
    // patch, a review note and a draft.
    repo = makeRenameDriftRepo();
    writeFile(repo, 'src/math.ts', 'export function total(a: number, b: number): number {\n  return a + b;\n}\n');
    writeFile(repo, 'src/report.ts', "import { total } from './math';\nexport const sum = total(1, 2);\n");
    git(repo, ['add', '-A']);
    git(repo, ['commit', '-q', '-m', 'math and report']);
    writeFile(repo, 'src/math.ts', 'export function total(a: number, b: number, c: number): number {\n  return a + b + c;\n}\n');
    gitBefore = gitSnapshot(repo);
    const paths = sousPaths(repo);
    fs.mkdirSync(paths.dir, { recursive: true });
    await ensureConfigFile(paths);
    await setConfigValue(paths.config, 'backend.base_url', backend.baseUrl);
    await setConfigValue(paths.config, 'policy.bundle', 'deep_research');
    env = embeddedEnv();
    daemon = await start();
    await post('/goals', { title: 'Finish the loadConfig rename', related_files: ['src/config.ts', 'src/server.ts', 'docs/guide.md'] });
  }, 180_000);

  afterAll(async () => {
    await daemon?.close('test done');
    await backend?.close();
    rmTempDir(repo);
  }, 60_000);

  test('defaults come from the active bundle, with the units and the estimate method; nothing runs yet', async () => {
    expect((await get('/deep-run')).json).toEqual({ session: null });
    const d = (await get('/deep-run/defaults')).json;
    expect(d).toMatchObject({ bundle: 'deep_research', preset: 'aggressive', duration_minutes: 480, cost_cap_usd: 5, max_session_minutes: 30, refused: null, units: { duration: 'minutes', cost_cap: 'US dollars of estimated hosted-model spend' } });
    expect(d.model).toEqual({ name: 'qwen2.5-coder:1.5b', base_url: backend.baseUrl, local: true });
    expect(d.spend_method).toMatch(/usage.*characters ÷ 4.*local backends cost \$0/);
    expect(d.presets.map((p: Json) => p.preset)).toEqual(['conservative', 'balanced', 'aggressive']);
    // The bundle scales the preset: deep_research drafts 1.1×, explores +0.15, persists 1.5×.
    expect(d.presets[2].settings).toMatchObject({ model_calls_per_step: 18, exploration_depth: 6, frontier_max_size: 575, llm_gate: 'always', targets_per_step: 5 });
  });

  test('bad input is a 400 naming the field and the unit; unknown ids 404; stopping nothing is a 409', async () => {
    const cases: Array<[unknown, string, RegExp]> = [
      [{ duration_minutes: 1.5 }, 'body.duration_minutes', /whole minutes from 1 to 10080/],
      [{ duration_minutes: '10' }, 'body.duration_minutes', /whole minutes/],
      [{ duration_minutes: 0 }, 'body.duration_minutes', /whole minutes/],
      [{ cost_cap_usd: -1 }, 'body.cost_cap_usd', /US dollars from 0 to 1000/],
      [{ cost_cap_usd: 1.234 }, 'body.cost_cap_usd', /at most 2 decimals/],
      [{ preset: 'turbo' }, 'body.preset', /conservative, balanced, aggressive/],
      [{ hours: 8 }, 'body.hours', /not allowed/],
    ];
    for (const [body, where, message] of cases) {
      const res = await post('/deep-run/start', body);
      expect({ where, status: res.status, code: res.json.error.code, at: res.json.error.where }).toEqual({ where, status: 400, code: 'invalid_body', at: where });
      expect(res.json.error.message).toMatch(message);
    }
    expect((await get('/deep-run/sessions/nope')).status).toBe(404);
    expect((await get('/deep-run/sessions?limit=0')).json.error).toMatchObject({ code: 'invalid_query', where: 'query.limit' });
    const stop = await post('/deep-run/stop', {});
    expect(stop.status).toBe(409);
    expect(stop.json.error.message).toMatch(/no Deep-Run session is running/);
    expect((await get('/deep-run')).json).toEqual({ session: null });
  });

  test('a session stops at its duration; calls, tokens and spend are what the backend counted; drafts wait for adopt or dismiss', async () => {
    const m = mark();
    minutesPerStep = 4;
    const res = await post('/deep-run/start', { duration_minutes: 10, cost_cap_usd: 5 });
    expect(res.status).toBe(201);
    expect(res.json.session).toMatchObject({ state: 'running', preset: 'aggressive', bundle: 'deep_research', deadline_by: 'duration' });
    const done = await ended(res.json.session.id);
    expect(done).toMatchObject({ state: 'finished', stop_reason: 'duration', progress: { steps_done: 3 } });
    const counted = since(m);
    expect(counted.calls).toBeGreaterThan(0);
    expect(done.model).toMatchObject({ calls: counted.calls, prompt_tokens: counted.prompt, completion_tokens: counted.completion, tokens_estimated: false });
    expect(done.spend.estimated_usd).toBeCloseTo((counted.prompt * 2 + counted.completion * 10) / 1e6, 6);
    // The step jobs are ordinary jobs: one per step, each with its own result.
    const steps = (await get('/jobs?limit=500')).json.jobs.filter((j: Json) => j.name === 'deep_run.step' && j.payload.session === done.id);
    expect(steps.map((j: Json) => j.payload.step).sort()).toEqual([1, 2, 3]);
    expect(steps.every((j: Json) => j.state === 'completed' && j.result.outcome === 'done')).toBe(true);

    expect(done.produced.count).toBeGreaterThan(0);
    for (const card of done.produced.cards as Json[]) {
      const inspect = (await get(`/work-products/${card.id}/inspect`)).json;
      expect(['candidate', 'ready']).toContain(card.state);
      if (card.state === 'ready') expect(inspect.actions).toContain('dismiss');
    }
    expect(done.produced.cards.some((c: Json) => c.kind === 'prediction_draft')).toBe(true);
    expect(gitSnapshot(repo)).toEqual(gitBefore);
  });

  test('compute.max_session_minutes cuts the duration short', async () => {
    minutesPerStep = 12;
    await setConfigValue(sousPaths(repo).config, 'compute.max_session_minutes', '20');
    await until(async () => ((await get('/deep-run/defaults')).json.max_session_minutes === 20 ? true : undefined), 10_000);
    const res = await post('/deep-run/start', { preset: 'conservative', duration_minutes: 480 });
    expect(res.json.session).toMatchObject({ deadline_by: 'max_session_minutes', preset: 'conservative' });
    const done = await ended(res.json.session.id);
    expect(done).toMatchObject({ state: 'finished', stop_reason: 'max_session_minutes', progress: { steps_done: 2 } });
    await setConfigValue(sousPaths(repo).config, 'compute.max_session_minutes', '30');
    await until(async () => ((await get('/deep-run/defaults')).json.max_session_minutes === 30 ? true : undefined), 10_000);
  });

  test('the cost cap stops a session before a call would pass it', async () => {
    const m = mark();
    minutesPerStep = 0;
    // Answers as long as each call allows (200-400 tokens), and only answers cost: a call's worst
    // case is then what it costs, and a cap of 500 tokens' worth lets the first call through and
    // stops the session by its third.
    longAnswers = true;
    price = { input: 0, output: 100 };
    try {
      const res = await post('/deep-run/start', { duration_minutes: 60, cost_cap_usd: 0.05 });
      const done = await ended(res.json.session.id);
      expect(done).toMatchObject({ state: 'finished', stop_reason: 'cost_cap' });
      expect(done.stop_detail).toMatch(/past the cap of \$0\.05/);
      const counted = since(m);
      expect(counted.calls).toBeGreaterThan(0);
      expect(done.model).toMatchObject({ calls: counted.calls, completion_tokens: counted.completion });
      const spent = (counted.completion * 100) / 1e6;
      expect(done.spend.estimated_usd).toBeCloseTo(spent, 6);
      expect(spent).toBeLessThanOrEqual(0.05);
    } finally {
      longAnswers = false;
      price = { input: 2, output: 10 };
    }
  });

  test('pausing the workspace (Auto Focus) ends the session as paused, and nothing starts while paused', async () => {
    const m = mark();
    const workspace = (await get('/focus')).json.workspace as string;
    // The user pauses the workspace as the first step finishes (the action `POST /focus/.../pause`
    // applies, taken in step with the session so the count of calls is exact).
    const off = daemon.context.preparation.events.subscribe((e) => {
      if (e.type !== 'deep_run.step') return;
      off();
      daemon.context.focus.apply({ kind: 'pause', id: workspace });
    });
    const res = await post('/deep-run/start', { duration_minutes: 60 });
    const done = await ended(res.json.session.id);
    expect(done).toMatchObject({ state: 'paused', stop_reason: 'pause', progress: { steps_done: 1 } });
    expect(done.stop_detail).toMatch(/the workspace was paused/);
    expect((await get('/focus')).json.this_workspace.class).toBe('paused');
    expect(done.model.calls).toBe(since(m).calls);
    const refused = await post('/deep-run/start', {});
    expect(refused.status).toBe(409);
    expect(refused.json.error.message).toMatch(/paused.*resume it/);
    expect((await post(`/focus/workspaces/${workspace}/resume`, {})).status).toBe(200);
  });

  test('the CLI starts, shows and stops a session; bad flags are one line and exit 2', async () => {
    minutesPerStep = 0;
    for (const [flags, message] of [
      [['--duration', '1.5'], /--duration is whole minutes from 1 to 10080, like 480 \(got "1\.5"\)/],
      [['--cost-cap', '$5'], /--cost-cap is US dollars/],
      [['--preset', 'turbo'], /--preset must be one of conservative, balanced, aggressive/],
    ] as const) {
      const r = await sous(['deep-run', 'start', '--path', repo, ...flags], { env });
      expect({ code: r.code, lines: r.stderr.trim().split('\n').length }).toEqual({ code: 2, lines: 1 });
      expect(r.stderr).toMatch(message);
    }
    const started = await sous(['deep-run', 'start', '--path', repo, '--preset', 'balanced', '--duration', '60', '--cost-cap', '2.50', '--json'], { env });
    expect(started.code).toBe(0);
    expect(started.json.session).toMatchObject({ state: 'running', preset: 'balanced', duration_minutes: 60, cost_cap_usd: 2.5 });
    const again = await sous(['deep-run', 'start', '--path', repo], { env });
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/already running/);
    const status = await sous(['deep-run', 'status', '--path', repo], { env });
    expect(status.code).toBe(0);
    expect(status.stdout).toMatch(new RegExp(`Deep-Run ${started.json.session.id}\\s+running`));
    expect(status.stdout).toMatch(/spend: \$0\.\d\d of the \$2\.50 cap, estimated/);
    const stopped = await sous(['deep-run', 'stop', '--path', repo, '--json'], { env });
    expect(stopped.code).toBe(0);
    expect(stopped.json.session).toMatchObject({ state: 'stopped', stop_reason: 'stop' });
    const done = await ended(started.json.session.id);
    expect(done.state).toBe('stopped');
    const unknown = await sous(['deep-run', 'status', '--path', repo, '--id', 'nope'], { env });
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/no Deep-Run session "nope"/);
  });

  test('MCP deep_run tools: defaults, start, inspect, list, stop; bad arguments are error results', async () => {
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await createSousMcpServer({ version: '0.1.0-test', daemon: async () => new DaemonClient(`http://127.0.0.1:${daemon.port}`), workspace: repo, timeoutMs: 20_000 }).connect(serverSide);
    const client = new Client({ name: 'deep-run-test', version: '0.0.0' });
    await client.connect(clientSide);
    const call = async (name: string, args: Json = {}) => {
      const r = await client.callTool({ name, arguments: args });
      return { isError: r.isError === true, text: (r.content as Array<{ text?: string }>).map((c) => c.text ?? '').join('\n'), data: r.structuredContent as Json };
    };
    try {
      expect((await call('sous.deep_run.defaults')).data).toMatchObject({ bundle: 'deep_research', preset: 'aggressive' });
      const bad = await call('sous_deep_run_start', { duration_minutes: 0, budget: 3 });
      expect(bad).toMatchObject({ isError: true, data: { error: { code: 'invalid_arguments' } } });
      expect(bad.text).toMatch(/duration_minutes.*greater than or equal to 1/);
      const started = await call('sous_deep_run_start', { preset: 'conservative', duration_minutes: 45, cost_cap_usd: 1 });
      expect(started.isError).toBe(false);
      const id = started.data.session.id as string;
      expect(started.text).toMatch(/Started\.\nDeep-Run .* \[conservative on deep_research\] runs until/);
      expect((await call('sous_deep_run_inspect')).data.session.id).toBe(id);
      expect((await call('sous_deep_run_list', { limit: 3 })).data.sessions[0].id).toBe(id);
      const stopped = await call('sous_deep_run_stop', { id });
      expect(stopped.data.session).toMatchObject({ state: 'stopped', stop_reason: 'stop' });
      expect((await call('sous_deep_run_stop')).data).toMatchObject({ error: { code: 'conflict' } });
      expect((await call('sous_deep_run_inspect', { id: 'nope' })).data).toMatchObject({ error: { code: 'not_found' } });
      await ended(id);
    } finally {
      await client.close();
    }
  });

  test('a daemon restart resumes a running session with its next step; no step runs twice', async () => {
    minutesPerStep = 0;
    // Long pauses between steps: the session is between two steps when the daemon stops, and after
    // the restart it runs exactly one more before the test stops it.
    await daemon.close('restart');
    daemon = await start(600_000);
    const res = await post('/deep-run/start', { duration_minutes: 30 });
    const id = res.json.session.id as string;
    const stepsDone = async (n: number) => until(async () => ((await get(`/deep-run/sessions/${id}`)).json.session.progress.steps_done === n ? true : undefined), 60_000, 50);
    await stepsDone(1);
    await daemon.close('restart');

    daemon = await start(600_000);
    await stepsDone(2);
    expect((await get(`/deep-run/sessions/${id}`)).json.session).toMatchObject({ state: 'running', progress: { steps_done: 2, steps_interrupted: 0 } });
    // Step 2 delivered again (a job that outlived its daemon) is refused: a step number is claimed once.
    const again = await daemon.context.queue.enqueue('deep_run.step', { session: id, step: 2 });
    const job = await until(async () => {
      const j = (await get(`/jobs/${again.id}`)).json.job;
      return j.state === 'completed' ? j : undefined;
    }, 30_000, 50);
    expect(job.result).toMatchObject({ outcome: 'skipped', reason: expect.stringMatching(/never runs twice/) });
    const stopped = await post('/deep-run/stop', { id });
    expect(stopped.json.session).toMatchObject({ state: 'stopped', progress: { steps_done: 2, steps_interrupted: 0 } });
    const steps = (await get('/jobs?limit=500')).json.jobs.filter((j: Json) => j.name === 'deep_run.step' && j.payload.session === id);
    expect(steps.map((j: Json) => [j.payload.step, j.result?.outcome])).toEqual([[2, 'skipped'], [2, 'done']]);
    expect(gitSnapshot(repo)).toEqual(gitBefore);
  });
});

describe('Deep-Run across a daemon restart, server topology (PostgreSQL + BullMQ)', () => {
  const topology = serverTopology('deeprun');
  let repo: string;
  let daemon: RunningDaemon | undefined;
  let backend: FakeBackend | undefined;

  afterAll(async () => {
    await daemon?.close('test done');
    await backend?.close();
    await topology.cleanup();
    if (repo) rmTempDir(repo);
  }, 60_000);

  test('a step job left in Redis and the resumed step run once between them', async () => {
    const env = await topology.env();
    repo = makeRenameDriftRepo();
    backend = await startFakeBackend({ usage: 'chars' });
    fs.mkdirSync(sousPaths(repo).dir, { recursive: true });
    await ensureConfigFile(sousPaths(repo));
    await setConfigValue(sousPaths(repo).config, 'backend.base_url', backend.baseUrl);
    // Long pauses: between steps nothing is queued, so only the two step-2 jobs below exist.
    const start = async (): Promise<RunningDaemon> => {
      const d = await startDaemon(parseProcessOptions(['--path', repo, '--port', '0'], { ...env, LOG_LEVEL: 'warn' }, { port: 0 }), {}, { deepRun: { stepGapMs: 600_000, tickMs: 50 } });
      await until(async () => ((await rawRequest({ port: d.port, path: '/status' })).json?.index?.state === 'ready' ? true : undefined), 90_000, 100);
      return d;
    };
    const session = async (id: string): Promise<Json> => (await rawRequest({ port: daemon!.port, path: `/deep-run/sessions/${id}` })).json.session;
    daemon = await start();
    const started = await rawRequest({ port: daemon.port, method: 'POST', path: '/deep-run/start', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ duration_minutes: 30 }) });
    expect(started.status).toBe(201);
    const id = started.json.session.id as string;
    await until(async () => ((await session(id)).progress.steps_done === 1 ? true : undefined), 60_000, 50);
    await daemon.close('restart');
    daemon = undefined;

    // A step-2 job queued before the daemon stopped: BullMQ keeps it in Redis for the next start.
    const producer = createJobQueue({ redisUrl: env.REDIS_URL, queueName: env.SOUS_QUEUE_NAME, timeoutSeconds: () => 300 });
    producer.register('deep_run.step', async () => undefined);
    await producer.enqueue('deep_run.step', { session: id, step: 2 });
    await producer.close({ graceMs: 0 });

    daemon = await start();
    const stepTwo = async (): Promise<Json[]> => (await rawRequest({ port: daemon!.port, path: '/jobs?limit=500' })).json.jobs.filter((j: Json) => j.name === 'deep_run.step' && j.payload.step === 2);
    const outcomes = await until(async () => {
      const jobs = await stepTwo();
      return jobs.length === 2 && jobs.every((j) => j.state === 'completed') ? jobs.map((j) => j.result.outcome).sort() : undefined;
    }, 90_000, 100);
    expect(outcomes).toEqual(['done', 'skipped']);
    expect(await session(id)).toMatchObject({ state: 'running', progress: { steps_done: 2, steps_interrupted: 0 } });
    const stopped = await rawRequest({ port: daemon.port, method: 'POST', path: '/deep-run/stop', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(stopped.json.session).toMatchObject({ state: 'stopped', stop_reason: 'stop' });
  }, 240_000);
});
