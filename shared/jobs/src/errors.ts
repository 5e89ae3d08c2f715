/** Stable codes of JobError; internal, mapped to API errors by the daemon. */
export type JobErrorCode =
  | 'unknown_job'
  | 'invalid_payload'
  | 'duplicate_job'
  | 'invalid_option'
  | 'closed'
  | 'unavailable';

/** An error of the job queue with a stable code and a one-line message saying what to do. */
export class JobError extends Error {
  constructor(
    readonly code: JobErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'JobError';
  }
}

/** The message of anything thrown, as one line. */
export function errorMessage(err: unknown): string {
  const text = err instanceof Error ? err.message : String(err);
  return text.split('\n')[0] || 'unknown error';
}
