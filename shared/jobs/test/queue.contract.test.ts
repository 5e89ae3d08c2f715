/**
 * One contract, two backends: every case runs against the in-process queue and BullMQ on real Redis.
 */
import Joi from 'joi';
import { createJobQueue, JobError, runnerIdentity, whenFinished, type JobInfo, type JobQueue, type JobQueueOptions } from '@sous/jobs';
import { redisUrl, uniqueName } from '../../../test/support/services';
import { aborted, deleteQueueKeys, gate, jobInState, until, type Gate } from './helpers';

interface Backend {
  label: string;
  make(options: Omit<JobQueueOptions, 'redisUrl' | 'queueName'>): Promise<JobQueue>;
}

const usedQueueNames: string[] = [];
let redis: string | undefined;

const backends: Backend[] = [
  { label: 'in-process', make: async (options) => createJobQueue(options) },
  {
    label: 'bullmq',
    make: async (options) => {
      redis ??= await redisUrl();
      const queueName = uniqueName('jobs');
      usedQueueNames.push(queueName);
      return createJobQueue({ ...options, redisUrl: redis, queueName });
    },
  },
];

afterAll(async () => {
  if (redis) for (const name of usedQueueNames) await deleteQueueKeys(redis, name);
});

describe.each(backends)('job queue contract: $label', (backend) => {
  let queues: JobQueue[] = [];
  let gates: Gate[] = [];
  let limit = 60;

  /** A queue with the usual test jobs registered: add, boom, wait-for-gate, stubborn (ignores its signal). */
  async function makeQueue(options: { concurrency?: number } = {}): Promise<JobQueue> {
    const queue = await backend.make({ ...options, timeoutSeconds: () => limit });
    queues.push(queue);
    queue.register<{ a: number; b: number }>(
      'add',
      async ({ a, b }, ctx) => {
        await ctx.progress(0.5);
        await ctx.progress(1);
        return { sum: a + b };
      },
      { payload: Joi.object({ a: Joi.number().required(), b: Joi.number().required() }) },
    );
    queue.register('boom', async () => {
      throw new Error('disk on fire');
    });
    return queue;
  }

  function newGate(): Gate {
    const g = gate();
    gates.push(g);
    return g;
  }

  beforeEach(() => {
    limit = 60;
  });

  afterEach(async () => {
    for (const g of gates) g.open();
    await Promise.all(queues.map((q) => q.close({ graceMs: 1000 })));
    queues = [];
    gates = [];
  });

  test('a job runs to completed with its result and progress', async () => {
    const queue = await makeQueue();
    const queued = await queue.enqueue('add', { a: 2, b: '3' });
    expect(queued).toMatchObject({ name: 'add', state: 'queued', payload: { a: 2, b: 3 } });
    expect(Date.parse(queued.createdAt)).not.toBeNaN();
    await queue.start();
    const done = await jobInState(queue, queued.id, 'completed');
    expect(done).toMatchObject({ id: queued.id, result: { sum: 5 }, progress: 1 });
    expect(done?.startedAt).toBeDefined();
    expect(done?.finishedAt).toBeDefined();
    expect(done?.error).toBeUndefined();
  });

  test('a job records the process that ran it, and whenFinished resolves with its final info', async () => {
    const queue = await makeQueue();
    const queued = await queue.enqueue('add', { a: 1, b: 2 });
    expect(queued.runner).toBeUndefined();
    const finished = whenFinished(queue, queued.id, { pollMs: 50 });
    await queue.start();
    const done = await finished;
    expect(done).toMatchObject({ id: queued.id, state: 'completed', result: { sum: 3 }, runner: runnerIdentity() });
    expect((await queue.get(queued.id))?.runner).toBe(runnerIdentity());
    expect(await whenFinished(queue, 'job_unknown', { pollMs: 50 })).toBeUndefined();
  });

  test('a failing job is recorded with its error and the next job still runs', async () => {
    const queue = await makeQueue();
    await queue.start();
    const bad = await queue.enqueue('boom', {});
    const good = await queue.enqueue('add', { a: 1, b: 1 });
    expect(await jobInState(queue, bad.id, 'failed')).toMatchObject({ error: 'disk on fire' });
    expect(await jobInState(queue, good.id, 'completed')).toMatchObject({ result: { sum: 2 } });
  });

  test('a job past the limit read at its start is timed out, its signal fires, and the queue moves on', async () => {
    const queue = await makeQueue();
    const forever = newGate();
    let signalFired = false;
    queue.register('stubborn', async (_payload, ctx) => {
      void aborted(ctx.signal).then(() => (signalFired = true));
      await forever.promise; // ignores the signal on purpose
      return 'too late';
    });
    await queue.start();
    const first = await queue.enqueue('add', { a: 1, b: 2 });
    await jobInState(queue, first.id, 'completed');
    limit = 0.3; // a hot-reloaded limit applies to the next job
    const slow = await queue.enqueue('stubborn', {});
    const next = await queue.enqueue('add', { a: 4, b: 4 });
    const timedOut = await jobInState(queue, slow.id, 'timed_out');
    expect(timedOut?.error).toBe('timed out after 0.3 s (compute.max_cycle_seconds)');
    expect(timedOut?.finishedAt).toBeDefined();
    expect(signalFired).toBe(true);
    expect(await jobInState(queue, next.id, 'completed')).toMatchObject({ result: { sum: 8 } });
  });

  test('cancelling a queued job records it cancelled and it never runs', async () => {
    const queue = await makeQueue({ concurrency: 1 });
    const release = newGate();
    let lateRuns = 0;
    queue.register('hold', async () => {
      await release.promise;
      return 'held';
    });
    queue.register('late', async () => {
      lateRuns += 1;
    });
    await queue.start();
    const blocker = await queue.enqueue('hold', {});
    const waiting = await queue.enqueue('late', {});
    await jobInState(queue, blocker.id, 'running');
    const cancelled = await queue.cancel(waiting.id);
    expect(cancelled).toMatchObject({ id: waiting.id, state: 'cancelled', error: 'cancelled before it started' });
    release.open();
    await jobInState(queue, blocker.id, 'completed');
    const after = await queue.enqueue('add', { a: 0, b: 0 });
    await jobInState(queue, after.id, 'completed');
    expect(lateRuns).toBe(0);
    expect(await queue.get(waiting.id)).toMatchObject({ state: 'cancelled' });
    const listed = await queue.list({ states: ['cancelled'] });
    expect(listed.map((j) => j.id)).toEqual([waiting.id]);
  });

  test('cancelling a running job fires its signal and records it cancelled; a finished job is unchanged', async () => {
    const queue = await makeQueue();
    let sawAbort = false;
    queue.register('listen', async (_payload, ctx) => {
      await aborted(ctx.signal);
      sawAbort = true;
      throw new Error('stopped');
    });
    await queue.start();
    const job = await queue.enqueue('listen', { workspaceId: 'w1' });
    await jobInState(queue, job.id, 'running');
    const cancelled = await queue.cancel(job.id);
    expect(cancelled).toMatchObject({ id: job.id, state: 'cancelled', error: 'cancelled while running' });
    await until(() => sawAbort, Boolean, 'the handler to see its signal');
    expect(await queue.get(job.id)).toMatchObject({ state: 'cancelled' });

    const done = await queue.enqueue('add', { a: 1, b: 1 });
    await jobInState(queue, done.id, 'completed');
    expect(await queue.cancel(done.id)).toMatchObject({ state: 'completed', result: { sum: 2 } });
    expect(await queue.cancel('job_does_not_exist')).toBeUndefined();
  });

  test('unknown job names and invalid payloads are refused with a clear JobError', async () => {
    const queue = await makeQueue();
    await expect(queue.enqueue('nope', {})).rejects.toMatchObject({
      name: 'JobError',
      code: 'unknown_job',
      message: "unknown job 'nope': register it first (known: add, boom)",
    });
    const invalid = await queue.enqueue('add', { a: 'two', b: 1 }).catch((err: unknown) => err);
    expect(invalid).toBeInstanceOf(JobError);
    expect(invalid).toMatchObject({ code: 'invalid_payload', message: `invalid payload for job 'add': "a" must be a number` });
    await expect(queue.enqueue('boom', { text: 'x'.repeat(20_000) })).rejects.toMatchObject({
      code: 'invalid_payload',
      message: expect.stringContaining('pass identifiers, not content'),
    });
    expect(() => queue.register('add', async () => undefined)).toThrow("job 'add' is already registered");
    expect(await queue.list()).toEqual([]);
  });

  test('onJob reports every state change in order', async () => {
    const queue = await makeQueue();
    const seen: JobInfo[] = [];
    const stop = queue.onJob((info) => seen.push(info));
    const good = await queue.enqueue('add', { a: 1, b: 2 });
    const bad = await queue.enqueue('boom', {});
    await queue.start();
    await jobInState(queue, bad.id, 'failed');
    await until(() => seen.length, (n) => n >= 6, 'six events');
    const statesOf = (id: string) => seen.filter((e) => e.id === id).map((e) => e.state);
    expect(statesOf(good.id)).toEqual(['queued', 'running', 'completed']);
    expect(statesOf(bad.id)).toEqual(['queued', 'running', 'failed']);
    expect(seen.find((e) => e.id === bad.id && e.state === 'failed')?.error).toBe('disk on fire');
    expect(seen.find((e) => e.id === good.id && e.state === 'completed')?.result).toEqual({ sum: 3 });
    stop();
    const quiet = await queue.enqueue('add', { a: 0, b: 0 });
    await jobInState(queue, quiet.id, 'completed');
    expect(seen.some((e) => e.id === quiet.id)).toBe(false);
  });

  test('list returns jobs newest first, filtered by state and limited', async () => {
    const queue = await makeQueue();
    const ids: string[] = [];
    for (let i = 0; i < 3; i += 1) ids.push((await queue.enqueue('add', { a: i, b: i })).id);
    expect((await queue.list()).map((j) => j.id)).toEqual([...ids].reverse());
    expect((await queue.list({ limit: 2 })).map((j) => j.id)).toEqual([ids[2], ids[1]]);
    expect(await queue.list({ states: ['completed'] })).toEqual([]);
    await queue.start();
    await jobInState(queue, ids[2] as string, 'completed');
    expect((await queue.list({ states: ['completed'] })).map((j) => j.id)).toEqual([...ids].reverse());
  });

  test('close lets a running job finish within grace and cancels one that does not', async () => {
    const queue = await makeQueue({ concurrency: 2 });
    const finishSoon = newGate();
    const never = newGate();
    queue.register('polite', async () => {
      await finishSoon.promise;
      return 'finished';
    });
    queue.register('rude', async () => {
      await never.promise; // ignores its signal
    });
    const events: JobInfo[] = [];
    queue.onJob((info) => events.push(info));
    await queue.start();
    const polite = await queue.enqueue('polite', {});
    const rude = await queue.enqueue('rude', {});
    await jobInState(queue, polite.id, 'running');
    await jobInState(queue, rude.id, 'running');
    const closing = queue.close({ graceMs: 500 });
    finishSoon.open();
    await closing;
    const last = (id: string) => events.filter((e) => e.id === id).at(-1);
    expect(last(polite.id)).toMatchObject({ state: 'completed', result: 'finished' });
    expect(last(rude.id)).toMatchObject({
      state: 'cancelled',
      error: 'cancelled: the job queue closed and the job did not finish within 500 ms',
    });
    await expect(queue.enqueue('add', { a: 1, b: 1 })).rejects.toMatchObject({ code: 'closed' });
  });

  test('health is ok while open and not ok after close, without throwing', async () => {
    const queue = await makeQueue();
    await queue.start();
    expect(await queue.health()).toMatchObject({ ok: true, detail: expect.stringContaining(queue.kind) });
    await queue.close();
    expect(await queue.health()).toMatchObject({ ok: false, detail: expect.stringContaining('closed') });
  });
});
