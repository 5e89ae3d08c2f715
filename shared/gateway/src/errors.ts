/**
 * The proxy's errors in the shape OpenAI clients parse (`error.message`, `error.type`, `error.code`,
 * `error.param`), with Sous's `where` added so the body also reads like every other Sous error
 * (docs/errors.md). Built and mapped to a status in this one place.
 */
import type * as http from 'node:http';
import { ApiError } from '@sous/protocol';

/** Stable codes of the proxy's own errors and the status each answers with. */
export const GATEWAY_ERROR_STATUS = {
  invalid_request: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  upstream_misconfigured: 500,
  upstream_unreachable: 502,
  upstream_error: 502,
  upstream_timeout: 504,
} as const;

export type GatewayErrorCode = keyof typeof GATEWAY_ERROR_STATUS;

/** OpenAI's `error.type` for each code (clients branch on it). */
const OPENAI_TYPE: Record<GatewayErrorCode, string> = {
  invalid_request: 'invalid_request_error',
  unauthorized: 'authentication_error',
  forbidden: 'permission_error',
  not_found: 'invalid_request_error',
  upstream_misconfigured: 'api_error',
  upstream_unreachable: 'api_error',
  upstream_error: 'api_error',
  upstream_timeout: 'api_error',
};

/** The body every proxy error answers with. */
export interface OpenAiErrorBody {
  error: { message: string; type: string; code: string; param: string | null; where?: string };
}

export class GatewayError extends Error {
  readonly status: number;
  constructor(
    readonly code: GatewayErrorCode,
    message: string,
    readonly where?: string,
  ) {
    super(message);
    this.name = 'GatewayError';
    this.status = GATEWAY_ERROR_STATUS[code];
  }

  toBody(): OpenAiErrorBody {
    return { error: { message: this.message, type: OPENAI_TYPE[this.code], code: this.code, param: this.where ?? null, ...(this.where !== undefined ? { where: this.where } : {}) } };
  }
}

/** Any error a proxy route meets, as the body and status to send (a Sous ApiError keeps its code and status). */
export function toOpenAiError(err: unknown): { status: number; body: OpenAiErrorBody } {
  if (err instanceof GatewayError) return { status: err.status, body: err.toBody() };
  if (err instanceof ApiError) {
    const type = err.status >= 500 ? 'api_error' : err.status === 401 ? 'authentication_error' : err.status === 429 ? 'rate_limit_error' : 'invalid_request_error';
    return { status: err.status, body: { error: { message: err.message, type, code: err.code, param: err.where ?? null, ...(err.where !== undefined ? { where: err.where } : {}) } } };
  }
  return { status: 500, body: { error: { message: 'internal error in the Sous proxy; see its log (sous logs)', type: 'api_error', code: 'internal', param: null } } };
}

/** Sends an error unless the response has started (then the connection is ended: a half-sent answer must not look complete). */
export function sendOpenAiError(res: http.ServerResponse, err: unknown): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const { status, body } = toOpenAiError(err);
  const json = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(json) });
  res.end(json);
}
