import { FINAL_JOB_STATES, type JobInfo, type JobQueue } from './types';

/** How often `whenFinished` reads a job another process runs. */
export const DEFAULT_FINISHED_POLL_MS = 500;

/**
 * Resolves with job `id`'s final info, wherever it runs: at once when this process runs it (onJob),
 * by reading the queue every `pollMs` when another process does (onJob only fires where the change
 * happened). Undefined when the queue no longer knows the job or `signal` fired. Never rejects: a
 * failing read (Redis away) is tried again at the next poll.
 */
export function whenFinished(queue: Pick<JobQueue, 'get' | 'onJob'>, id: string, options: { pollMs?: number; signal?: AbortSignal } = {}): Promise<JobInfo | undefined> {
  return new Promise((resolve) => {
    let timer: NodeJS.Timeout | undefined;
    let done = false;
    const finish = (info: JobInfo | undefined): void => {
      if (done) return;
      done = true;
      unsubscribe();
      if (timer) clearTimeout(timer);
      options.signal?.removeEventListener('abort', onAbort);
      resolve(info);
    };
    const onAbort = (): void => finish(undefined);
    const unsubscribe = queue.onJob((info) => {
      if (info.id === id && FINAL_JOB_STATES.includes(info.state)) finish(info);
    });
    if (options.signal?.aborted) return finish(undefined);
    options.signal?.addEventListener('abort', onAbort, { once: true });
    const poll = (): void => {
      timer = undefined;
      queue.get(id).then(
        (info) => {
          if (info === undefined || FINAL_JOB_STATES.includes(info.state)) finish(info);
          else if (!done) arm();
        },
        () => {
          if (!done) arm();
        },
      );
    };
    const arm = (): void => {
      timer = setTimeout(poll, options.pollMs ?? DEFAULT_FINISHED_POLL_MS);
      timer.unref();
    };
    arm();
  });
}
