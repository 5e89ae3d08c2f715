import { errorMessage } from './errors';
import type { JobContext, JobHandler } from './types';

/** How a run ended. */
export type RunOutcome =
  | { state: 'completed'; result: unknown }
  | { state: 'failed' | 'timed_out' | 'cancelled'; error: string };

/** Why a run was stopped from outside. */
export type StopKind = 'timed_out' | 'cancelled';

/** A handler call in progress. */
export interface JobRun {
  /** Settles with the outcome; never rejects. Settles at once when stopped, even if the handler ignores its signal. */
  readonly done: Promise<RunOutcome>;
  /** Fires the handler's AbortSignal and settles `done` with this kind and reason (first stop wins). */
  stop(kind: StopKind, reason: string): void;
}

/** Options of `startRun`. */
export interface StartRunOptions {
  jobId: string;
  handler: JobHandler<unknown>;
  payload: unknown;
  /** Run-time limit; a non-positive or non-finite value means no limit. */
  timeoutSeconds: number;
  /** Names the setting behind the limit, for the timeout message. */
  timeoutSetting: string;
  /** Records progress (backend specific). */
  progress: (fraction: number) => Promise<void>;
}

/** Formats seconds for messages: `300 s`, `0.3 s`. */
function seconds(value: number): string {
  return `${Number(value.toFixed(3))} s`;
}

/**
 * Calls a handler with an AbortSignal and a timer. The outcome races the handler against stop(): the queue
 * slot is freed as soon as a job is stopped, and a handler that ignores its signal finishes in the
 * background with its result discarded.
 */
export function startRun(options: StartRunOptions): JobRun {
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  let settle!: (outcome: RunOutcome) => void;
  let settled = false;
  const done = new Promise<RunOutcome>((resolve) => {
    settle = (outcome) => {
      if (settled) return;
      settled = true;
      if (timer) clearTimeout(timer);
      resolve(outcome);
    };
  });

  const stop = (kind: StopKind, reason: string): void => {
    if (settled) return;
    settle({ state: kind, error: reason });
    controller.abort(new Error(reason));
  };

  const limit = options.timeoutSeconds;
  if (Number.isFinite(limit) && limit > 0) {
    timer = setTimeout(
      () => stop('timed_out', `timed out after ${seconds(limit)} (${options.timeoutSetting})`),
      limit * 1000,
    );
  }

  const ctx: JobContext = {
    jobId: options.jobId,
    signal: controller.signal,
    progress: (fraction) => {
      const clamped = Math.min(1, Math.max(0, Number.isFinite(fraction) ? fraction : 0));
      return options.progress(clamped);
    },
  };

  // Promise.resolve().then() turns a handler that throws synchronously into a rejection.
  Promise.resolve()
    .then(() => options.handler(options.payload, ctx))
    .then(
      (result) => settle({ state: 'completed', result }),
      // After a stop this settle is a no-op: the late error is intentionally discarded, the job is
      // already recorded as timed out or cancelled.
      (err: unknown) => settle({ state: 'failed', error: errorMessage(err) }),
    );

  return { done, stop };
}
