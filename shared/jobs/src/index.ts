export { createJobQueue } from './create';
export { JobError } from './errors';
export type { JobErrorCode } from './errors';
export { JOB_STATES, FINAL_JOB_STATES } from './types';
export { runnerIdentity } from './support';
export { whenFinished } from './finished';
export { RedisLease, repositoryLeaseKey, leaseMsFromEnv, DEFAULT_LEASE_MS, MIN_LEASE_MS } from './lease';
export type { LeaseOptions } from './lease';
export { settleLeftoverJobs, INTERRUPTED_ERROR, LOST_BEFORE_START_ERROR } from './leftovers';
export type { JobRecords } from './leftovers';
export type {
  CloseOptions,
  JobContext,
  JobHandler,
  JobInfo,
  JobQueue,
  JobQueueHealth,
  JobQueueOptions,
  JobState,
  ListOptions,
  RegisterOptions,
} from './types';
export {
  DEFAULT_QUEUE_NAME,
  DEFAULT_CONCURRENCY,
  DEFAULT_GRACE_MS,
  DEFAULT_HISTORY_LIMIT,
  MAX_PAYLOAD_BYTES,
} from './defaults';
