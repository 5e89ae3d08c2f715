import type { Express } from 'express';
import Joi from 'joi';
import { ApiError } from '@sous/protocol';
import { FEEDBACK_VALUES, type FeedbackValue } from '@sous/store';
import { validate } from '@sous/http';
import type { DaemonContext } from '../daemon';
import { engineCall as engine } from './engine-call';

export const clientId = Joi.string().trim().min(1).max(100).pattern(/^[A-Za-z0-9._:@/-]+$/);
const resolveBody = Joi.object({
  prompt: Joi.string().trim().min(1).max(20_000).required(),
  budget_tokens: Joi.number().integer().min(50).max(200_000),
  client: clientId,
  composer_session_id: Joi.string().trim().min(1).max(200),
});

const idParams = Joi.object({ id: Joi.string().max(200).required() });
const emptyQuery = Joi.object({});
const lastQuery = Joi.object({ client: clientId });
const suggestQuery = Joi.object({ limit: Joi.number().integer().min(1).max(50).default(5) });
const feedbackBody = Joi.object({ value: Joi.string().valid(...FEEDBACK_VALUES).required(), client: clientId });


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
 * recorded as a resolution (the prompt only as its sha256); explain one (`GET /v1/resolutions/:id`, or
 * the newest, per client, at `/v1/resolutions/last`), feedback on one, and `GET /v1/suggest` (likely
 * next prompts). The engine does the work; these stay thin.
 */
export function resolveRoutes(app: Express, ctx: DaemonContext): void {
  app.post('/v1/resolve', async (req, res) => {
    const body = validate(resolveBody, req.body, 'body') as { prompt: string; budget_tokens?: number; client?: string; composer_session_id?: string };
    const client = requestClient(body, req.get('x-sous-client'));
    res.json(
      await engine(() =>
        ctx.preparation.resolver.resolve({
          prompt: body.prompt,
          ...(body.budget_tokens !== undefined ? { budgetTokens: body.budget_tokens } : {}),
          ...(client !== undefined ? { client } : {}),
          ...(body.composer_session_id !== undefined ? { composerSessionId: body.composer_session_id } : {}),
        }),
      ),
    );
  });

  app.get('/v1/resolutions/last', async (req, res) => {
    const { client } = validate(lastQuery, req.query, 'query') as { client?: string };
    res.json(await engine(() => ctx.preparation.resolver.last(client)));
  });

  app.get('/v1/resolutions/:id', async (req, res) => {
    const { id } = validate(idParams, req.params, 'params') as { id: string };
    validate(emptyQuery, req.query, 'query');
    res.json(await engine(() => ctx.preparation.resolver.explain(id), 'params.id'));
  });

  app.post('/v1/resolutions/:id/feedback', async (req, res) => {
    const { id } = validate(idParams, req.params, 'params') as { id: string };
    const body = validate(feedbackBody, req.body, 'body') as { value: FeedbackValue; client?: string };
    const client = requestClient(body, req.get('x-sous-client'));
    res.json({ feedback: await engine(() => ctx.preparation.resolver.feedback(id, body.value, client), 'params.id') });
  });

  // `sous forget`: retained state of the workspace (resolutions, predictions, feedback); goals and cards stay.
  app.post('/v1/forget', async (req, res) => {
    validate(emptyQuery, req.body, 'body');
    const { resolutions, feedback } = await ctx.preparation.resolver.forget();
    const predictions = await ctx.preparation.predictions.clear();
    // What the skills loop learned from that feedback goes with it; dismissed skills stay dismissed.
    const skills = await ctx.preparation.skills.forget();
    res.json({ forgotten: { resolutions, predictions, feedback: feedback + skills.feedback, skill_states: skills.states } });
  });

  app.get('/v1/suggest', async (req, res) => {
    const { limit } = validate(suggestQuery, req.query, 'query') as { limit: number };
    res.json({ suggestions: await ctx.preparation.resolver.suggest(limit) });
  });
}
