import type { Request } from 'express';
import Joi from 'joi';
import { ApiError } from '@sous/protocol';
import { validate } from '@sous/http';
import { EngineError } from '@sous/engine';

/**
 * Runs an engine call for a route: an `EngineError` becomes the HTTP error it means (404 naming
 * `where`, 409 and 503 with their details, 400 for a value the engine refused); anything else
 * propagates as the 500 it is.
 */
export async function engineCall<T>(fn: () => Promise<T> | T, where?: string): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (!(err instanceof EngineError)) throw err;
    if (err.code === 'not_found') throw new ApiError('not_found', err.message, where);
    if (err.code === 'conflict') throw new ApiError('conflict', err.message, undefined, err.details);
    if (err.code === 'unavailable') throw new ApiError('unavailable', err.message);
    throw new ApiError('invalid_value', err.message, undefined, err.details);
  }
}

const idParams = Joi.object({ id: Joi.string().max(200).required() });

/** The `:id` of a route, validated. */
export function paramId(req: Request): string {
  return (validate(idParams, req.params, 'params') as { id: string }).id;
}
