import type { Express } from 'express';
import Joi from 'joi';
import { ApiError } from '@sous/protocol';
import { validate } from '@sous/http';
import { EngineError } from '@sous/engine';
import type { DaemonContext } from '../daemon';

const idParams = Joi.object({ id: Joi.string().max(200).required() });
const emptyQuery = Joi.object({});
const emptyBody = Joi.object({});

/**
 * The prediction registry (spec 2.4, 4.6 `predictions.*`; docs/predictions.md): the live ones, adopt
 * one as the current intent, and the diagnostic dashboard. The engine keeps them; these stay thin.
 */
export function predictionRoutes(app: Express, ctx: DaemonContext): void {
  const predictions = ctx.preparation.predictions;

  app.get('/predictions', async (req, res) => {
    validate(emptyQuery, req.query, 'query');
    res.json({ predictions: await predictions.active() });
  });

  app.get('/predictions/dashboard', async (req, res) => {
    validate(emptyQuery, req.query, 'query');
    res.json(await predictions.dashboard());
  });

  app.post('/predictions/:id/adopt', async (req, res) => {
    const { id } = validate(idParams, req.params, 'params') as { id: string };
    validate(emptyBody, req.body, 'body');
    try {
      res.json({ prediction: await predictions.adopt(id) });
    } catch (err) {
      if (err instanceof EngineError && err.code === 'not_found') throw new ApiError('not_found', err.message, 'params.id');
      if (err instanceof EngineError && err.code === 'conflict') throw new ApiError('conflict', err.message, 'params.id', err.details);
      throw err;
    }
  });
}
