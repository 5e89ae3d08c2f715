import { settleLeftoverJobs, type JobInfo, type JobQueue, type JobRecords } from '@sous/jobs';
import type { Logger } from '@sous/logging';
import type { JobRow, Store } from '@sous/store';

/** The most unfinished records settled at start (far more than a daemon ever leaves). */
const LEFTOVER_LIMIT = 500;

/**
 * Mirrors every job state change into the store's `jobs` table, one write after another (concurrent
 * upserts could land out of order and record `running` over `completed`). Returns a promise of the
 * writes so far: await it after the queue closes, before the store does.
 */
export function mirrorJobs(queue: JobQueue, store: Store, logger: Logger): () => Promise<void> {
  let writes: Promise<void> = Promise.resolve();
  queue.onJob((info) => {
    logger.info({ job: info.id, name: info.name, state: info.state, error: info.error }, 'job');
    writes = writes.then(() =>
      store.jobs.upsert(info).then(
        () => undefined,
        (err: unknown) => logger.warn({ job: info.id, error: err instanceof Error ? err.message : String(err) }, 'job record not stored'),
      ),
    );
  });
  return () => writes;
}

/**
 * Settles the records a killed daemon left `queued` or `running` (see `settleLeftoverJobs`), before
 * the queue starts. A failure (an unreachable Redis) is logged: the records stay as they were.
 */
export async function settleLeftovers(queue: Pick<JobQueue, 'get'>, store: Store, logger: Logger): Promise<void> {
  const records: JobRecords = {
    unfinished: async () => (await store.jobs.listRecent({ states: ['queued', 'running'], limit: LEFTOVER_LIMIT })).map(toJobInfo),
    save: async (info) => {
      await store.jobs.upsert(info);
    },
  };
  try {
    for (const job of await settleLeftoverJobs(records, queue)) {
      logger.warn({ job: job.id, name: job.name, state: job.state, error: job.error }, 'job left unfinished by a stopped daemon settled');
    }
  } catch (err) {
    logger.warn({ error: err instanceof Error ? err.message : String(err) }, 'jobs left unfinished by a stopped daemon could not be settled');
  }
}

function toJobInfo(row: JobRow): JobInfo {
  const info: JobInfo = { id: row.id, name: row.name, state: row.state, payload: row.payload, createdAt: row.createdAt.toISOString() };
  if (row.startedAt) info.startedAt = row.startedAt.toISOString();
  if (row.finishedAt) info.finishedAt = row.finishedAt.toISOString();
  if (row.error !== null) info.error = row.error;
  if (row.progress !== null) info.progress = row.progress;
  if (row.result !== null) info.result = row.result;
  return info;
}
