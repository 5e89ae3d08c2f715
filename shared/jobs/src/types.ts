import type { Schema } from 'joi';

/**
 * Where a job is in its life. `queued` → `running` → one of the four final states; `queued` may also go
 * straight to `cancelled`. Final states never change again.
 */
export type JobState = 'queued' | 'running' | 'completed' | 'failed' | 'timed_out' | 'cancelled';

/** Every job state, in life order. */
export const JOB_STATES: readonly JobState[] = ['queued', 'running', 'completed', 'failed', 'timed_out', 'cancelled'];

/** States a job never leaves. */
export const FINAL_JOB_STATES: readonly JobState[] = ['completed', 'failed', 'timed_out', 'cancelled'];

/** What the queue knows about one job. Timestamps are ISO 8601 UTC. */
export interface JobInfo {
  id: string;
  /** The registered handler name, e.g. `prepare-cycle`. */
  name: string;
  state: JobState;
  /** The validated payload: identifiers and parameters only, never file contents or prompts. */
  payload: unknown;
  createdAt: string;
  startedAt?: string;
  finishedAt?: string;
  /** One line saying why the job failed, timed out or was cancelled. */
  error?: string;
  /** Last reported progress, 0..1. */
  progress?: number;
  /** What the handler resolved with (completed jobs only; must be JSON-serialisable for BullMQ). */
  result?: unknown;
  /** Which process ran it, `hostname:pid` (running and finished jobs; absent for a job interrupted by its process dying). */
  runner?: string;
}

/** Handed to a running handler. */
export interface JobContext {
  jobId: string;
  /** Fires when the job is cancelled, times out, or the queue closes past its grace period. */
  signal: AbortSignal;
  /** Records progress as a fraction in 0..1 (clamped). */
  progress(fraction: number): Promise<void>;
}

/** Does the work of one job. Should stop promptly when `ctx.signal` fires (the queue moves on regardless). */
export type JobHandler<P> = (payload: P, ctx: JobContext) => Promise<unknown>;

/** Options of `JobQueue.register`. */
export interface RegisterOptions {
  /** joi schema the payload must satisfy at enqueue; the validated (converted) value is stored. Default: any JSON. */
  payload?: Schema;
}

/** Options of `JobQueue.list`. */
export interface ListOptions {
  /** Most jobs returned. Default 50, at most 500. */
  limit?: number;
  /** Only these states. Default: all. */
  states?: JobState[];
}

/** Options of `JobQueue.close`. */
export interface CloseOptions {
  /** How long running jobs may take to finish before they are cancelled. Default 10 000 ms. */
  graceMs?: number;
}

/** Result of `JobQueue.health`. */
export interface JobQueueHealth {
  ok: boolean;
  /** One line: the backend and, when not ok, what is wrong. */
  detail?: string;
}

/** The one job-queue seam. Both backends pass the same contract suite (shared/jobs/test/queue.contract.test.ts). */
export interface JobQueue {
  readonly kind: 'bullmq' | 'in-process';
  /** Registers the handler for `name`. Throws JobError `duplicate_job` if the name is taken. */
  register<P>(name: string, handler: JobHandler<P>, options?: RegisterOptions): void;
  /** Validates and queues a job. Rejects with JobError (`unknown_job`, `invalid_payload`, `closed`, `unavailable`). */
  enqueue(name: string, payload: unknown): Promise<JobInfo>;
  /** One job, or undefined when unknown (or dropped from the capped history). */
  get(id: string): Promise<JobInfo | undefined>;
  /** Jobs, newest first. */
  list(options?: ListOptions): Promise<JobInfo[]>;
  /**
   * queued → cancelled (never runs); running → its AbortSignal fires and it is recorded cancelled;
   * finished → unchanged. Resolves with the job's info afterwards, undefined when unknown.
   */
  cancel(id: string): Promise<JobInfo | undefined>;
  /** Begins processing. Idempotent. */
  start(): Promise<void>;
  /**
   * Stops taking jobs, lets running ones finish within `graceMs`, cancels (and records) the rest, closes
   * connections. Idempotent.
   */
  close(options?: CloseOptions): Promise<void>;
  /** Never throws. */
  health(): Promise<JobQueueHealth>;
  /** Called on every state change, in order per job. Returns an unsubscribe function. */
  onJob(listener: (info: JobInfo) => void): () => void;
}

/** Options of `createJobQueue`. */
export interface JobQueueOptions {
  /** Redis URL; when set the queue is BullMQ on Redis, otherwise in-process. Default: in-process. */
  redisUrl?: string;
  /** BullMQ queue name (tests pass `uniqueName('jobs')`). Default `sous-jobs`. */
  queueName?: string;
  /** Jobs run at once. Default 1. */
  concurrency?: number;
  /** The run-time limit in seconds, read when each job starts so a hot-reloaded value applies. */
  timeoutSeconds: () => number;
  /** Names the setting behind `timeoutSeconds` in timeout messages. Default `compute.max_cycle_seconds`. */
  timeoutSetting?: string;
  /** Finished jobs kept in history (per final state for BullMQ). Default 500. */
  historyLimit?: number;
  /**
   * Told about trouble that is not any caller's fault: Redis connection errors (URL redacted, repeated
   * messages reported once), listener exceptions. Default: ignored (health() still reports them).
   */
  onError?: (error: Error) => void;
}
