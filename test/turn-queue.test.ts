/**
 * The queue /v1/context runs queries in: one job per event-loop turn, in arrival order, so what
 * arrives between two jobs (I/O, an answer from the cache) is served before the next job starts.
 */
import { TurnQueue } from '../shared/http/src/turn-queue';

describe('TurnQueue', () => {
  test('runs jobs in arrival order, one per event-loop turn', async () => {
    const queue = new TurnQueue();
    const events: string[] = [];
    const done = [1, 2, 3].map((n) =>
      queue.run(() => {
        events.push(`job ${n}`);
        // Work that arrives while a job runs: it must get its turn before the next job.
        setImmediate(() => events.push(`between ${n}`));
        return n * 10;
      }),
    );
    expect(queue.pending).toBe(3);
    expect(events).toEqual([]);
    expect(await Promise.all(done)).toEqual([10, 20, 30]);
    await new Promise((resolve) => setImmediate(resolve));
    expect(events).toEqual(['job 1', 'between 1', 'job 2', 'between 2', 'job 3', 'between 3']);
    expect(queue.pending).toBe(0);
  });

  test('a job that throws rejects its own promise only', async () => {
    const queue = new TurnQueue();
    const failed = queue.run(() => {
      throw new Error('index gone');
    });
    const next = queue.run(() => 'answered');
    await expect(failed).rejects.toThrow('index gone');
    await expect(next).resolves.toBe('answered');
  });

  test('a job queued while the queue is idle again still runs', async () => {
    const queue = new TurnQueue();
    expect(await queue.run(() => 1)).toBe(1);
    expect(await queue.run(() => 2)).toBe(2);
  });
});
