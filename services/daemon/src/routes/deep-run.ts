import type { Express } from 'express';
import Joi from 'joi';
import { validate } from '@sous/http';
import { MAX_COST_CAP_USD, MAX_DURATION_MINUTES, type DeepRunRequest } from '@sous/engine';
import type { DaemonContext } from '../daemon';
import { engineCall as engine } from './engine-call';
import { DEEP_RUN_PRESETS } from '@sous/store';

const sessionId = Joi.string().min(1).max(200);
/** Units in every message: minutes and US dollars are the two things a reader must not guess. */
const startBody = Joi.object({
  preset: Joi.string().valid(...DEEP_RUN_PRESETS),
  duration_minutes: Joi.number().integer().min(1).max(MAX_DURATION_MINUTES).messages({ '*': `{{#label}} must be whole minutes from 1 to ${MAX_DURATION_MINUTES}` }),
  cost_cap_usd: Joi.number().min(0).max(MAX_COST_CAP_USD).precision(2).messages({ '*': `{{#label}} must be US dollars from 0 to ${MAX_COST_CAP_USD}, at most 2 decimals` }),
});
const stopBody = Joi.object({ id: sessionId });
const idParams = Joi.object({ id: sessionId.required() });
const listQuery = Joi.object({ limit: Joi.number().integer().min(1).max(100).default(20) });


/**
 * Deep-Run sessions (spec 4.6, 4.7; docs/deep-run.md): `GET /deep-run` (the running or latest
 * session), `GET /deep-run/defaults`, `GET /deep-run/sessions[/{id}]`, `POST /deep-run/start`,
 * `POST /deep-run/stop`. Durations are minutes, caps US dollars of estimated hosted-model spend.
 */
export function deepRunRoutes(app: Express, ctx: DaemonContext): void {
  const runs = ctx.deepRuns;

  app.get('/deep-run', async (_req, res) => {
    res.json({ session: await runs.inspect() });
  });

  app.get('/deep-run/defaults', (_req, res) => {
    res.json(runs.defaults());
  });

  app.get('/deep-run/sessions', async (req, res) => {
    const { limit } = validate(listQuery, req.query, 'query') as { limit: number };
    res.json({ sessions: await runs.list(limit) });
  });

  app.get('/deep-run/sessions/:id', async (req, res) => {
    const { id } = validate(idParams, req.params, 'params') as { id: string };
    res.json({ session: await engine(() => runs.inspect(id), 'params.id') });
  });

  app.post('/deep-run/start', async (req, res) => {
    const body = validate(startBody, req.body, 'body') as DeepRunRequest;
    res.status(201).json({ session: await engine(() => runs.start(body)) });
  });

  app.post('/deep-run/stop', async (req, res) => {
    const { id } = validate(stopBody, req.body, 'body') as { id?: string };
    res.json({ session: await engine(() => runs.stop(id), 'body.id') });
  });
}
