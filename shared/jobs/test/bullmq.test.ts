/** What only the BullMQ backend promises: shared state across processes and clear connection errors. */
import { createJobQueue, type JobQueue } from '@sous/jobs';
import { redisUrl, uniqueName } from '../../../test/support/services';
import { aborted, deleteQueueKeys, gate, jobInState, until } from './helpers';

let url: string;
const names: string[] = [];
let queues: JobQueue[] = [];

function open(queueName: string): JobQueue {
  const queue = createJobQueue({ redisUrl: url, queueName, timeoutSeconds: () => 60 });
  queues.push(queue);
  return queue;
}

beforeAll(async () => {
  url = await redisUrl();
});

afterEach(async () => {
  await Promise.all(queues.map((q) => q.close({ graceMs: 1000 })));
  queues = [];
});

afterAll(async () => {
  for (const name of names) await deleteQueueKeys(url, name);
});

test('another queue instance on the same name sees states and can cancel a running job', async () => {
  const name = uniqueName('jobs');
  names.push(name);
  const runner = open(name);
  const reader = open(name); // stands in for another process: never started, no handlers
  const release = gate();
  let signalled = false;
  runner.register('hold', async (_p, ctx) => {
    await Promise.race([release.promise, aborted(ctx.signal).then(() => (signalled = true))]);
  });
  runner.register('quick', async () => 'ok');
  await runner.start();

  const quick = await runner.enqueue('quick', { workspaceId: 'w1' });
  expect(await jobInState(reader, quick.id, 'completed')).toMatchObject({ result: 'ok', payload: { workspaceId: 'w1' } });

  const held = await runner.enqueue('hold', {});
  await jobInState(reader, held.id, 'running');
  expect(await reader.cancel(held.id)).toMatchObject({ state: 'cancelled', error: 'cancelled while running' });
  expect(signalled).toBe(true);
  expect((await reader.list()).map((j) => [j.id, j.state])).toEqual([
    [held.id, 'cancelled'],
    [quick.id, 'completed'],
  ]);
  release.open();
});

test('queued jobs stay in Redis across a restart and run when a worker starts', async () => {
  const name = uniqueName('jobs');
  names.push(name);
  const first = open(name);
  first.register('quick', async () => 'ran later');
  const job = await first.enqueue('quick', {});
  await first.close();

  const second = open(name);
  second.register('quick', async () => 'ran later');
  await second.start();
  expect(await jobInState(second, job.id, 'completed')).toMatchObject({ result: 'ran later' });
});

test('an unreachable Redis gives clear errors naming the URL without its password, and never crashes', async () => {
  const errors: Error[] = [];
  const queue = createJobQueue({
    redisUrl: 'redis://:s3cret-pass@127.0.0.1:1',
    queueName: uniqueName('jobs'),
    timeoutSeconds: () => 60,
    onError: (err) => errors.push(err),
  });
  queues.push(queue);
  queue.register('quick', async () => 'never');
  const failure = await queue.enqueue('quick', {}).then(
    () => new Error('enqueue unexpectedly succeeded'),
    (err: unknown) => err as Error,
  );
  expect(failure).toMatchObject({ name: 'JobError', code: 'unavailable' });
  expect(failure.message).toContain("cannot enqueue job 'quick': Redis at redis://:***@127.0.0.1:1");
  expect(failure.message).toContain('start Redis or check REDIS_URL');
  expect(failure.message).not.toContain('s3cret');
  const health = await queue.health();
  expect(health.ok).toBe(false);
  expect(health.detail).toContain('redis://:***@127.0.0.1:1');
  await expect(queue.start()).rejects.toMatchObject({ code: 'unavailable' });
  await until(() => errors.length, (n) => n > 0, 'a reported connection error');
  expect(errors.every((e) => !e.message.includes('s3cret'))).toBe(true);
  await queue.close({ graceMs: 100 });
  expect(await queue.health()).toMatchObject({ ok: false });
});

test('bad options are refused with a clear message', () => {
  expect(() => createJobQueue({ redisUrl: 'http://localhost', timeoutSeconds: () => 1 })).toThrow(
    'job queue redisUrl must start with redis:// or rediss://',
  );
  expect(() => createJobQueue({ redisUrl: url, queueName: 'a:b', timeoutSeconds: () => 1 })).toThrow("job queue name 'a:b' is invalid");
  expect(() => createJobQueue({ concurrency: 0, timeoutSeconds: () => 1 })).toThrow('concurrency must be a positive integer');
});
