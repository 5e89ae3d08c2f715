/**
 * When the store does not take the index's changes (PostgreSQL down, the embedded store's disk
 * full): the changes stay in the writer and their signals in the live index, and the save is tried
 * again after a backoff, not in a loop, until it goes through.
 */

/** The first retry waits this long; each failure doubles it up to SAVE_RETRY_MAX_MS. */
export const SAVE_RETRY_FIRST_MS = 500;
export const SAVE_RETRY_MAX_MS = 5_000;

/** What `/status` says while changes wait for the store (`index.unsaved`). */
export interface UnsavedChanges {
  /** Files changed, added or removed that the store does not have yet. */
  files: number;
  /** The last failure, one line. */
  error: string;
  /** ISO time of the first failed save. */
  since: string;
  /** ISO time of the next attempt, or null while one runs or the index is paused. */
  retry_at: string | null;
  attempts: number;
}

export class SaveRetry {
  private failure: { error: string; since: Date; attempts: number } | null = null;
  private timer: NodeJS.Timeout | undefined;
  private retryAt: Date | null = null;

  /** `retry` runs after each backoff until `succeeded` is called. */
  constructor(private readonly retry: () => void) {}

  /** Records a failed save and arms the next attempt. True for the first failure of an outage, or a new reason. */
  failed(error: string): boolean {
    const previous = this.failure;
    this.failure = { error, since: previous?.since ?? new Date(), attempts: (previous?.attempts ?? 0) + 1 };
    const delay = Math.min(SAVE_RETRY_FIRST_MS * 2 ** (this.failure.attempts - 1), SAVE_RETRY_MAX_MS);
    this.cancel();
    this.retryAt = new Date(Date.now() + delay);
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.retryAt = null;
      this.retry();
    }, delay);
    this.timer.unref();
    return previous === null || previous.error !== error;
  }

  /** A save went through: how long the store had refused them (ms), or null when nothing had failed. */
  succeeded(): number | null {
    const failure = this.failure;
    this.failure = null;
    this.cancel();
    return failure === null ? null : Date.now() - failure.since.getTime();
  }

  /** Whether a save has failed since the last one that went through. */
  pending(): boolean {
    return this.failure !== null;
  }

  status(files: number): UnsavedChanges | null {
    const f = this.failure;
    return f === null ? null : { files, error: f.error, since: f.since.toISOString(), retry_at: this.retryAt?.toISOString() ?? null, attempts: f.attempts };
  }

  /** Stops the pending attempt (shutdown, pause); `failed` or a later save arms it again. */
  cancel(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    this.retryAt = null;
  }
}
