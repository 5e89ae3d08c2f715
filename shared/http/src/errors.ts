import type { NextFunction, Request, Response } from 'express';
import type Joi from 'joi';
import { ApiError, findUnsafeJson } from '@sous/protocol';
import type { Logger } from '@sous/logging';
import { outageError } from './outage';

/** Longest piece of a client's input quoted back in an error message. */
const QUOTE_MAX = 80;

function quote(text: string): string {
  return JSON.stringify(text.length > QUOTE_MAX ? `${text.slice(0, QUOTE_MAX)}…` : text);
}

/**
 * Maps anything thrown in a route, or any malformed request, to the one documented JSON error shape
 * (docs/errors.md). This is the only place that decides what a client mistake is:
 * - body-parser's errors (bad JSON, too large, wrong charset or content encoding, a body shorter
 *   than its Content-Length);
 * - the router's URIError for a path segment that is not valid percent-encoding;
 * - node's HTTP parser errors (`clientError`: not HTTP, unknown method, headers too large);
 * - any other library error marked as the client's (http-errors: `expose` and a 4xx status).
 * A store or queue outage is a 503 naming it (`outageError`); anything else is a 500 whose details stay in the log, never on the wire. `limitBytes` names the
 * body limit in the 413 message.
 */
export function toApiError(err: unknown, limitBytes?: number): ApiError {
  if (err instanceof ApiError) return err;
  const e = (typeof err === 'object' && err !== null ? err : {}) as { type?: string; status?: number; expose?: boolean; message?: string; code?: string; encoding?: string };
  switch (e.type) {
    case 'entity.parse.failed':
      return new ApiError('invalid_json', 'request body is not valid JSON; send a JSON object with Content-Type: application/json', 'body');
    case 'entity.too.large':
      return new ApiError('payload_too_large', `request body is larger than the ${limitBytes ?? 'size'} byte limit`, 'body');
    case 'encoding.unsupported':
      return new ApiError('unsupported_media_type', `Content-Encoding ${quote(e.encoding ?? 'unknown')} is not accepted; send the JSON body uncompressed`, 'header.content-encoding');
    case 'charset.unsupported':
      return new ApiError('unsupported_media_type', 'request body must be UTF-8 JSON', 'header.content-type');
    case 'request.aborted':
    case 'request.size.invalid':
      return new ApiError('invalid_body', 'request body ended before the length its Content-Length header announced', 'header.content-length');
  }
  if (err instanceof URIError) {
    // The router's message ends with the raw segment: "Failed to decode param '%zz'".
    const raw = /'(.*)'$/s.exec(err.message)?.[1] ?? '';
    return new ApiError('invalid_query', `path segment ${quote(raw)} is not valid percent-encoding (UTF-8 bytes as %XX); encode ids with encodeURIComponent`, 'path');
  }
  if (typeof e.code === 'string') {
    if (e.code === 'HPE_HEADER_OVERFLOW') return new ApiError('headers_too_large', 'request headers (or the URL) are larger than the server accepts; send a shorter URL or fewer headers', 'header');
    if (e.code === 'ERR_HTTP_REQUEST_TIMEOUT') return new ApiError('request_timeout', 'the request did not arrive in time; send it again', 'header');
    if (e.code.startsWith('HPE_')) return new ApiError('invalid_request', `the request is not valid HTTP/1.1 (${e.code.slice(4).toLowerCase().replace(/_/g, ' ')}); check the method, URL and headers`, 'request');
  }
  if (typeof e.status === 'number' && e.status >= 400 && e.status < 500 && e.expose === true) {
    if (e.status === 413) return new ApiError('payload_too_large', `request body is larger than the ${limitBytes ?? 'size'} byte limit`, 'body');
    if (e.status === 415) return new ApiError('unsupported_media_type', `the request body cannot be read: ${e.message ?? 'unsupported media type'}`, 'header.content-type');
    return new ApiError('invalid_value', `the request cannot be read: ${e.message ?? 'invalid request'}`, 'request');
  }
  // A store or queue that is down is a 503 naming it, never a 500.
  return outageError(err) ?? new ApiError('internal', 'internal error; see the daemon log (sous logs)');
}

export function errorHandler(logger: Logger, limitBytes: number) {
  // Express recognises error handlers by arity, so all four parameters stay.
  return (err: unknown, req: Request, res: Response, _next: NextFunction): void => {
    const apiError = toApiError(err, limitBytes);
    if (apiError.code === 'internal') {
      logger.error({ err: err instanceof Error ? { message: err.message, stack: err.stack } : String(err), method: req.method, path: req.path }, 'request failed');
    }
    res.status(apiError.status).json(apiError.toBody());
  };
}

export function notFoundHandler(req: Request, _res: Response, next: NextFunction): void {
  next(new ApiError('not_found', `no endpoint ${req.method} ${req.path.length > 200 ? `${req.path.slice(0, 200)}…` : req.path}`, 'path'));
}

/**
 * Refuses forbidden keys (`__proto__`, `constructor`, `prototype`) and NUL characters anywhere in
 * `value` (see @sous/protocol findUnsafeJson): a 400 naming the field as `<where>.<path>`.
 */
export function refuseUnsafeJson(value: unknown, where: 'body' | 'query' | 'params'): void {
  const unsafe = findUnsafeJson(value);
  if (unsafe === undefined) return;
  const path = unsafe.path.length > 0 ? `${where}.${unsafe.path.join('.')}` : where;
  // A key may be as long as the body: quote at most 200 characters of the path.
  const field = path.length > 200 ? `${path.slice(0, 200)}…` : path;
  throw new ApiError(where === 'body' ? 'invalid_body' : 'invalid_query', `${field} ${unsafe.problem}`, field);
}

/**
 * Validates `value` with a joi schema, after refusing what no edge accepts (refuseUnsafeJson); a
 * failure is a 400 naming the first offending field as `<where>.<path>` (e.g. `body.top_n`).
 */
export function validate<T>(schema: Joi.Schema<T>, value: unknown, where: 'body' | 'query' | 'params'): T {
  refuseUnsafeJson(value, where);
  const { error, value: result } = schema.validate(value ?? {}, { abortEarly: true, convert: where !== 'body' });
  if (error) {
    const detail = error.details[0];
    const field = detail && detail.path.length > 0 ? `${where}.${detail.path.join('.')}` : where;
    throw new ApiError(where === 'body' ? 'invalid_body' : 'invalid_query', detail?.message.replace(/"/g, '') ?? error.message, field);
  }
  return result as T;
}
