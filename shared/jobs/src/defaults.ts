/** Defaults of the job queue, in one place. */
export const DEFAULT_QUEUE_NAME = 'sous-jobs';
export const DEFAULT_CONCURRENCY = 1;
export const DEFAULT_GRACE_MS = 10_000;
export const DEFAULT_HISTORY_LIMIT = 500;
export const DEFAULT_LIST_LIMIT = 50;
export const MAX_LIST_LIMIT = 500;
export const DEFAULT_TIMEOUT_SETTING = 'compute.max_cycle_seconds';
/** Payloads are identifiers and parameters; anything larger is almost certainly content that must not be queued. */
export const MAX_PAYLOAD_BYTES = 16 * 1024;
/** How long `cancel` waits for a running job to be recorded cancelled before returning its info. */
export const CANCEL_SETTLE_MS = 5_000;
