/** What only the in-process backend promises: a capped history and concurrency slots in memory. */
import { createJobQueue } from '@sous/jobs';
import { gate, jobInState, until } from './helpers';

test('history keeps only the newest finished jobs', async () => {
  const queue = createJobQueue({ timeoutSeconds: () => 60, historyLimit: 3 });
  queue.register('quick', async () => 'ok');
  await queue.start();
  const ids: string[] = [];
  for (let i = 0; i < 5; i += 1) ids.push((await queue.enqueue('quick', { i })).id);
  await jobInState(queue, ids[4] as string, 'completed');
  expect((await queue.list()).map((j) => j.id)).toEqual([ids[4], ids[3], ids[2]]);
  expect(await queue.get(ids[0] as string)).toBeUndefined();
  await queue.close();
});

test('concurrency slots run that many jobs at once', async () => {
  const queue = createJobQueue({ timeoutSeconds: () => 60, concurrency: 2 });
  const release = gate();
  queue.register('hold', async () => release.promise);
  await queue.start();
  for (let i = 0; i < 3; i += 1) await queue.enqueue('hold', { i });
  const running = await until(() => queue.list({ states: ['running'] }), (jobs) => jobs.length === 2, 'two running jobs');
  expect(running).toHaveLength(2);
  expect(await queue.list({ states: ['queued'] })).toHaveLength(1);
  release.open();
  await until(() => queue.list({ states: ['completed'] }), (jobs) => jobs.length === 3, 'three completed jobs');
  await queue.close();
});

test('close records queued jobs cancelled, since they live only in memory', async () => {
  const queue = createJobQueue({ timeoutSeconds: () => 60 });
  queue.register('quick', async () => 'ok');
  const job = await queue.enqueue('quick', {});
  await queue.close();
  expect(await queue.get(job.id)).toMatchObject({ state: 'cancelled', error: 'cancelled: the job queue closed before it started' });
});
