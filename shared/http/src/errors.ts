import type { NextFunction, Request, Response } from 'express';
import type Joi from 'joi';
import { ApiError } from '@sous/protocol';
import type { Logger } from '@sous/logging';
import { outageError } from './outage';

/**
 * Maps anything thrown in a route to the one documented JSON error shape (docs/errors.md).
 * body-parser's own errors (bad JSON, too large, wrong charset) become 4xx with a clear message;
 * anything unknown is a 500 whose details stay in the log, never on the wire.
 */
export function toApiError(err: unknown, limitBytes: number): ApiError {
  if (err instanceof ApiError) return err;
  const e = err as { type?: string; status?: number; message?: string };
  switch (e?.type) {
    case 'entity.parse.failed':
      return new ApiError('invalid_json', 'request body is not valid JSON; send a JSON object with Content-Type: application/json', 'body');
    case 'entity.too.large':
      return new ApiError('payload_too_large', `request body is larger than the ${limitBytes} byte limit`, 'body');
    case 'encoding.unsupported':
    case 'charset.unsupported':
      return new ApiError('unsupported_media_type', 'request body must be UTF-8 JSON', 'header.content-type');
    default:
      // A store or queue that is down is a 503 naming it, never a 500.
      return outageError(err) ?? new ApiError('internal', 'internal error; see the daemon log (sous logs)');
  }
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
  next(new ApiError('not_found', `no endpoint ${req.method} ${req.path}`, 'path'));
}

/**
 * Validates `value` with a joi schema; a failure is a 400 naming the first offending field as
 * `<where>.<path>` (e.g. `body.top_n`).
 */
export function validate<T>(schema: Joi.Schema<T>, value: unknown, where: 'body' | 'query' | 'params'): T {
  const { error, value: result } = schema.validate(value ?? {}, { abortEarly: true, convert: where !== 'body' });
  if (error) {
    const detail = error.details[0];
    const field = detail && detail.path.length > 0 ? `${where}.${detail.path.join('.')}` : where;
    throw new ApiError(where === 'body' ? 'invalid_body' : 'invalid_query', detail?.message.replace(/"/g, '') ?? error.message, field);
  }
  return result as T;
}
