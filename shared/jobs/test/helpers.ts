import { Redis } from 'ioredis';
import type { JobInfo, JobQueue, JobState } from '@sous/jobs';

/** A promise the test resolves by hand: lets a handler block until the test says so. */
export interface Gate {
  promise: Promise<void>;
  open(): void;
}

export function gate(): Gate {
  let open!: () => void;
  const promise = new Promise<void>((resolve) => (open = resolve));
  return { promise, open };
}

/** Polls `read` until `accept` holds, or fails after `timeoutMs` saying what it last saw. */
export async function until<T>(read: () => Promise<T> | T, accept: (value: T) => boolean, what: string, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: T | undefined;
  while (Date.now() < deadline) {
    last = await read();
    if (accept(last)) return last;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`timed out waiting for ${what}; last saw ${JSON.stringify(last)}`);
}

/** Waits until job `id` is in `state`. */
export function jobInState(queue: JobQueue, id: string, state: JobState): Promise<JobInfo | undefined> {
  return until(() => queue.get(id), (info) => info?.state === state, `job ${id} to be ${state}`);
}

/** Resolves when the signal fires (never rejects). */
export function aborted(signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
}

/** Deletes every Redis key of BullMQ queue `name` (obliterate leaves our cancelled-job records behind). */
export async function deleteQueueKeys(url: string, name: string): Promise<void> {
  const redis = new Redis(url, { maxRetriesPerRequest: 1 });
  try {
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `bull:${name}:*`, 'COUNT', 500);
      cursor = next;
      if (keys.length) await redis.del(...keys);
    } while (cursor !== '0');
  } finally {
    await redis.quit();
  }
}
