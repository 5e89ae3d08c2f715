import { BullmqJobQueue } from './bullmq-queue';
import { DEFAULT_CONCURRENCY, DEFAULT_HISTORY_LIMIT, DEFAULT_QUEUE_NAME, DEFAULT_TIMEOUT_SETTING } from './defaults';
import { JobError } from './errors';
import { InProcessJobQueue } from './in-process';
import type { JobQueue, JobQueueOptions } from './types';

function positiveInteger(value: number | undefined, fallback: number, what: string): number {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || value < 1) {
    throw new JobError('invalid_option', `job queue option ${what} must be a positive integer, got ${String(value)}`);
  }
  return value;
}

/**
 * The job queue: BullMQ on Redis when `redisUrl` is set (the daemon passes REDIS_URL), in-process
 * otherwise. Call `register` for each job, then `start`; `close` on shutdown.
 */
export function createJobQueue(options: JobQueueOptions): JobQueue {
  if (typeof options.timeoutSeconds !== 'function') {
    throw new JobError('invalid_option', 'job queue option timeoutSeconds must be a function returning seconds');
  }
  const common = {
    concurrency: positiveInteger(options.concurrency, DEFAULT_CONCURRENCY, 'concurrency'),
    historyLimit: positiveInteger(options.historyLimit, DEFAULT_HISTORY_LIMIT, 'historyLimit'),
    timeoutSeconds: options.timeoutSeconds,
    timeoutSetting: options.timeoutSetting ?? DEFAULT_TIMEOUT_SETTING,
    onError: options.onError ?? (() => undefined),
  };
  if (!options.redisUrl) return new InProcessJobQueue(common);
  if (!/^rediss?:\/\//.test(options.redisUrl)) {
    throw new JobError('invalid_option', 'job queue redisUrl must start with redis:// or rediss://');
  }
  const queueName = options.queueName ?? DEFAULT_QUEUE_NAME;
  if (!/^[A-Za-z0-9_.-]{1,100}$/.test(queueName)) {
    throw new JobError('invalid_option', `job queue name '${queueName}' is invalid: use letters, digits, '_', '.' or '-'`);
  }
  return new BullmqJobQueue({ ...common, redisUrl: options.redisUrl, queueName });
}
