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
  | 'store_closed'
  /**
   * The store cannot serve now but may again: PostgreSQL is unreachable or shutting down, or the
   * embedded store's disk is full or its data directory unwritable. Callers retry later; HTTP
   * answers 503.
   */
  | 'store_unavailable';

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

/** Node socket errors of a connection that went away or never came. */
const CONNECTION_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH']);
/** pg's own messages when a pooled connection is lost or cannot be had in time. */
const CONNECTION_MESSAGES = /connection terminated|connection error|not queryable|timeout exceeded when trying to connect|terminating connection/i;
/** How PostgreSQL words a failed file operation (errcode_for_file_access): disk full, no permission, read-only. */
const FILE_ACCESS_MESSAGE = /could not (?:open|create|write|extend|read|fsync|rename|unlink|truncate|remove|access)[^:]*(?:file|directory)/i;

/**
 * Why a driver error means the store is out of service rather than the request being wrong, or
 * undefined. SQLSTATE classes 08 (connection), 53 (disk full, out of resources), 58 (I/O), 57P01-3
 * (server shutting down or starting), a file-access 42501 (unwritable data directory), or a socket
 * error. A bad value or a missing row is never an outage.
 */
export function outageReason(err: unknown): string | undefined {
  const driver = driverError(err);
  const code = typeof driver.code === 'string' ? driver.code : '';
  const message = firstLine(driver);
  if (CONNECTION_CODES.has(code) || (code === '' && CONNECTION_MESSAGES.test(message))) return `PostgreSQL connection failed (${code || message})`;
  if (/^08/.test(code) || /^57P0[123]$/.test(code)) return `PostgreSQL not available (${message})`;
  if (code === '53100' || /no space left on device/i.test(message)) return `disk full (${message})`;
  if (/^5[38]/.test(code)) return `server out of resources or I/O failed (${message})`;
  if (code === '42501' && FILE_ACCESS_MESSAGE.test(message)) return `data directory not writable (${message})`;
  if (/permission denied|read-only file system/i.test(message) && FILE_ACCESS_MESSAGE.test(message)) return `data directory not writable (${message})`;
  return undefined;
}

/** Translates a failed query into a StoreError that says which operation failed and why. */
export function toStoreError(err: unknown, operation: string): StoreError {
  if (err instanceof StoreError) return err;
  const driver = driverError(err);
  // The embedded store's guard refused the query (drizzle wraps it): its message already says why.
  if (driver instanceof StoreError) return new StoreError(driver.code, `${operation} failed: ${driver.message}`, driver.details);
  const sqlState = typeof driver.code === 'string' ? driver.code : '';
  const outage = outageReason(err);
  if (outage !== undefined) return new StoreError('store_unavailable', `${operation} failed: ${outage}; try again once it is back`, sqlState ? { sqlState } : {});
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
