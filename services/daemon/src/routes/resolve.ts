import type { Express } from 'express';
import Joi from 'joi';
import { ApiError } from '@sous/protocol';
import { validate } from '@sous/http';
import { EngineError } from '@sous/engine';
import type { DaemonContext } from '../daemon';

const clientId = Joi.string().trim().min(1).max(100).pattern(/^[A-Za-z0-9._:@/-]+$/);
const resolveBody = Joi.object({
  prompt: Joi.string().trim().min(1).max(20_000).required(),
  budget_tokens: Joi.number().integer().min(50).max(200_000),
  client: clientId,
});

/** The client a request speaks for: the body's `client`, else the `X-Sous-Client` header. */
export function requestClient(body: { client?: string }, header: string | undefined): string | undefined {
  if (body.client !== undefined) return body.client;
  if (header === undefined) return undefined;
  const { error, value } = clientId.validate(header);
  if (error) throw new ApiError('invalid_request', 'X-Sous-Client must be 1-100 characters of letters, digits and . _ : @ / -', 'headers.x-sous-client');
  return value as string;
}

/**
 * `POST /v1/resolve` (spec 2.5; docs/resolve.md): prompt to briefing, evidence and alternatives,
 * recorded as a resolution (the prompt only as its sha256). The engine does the work; this stays thin.
 */
export function resolveRoutes(app: Express, ctx: DaemonContext): void {
  app.post('/v1/resolve', async (req, res) => {
    const body = validate(resolveBody, req.body, 'body') as { prompt: string; budget_tokens?: number; client?: string };
    const client = requestClient(body, req.get('x-sous-client'));
    try {
      const resolution = await ctx.preparation.resolver.resolve({ prompt: body.prompt, ...(body.budget_tokens !== undefined ? { budgetTokens: body.budget_tokens } : {}), ...(client !== undefined ? { client } : {}) });
      res.json(resolution);
    } catch (err) {
      if (err instanceof EngineError && err.code === 'unavailable') throw new ApiError('unavailable', err.message);
      throw err;
    }
  });
}
