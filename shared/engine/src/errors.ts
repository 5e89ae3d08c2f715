/** Engine errors with stable codes; the HTTP layer maps them (not_found → 404, conflict → 409, capability_mismatch → 422, unavailable → 503). */
export type EngineErrorCode = 'not_found' | 'conflict' | 'invalid' | 'capability_mismatch' | 'unavailable';

export class EngineError extends Error {
  constructor(
    readonly code: EngineErrorCode,
    message: string,
    /** Extra JSON-safe facts for the error body (the state, the reason). */
    readonly details: Record<string, unknown> = {},
  ) {
    super(message);
    this.name = 'EngineError';
  }
}
