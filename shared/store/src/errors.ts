import { redactUrl } from '@sous/protocol';

/** Stable codes of StoreError. Internal: the daemon maps them to API errors in one place. */
export type StoreErrorCode =
  /** Options given to openStore are invalid. */
  | 'store_invalid_option'
  /** The PGlite data directory is held by another live process. */
  | 'store_locked'
  /** PostgreSQL did not answer (refused, unknown host, timeout). */
  | 'store_unreachable'
  /** PostgreSQL answered but refused the login or the database. */
  | 'store_rejected'
  /** The data directory or database could not be opened for another reason. */
  | 'store_open_failed'
  /** Applying migrations failed; nothing was half-applied (each run is one transaction). */
  | 'store_migration_failed'
  /** A check constraint refused a value (e.g. an unknown state). */
  | 'store_invalid_value'
  /** A unique constraint refused a duplicate. */
  | 'store_duplicate'
  /** A foreign key points at a record that does not exist. */
  | 'store_missing_reference'
  /** Any other failed query. */
  | 'store_query_failed'
  /** A payload carried raw text the store must never keep (spec 6.8). */
  | 'store_raw_text_refused'
  /** The store was used after close(). */
  | 'store_closed';

/** An error of the store with a stable code and a one-line message saying what was wrong and what to do. */
export class StoreError extends Error {
  constructor(
    readonly code: StoreErrorCode,
    message: string,
    /** Extra machine-readable facts (SQLSTATE, constraint name, lock holder pid). Never values or contents. */
    readonly details: Readonly<Record<string, string | number>> = {},
  ) {
    super(message);
    this.name = 'StoreError';
  }
}

/** True for Error-like values, including errors from another realm (jest's sandbox vs Node's own). */
function isErrorLike(value: unknown): value is Error {
  return typeof value === 'object' && value !== null && typeof (value as { message?: unknown }).message === 'string';
}

/** The first line of anything thrown. */
export function firstLine(err: unknown): string {
  const text = isErrorLike(err) ? err.message : String(err);
  return text.split('\n')[0] || 'unknown error';
}

export { redactUrl };

/** Fields a driver error may carry (pg's DatabaseError and PGlite's error both use these names). */
interface DriverErrorFields {
  code?: unknown;
  constraint?: unknown;
  message?: unknown;
}

/**
 * The innermost driver error under drizzle's wrapper. drizzle's own message embeds the SQL and its
 * parameters, which may hold card text; only the driver's message, SQLSTATE and constraint are used.
 */
export function driverError(err: unknown): DriverErrorFields & Error {
  let current: unknown = err;
  for (let depth = 0; depth < 5; depth++) {
    const cause = (current as { cause?: unknown } | null)?.cause;
    if (!isErrorLike(cause)) break;
    current = cause;
  }
  return (isErrorLike(current) ? current : new Error(String(current))) as DriverErrorFields & Error;
}

/** Translates a failed query into a StoreError that says which operation failed and why. */
export function toStoreError(err: unknown, operation: string): StoreError {
  if (err instanceof StoreError) return err;
  const driver = driverError(err);
  const sqlState = typeof driver.code === 'string' ? driver.code : '';
  const constraint = typeof driver.constraint === 'string' ? driver.constraint : '';
  const details: Record<string, string> = {};
  if (sqlState) details.sqlState = sqlState;
  if (constraint) details.constraint = constraint;
  const on = constraint ? ` (constraint ${constraint})` : '';
  switch (sqlState) {
    case '23514':
      return new StoreError('store_invalid_value', `${operation}: a value is not allowed${on}; use one of the documented values`, details);
    case '23505':
      return new StoreError('store_duplicate', `${operation}: the record already exists${on}`, details);
    case '23503':
      return new StoreError('store_missing_reference', `${operation}: it refers to a record that does not exist${on}`, details);
    case '23502':
      return new StoreError('store_invalid_value', `${operation}: a required field is missing (${firstLine(driver)})`, details);
    default:
      return new StoreError('store_query_failed', `${operation} failed: ${firstLine(driver)}`, details);
  }
}
