import { FINAL_JOB_STATES, type JobInfo, type JobQueue } from './types';

/** The error recorded for a job whose process died while it ran (SIGKILL, OOM, power loss). */
export const INTERRUPTED_ERROR = 'interrupted: the process running it stopped (killed or crashed) before it finished; jobs are not re-run';

/** The error recorded for a queued job that was lost with its process (in-process queue). */
export const LOST_BEFORE_START_ERROR = 'cancelled: the process holding it stopped (killed or crashed) before it started';

/** Where job states are kept beyond the queue (the daemon's `jobs` table). */
export interface JobRecords {
  /** Records still `queued` or `running`. */
  unfinished(): Promise<JobInfo[]>;
  /** Replaces a record's state. */
  save(info: JobInfo): Promise<void>;
}

/**
 * Settles records a previous process left `queued` or `running` (it was killed mid-job), by what
 * the queue knows now. Call before `queue.start()`, so no record is one this process is running.
 * - the queue no longer knows the job (in-process: it died with its process; BullMQ: trimmed):
 *   `running` → `failed` with INTERRUPTED_ERROR, `queued` → `cancelled` with LOST_BEFORE_START_ERROR;
 * - the queue has it in a final state (the last state change was not recorded): that state;
 * - the queue still has it queued or running (BullMQ): left alone; BullMQ runs a queued job, and
 *   fails a job whose worker died once its lock expires (stalled), which is then recorded.
 * Returns the records it changed. Throws what `queue.get` throws (an unreachable Redis).
 */
export async function settleLeftoverJobs(records: JobRecords, queue: Pick<JobQueue, 'get'>, now: Date = new Date()): Promise<JobInfo[]> {
  const settled: JobInfo[] = [];
  for (const record of await records.unfinished()) {
    const live = await queue.get(record.id);
    let next: JobInfo | undefined;
    if (live === undefined) {
      next = record.state === 'running'
        ? { ...record, state: 'failed', error: INTERRUPTED_ERROR, finishedAt: now.toISOString() }
        : { ...record, state: 'cancelled', error: LOST_BEFORE_START_ERROR, finishedAt: now.toISOString() };
    } else if (FINAL_JOB_STATES.includes(live.state)) {
      next = live;
    }
    if (next === undefined) continue;
    await records.save(next);
    settled.push(next);
  }
  return settled;
}
