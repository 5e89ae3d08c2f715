import type { Job, JobType } from 'bullmq';
import type { Redis } from 'ioredis';
import { INTERRUPTED_ERROR } from './leftovers';
import type { JobInfo, JobState } from './types';

/**
 * BullMQ has one `failed` state. A job we stopped is failed with a reason that starts with this marker and
 * our state, e.g. `sous:timed_out: timed out after 300 s (compute.max_cycle_seconds)`; the marker is
 * stripped when the job is read back. A handler's own error never carries it.
 */
const STOP_MARKER = /^sous:(timed_out|cancelled): /;

/** The failedReason recorded for a job we stopped. */
export function stopReason(state: 'timed_out' | 'cancelled', message: string): string {
  return `sous:${state}: ${message}`;
}

/** BullMQ's reason for a job whose worker died (its lock expired) more often than `maxStalledCount` (0). */
const STALLED_REASON = 'job stalled more than allowable limit';

/** Our state and error for a failed BullMQ job. */
export function readFailure(failedReason: string | undefined): { state: 'failed' | 'timed_out' | 'cancelled'; error: string } {
  const reason = failedReason ?? 'failed without a reason';
  if (reason === STALLED_REASON) return { state: 'failed', error: INTERRUPTED_ERROR };
  const match = STOP_MARKER.exec(reason);
  if (!match) return { state: 'failed', error: reason };
  return { state: match[1] as 'timed_out' | 'cancelled', error: reason.slice(match[0].length) };
}

/** BullMQ job types that hold jobs in each of our states (failed-like states share `failed`). */
export function bullTypesFor(state: JobState): JobType[] {
  switch (state) {
    case 'queued':
      return ['waiting', 'prioritized', 'delayed', 'waiting-children'];
    case 'running':
      return ['active'];
    case 'completed':
      return ['completed'];
    default:
      return ['failed'];
  }
}

/** Our state for a BullMQ state (the failed split needs the job's failedReason). */
function baseState(bullState: string): JobState | undefined {
  switch (bullState) {
    case 'waiting':
    case 'wait':
    case 'paused':
    case 'prioritized':
    case 'delayed':
    case 'waiting-children':
      return 'queued';
    case 'active':
      return 'running';
    case 'completed':
      return 'completed';
    case 'failed':
      return 'failed';
    default:
      return undefined;
  }
}

function iso(ms: number | undefined): string | undefined {
  return ms ? new Date(ms).toISOString() : undefined;
}

/** A BullMQ job as JobInfo, given its BullMQ state. Undefined for states we do not know. */
export function toJobInfo(job: Job, bullState: string): JobInfo | undefined {
  let state = baseState(bullState);
  if (!state || !job.id) return undefined;
  const info: JobInfo = {
    id: job.id,
    name: job.name,
    state,
    payload: job.data as unknown,
    createdAt: new Date(job.timestamp).toISOString(),
  };
  const startedAt = state === 'queued' ? undefined : iso(job.processedOn);
  if (startedAt) info.startedAt = startedAt;
  if (state === 'completed' || state === 'failed') {
    const finishedAt = iso(job.finishedOn);
    if (finishedAt) info.finishedAt = finishedAt;
  }
  if (state === 'failed') {
    const failure = readFailure(job.failedReason);
    state = failure.state;
    info.state = state;
    info.error = failure.error;
  }
  // BullMQ stamps the worker's name (runnerIdentity) on the job when a worker takes it. A stalled job is
  // handed to a live worker only to be failed, which stamps that worker: the process that ran it is unknown.
  if (state !== 'queued' && job.processedBy && info.error !== INTERRUPTED_ERROR) info.runner = job.processedBy;
  if (state === 'completed' && job.returnvalue !== undefined && job.returnvalue !== null) info.result = job.returnvalue;
  if (typeof job.progress === 'number') info.progress = job.progress;
  return info;
}

/**
 * Jobs cancelled while queued. BullMQ removes them outright, so their final record lives beside the queue's
 * keys: a sorted set of ids by creation time and a hash of JobInfo JSON, trimmed to the history limit.
 */
export class CancelledRecords {
  private readonly index: string;
  private readonly records: string;

  constructor(
    private readonly redis: Redis,
    keyBase: string,
    private readonly limit: number,
  ) {
    this.index = `${keyBase}:sous-cancelled`;
    this.records = `${keyBase}:sous-cancelled-info`;
  }

  async put(info: JobInfo): Promise<void> {
    await this.redis
      .multi()
      .zadd(this.index, Date.parse(info.createdAt), info.id)
      .hset(this.records, info.id, JSON.stringify(info))
      .exec();
    const excess = (await this.redis.zcard(this.index)) - this.limit;
    if (excess > 0) {
      const old = await this.redis.zrange(this.index, 0, excess - 1);
      if (old.length) await this.redis.multi().zrem(this.index, ...old).hdel(this.records, ...old).exec();
    }
  }

  async get(id: string): Promise<JobInfo | undefined> {
    const json = await this.redis.hget(this.records, id);
    return json ? (JSON.parse(json) as JobInfo) : undefined;
  }

  /** The newest `limit` records, newest first. */
  async newest(limit: number): Promise<JobInfo[]> {
    const ids = await this.redis.zrevrange(this.index, 0, limit - 1);
    if (!ids.length) return [];
    const rows = await this.redis.hmget(this.records, ...ids);
    return rows.filter((row): row is string => typeof row === 'string').map((row) => JSON.parse(row) as JobInfo);
  }
}
