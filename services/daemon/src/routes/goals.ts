import type { Express } from 'express';
import Joi from 'joi';
import { validate } from '@sous/http';
import { canonicalRelatedPath } from '@sous/engine';
import { GOAL_STATUSES, type GoalStatus } from '@sous/store';
import type { DaemonContext } from '../daemon';
import { engineCall, paramId } from './engine-call';

/** Engine calls of these routes: an unknown id is a 404 naming `params.id`. */
const engine = <T>(fn: () => Promise<T> | T): Promise<T> => engineCall(fn, 'params.id');

/** Bounds of a goal (docs/goals.md). */
export const GOAL_LIMITS = { title: 200, description: 4000, relatedFiles: 200, path: 1024 } as const;

const relatedPath = Joi.string()
  .min(1)
  .max(GOAL_LIMITS.path)
  .custom((value: string, helpers) => (canonicalRelatedPath(value) === undefined ? helpers.error('any.invalid') : value))
  .messages({ 'any.invalid': '{{#label}} must be a path relative to the repository root, without ".." or a leading "/"' });
const declareBody = Joi.object({
  title: Joi.string().min(1).max(GOAL_LIMITS.title).pattern(/\S/).required().messages({ 'string.pattern.base': '{{#label}} must not be blank' }),
  description: Joi.string().allow('').max(GOAL_LIMITS.description).default(''),
  status: Joi.string().valid(...GOAL_STATUSES).default('active'),
  related_files: Joi.array().items(relatedPath).max(GOAL_LIMITS.relatedFiles).default([]),
});
const statusBody = Joi.object({ status: Joi.string().valid(...GOAL_STATUSES).required() });
const listQuery = Joi.object({ status: Joi.array().items(Joi.string().valid(...GOAL_STATUSES)).single() });
const emptyBody = Joi.object({});



/**
 * Workspace goals (spec 2.3, 3.3; docs/goals.md): declare, list, get, change status, delete. The
 * reconciliation state is maintained by the daemon on every file change and commit.
 */
export function goalRoutes(app: Express, ctx: DaemonContext): void {
  const goals = ctx.preparation.goals;
  // Goals seed predictions (spec 2.3): the registry follows each declaration and status change.
  const seed = (goalId: string): void => {
    ctx.preparation.predictions.goalChanged(goalId).catch((err: unknown) => ctx.logger.warn({ error: err instanceof Error ? err.message : String(err) }, 'updating goal predictions failed'));
  };

  app.get('/goals', async (req, res) => {
    const q = validate(listQuery, req.query, 'query') as { status?: GoalStatus[] };
    res.json({ goals: await goals.list(q.status) });
  });

  app.post('/goals', async (req, res) => {
    const body = validate(declareBody, req.body, 'body') as { title: string; description: string; status: GoalStatus; related_files: string[] };
    const goal = await goals.declare(body);
    seed(goal.id);
    if (goal.status === 'active') ctx.preparation.prioritise(goal.related_files);
    res.status(201).json({ goal });
  });

  app.get('/goals/:id', async (req, res) => {
    const goalId = paramId(req);
    res.json({ goal: await engine(() => goals.get(goalId)) });
  });

  app.post('/goals/:id/status', async (req, res) => {
    const goalId = paramId(req);
    const { status } = validate(statusBody, req.body, 'body') as { status: GoalStatus };
    const goal = await engine(() => goals.updateStatus(goalId, status));
    seed(goal.id);
    if (goal.status === 'active') ctx.preparation.prioritise(goal.related_files);
    res.json({ goal });
  });

  app.post('/goals/:id/delete', async (req, res) => {
    const goalId = paramId(req);
    validate(emptyBody, req.body, 'body');
    await engine(() => goals.delete(goalId));
    seed(goalId);
    res.json({ deleted: goalId });
  });
}
