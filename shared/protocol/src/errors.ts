/**
 * The one JSON error shape every Sous HTTP endpoint returns (documented in docs/errors.md):
 *
 *   { "error": { "code": "invalid_body", "message": "what was wrong", "where": "body.top_n", "details": {...} } }
 *
 * `code` is a stable machine-readable string, `message` one human sentence saying what to change,
 * `where` (optional) points at the offending header, path segment or body field.
 */
export interface ApiErrorBody {
  error: {
    code: ApiErrorCode;
    message: string;
    where?: string;
    details?: Record<string, unknown>;
  };
}

/** Stable error codes and the HTTP status each maps to. */
export const API_ERROR_STATUS = {
  invalid_request: 400,
  invalid_json: 400,
  invalid_body: 400,
  invalid_query: 400,
  invalid_value: 400,
  unknown_key: 400,
  unauthorized: 401,
  forbidden_host: 403,
  forbidden_origin: 403,
  forbidden: 403,
  not_found: 404,
  method_not_allowed: 405,
  request_timeout: 408,
  conflict: 409,
  payload_too_large: 413,
  capability_mismatch: 422,
  unsupported_media_type: 415,
  rate_limited: 429,
  headers_too_large: 431,
  unavailable: 503,
  internal: 500,
  not_implemented: 501,
} as const;

export type ApiErrorCode = keyof typeof API_ERROR_STATUS;

/** An error meant to cross the wire. Anything else that reaches the error handler becomes `internal`. */
export class ApiError extends Error {
  readonly status: number;
  constructor(
    readonly code: ApiErrorCode,
    message: string,
    readonly where?: string,
    readonly details?: Record<string, unknown>,
  ) {
    super(message);
    this.name = 'ApiError';
    this.status = API_ERROR_STATUS[code];
  }

  toBody(): ApiErrorBody {
    const body: ApiErrorBody = { error: { code: this.code, message: this.message } };
    if (this.where !== undefined) body.error.where = this.where;
    if (this.details !== undefined) body.error.details = this.details;
    return body;
  }
}

/** True when a parsed JSON value has the error shape above (used by clients such as the CLI). */
export function isApiErrorBody(value: unknown): value is ApiErrorBody {
  if (typeof value !== 'object' || value === null) return false;
  const err = (value as { error?: unknown }).error;
  return typeof err === 'object' && err !== null && typeof (err as { message?: unknown }).message === 'string';
}
