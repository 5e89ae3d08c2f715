import type { Express, Request } from 'express';
import Joi from 'joi';
import { ApiError } from '@sous/protocol';
import { validate } from '@sous/http';
import { FEEDBACK_VALUES, WORK_PRODUCT_KINDS, WORK_PRODUCT_STATES, type FeedbackValue, type WorkProductKind, type WorkProductState } from '@sous/store';
import type { DaemonContext } from '../daemon';
import { engineCall, paramId } from './engine-call';

/** Engine calls of these routes: an unknown id is a 404 naming `params.id`. */
const engine = <T>(fn: () => Promise<T> | T): Promise<T> => engineCall(fn, 'params.id');

const diagnosticQuery = Joi.object({ diagnostic: Joi.boolean().default(false) });
const listQuery = Joi.object({
  state: Joi.array().items(Joi.string().valid(...WORK_PRODUCT_STATES)).single(),
  kind: Joi.array().items(Joi.string().valid(...WORK_PRODUCT_KINDS)).single(),
  limit: Joi.number().integer().min(1).max(500).default(50),
});
const feedbackBody = Joi.object({ value: Joi.string().valid(...FEEDBACK_VALUES).required() });
const emptyBody = Joi.object({});
const warmBody = Joi.object({ paths: Joi.array().items(Joi.string().min(1).max(4096)).max(500) });



function diagnostic(req: Request): boolean {
  return (validate(diagnosticQuery, req.query, 'query') as { diagnostic: boolean }).diagnostic;
}

/**
 * Prepared Work (spec 4.1; docs/prepared-work.md): the feed, the diagnostic list, inspect, export,
 * dismiss, feedback, adopt, and `POST /prepare` (a warm request that queues a cycle now).
 */
export function preparedWorkRoutes(app: Express, ctx: DaemonContext): void {
  const work = ctx.preparation.work;

  app.get('/prepared-work', async (req, res) => {
    const feed = await work.feed(diagnostic(req));
    res.json({ workspace: ctx.paths.root, ...feed, ...(feed.cards.length === 0 ? { note: 'No strong, fresh item right now; an empty feed is a valid answer.' } : {}) });
  });

  app.get('/work-products', async (req, res) => {
    const q = validate(listQuery, req.query, 'query') as { state?: WorkProductState[]; kind?: WorkProductKind[]; limit: number };
    const items = await work.list({ ...(q.state ? { states: q.state } : {}), ...(q.kind ? { kinds: q.kind } : {}), limit: q.limit });
    res.json({ items });
  });

  app.get('/work-products/:id/inspect', async (req, res) => {
    res.json(await engine(() => work.inspect(paramId(req), diagnostic(req))));
  });

  app.post('/work-products/:id/export', async (req, res) => {
    const cardId = paramId(req);
    validate(emptyBody, req.body, 'body');
    res.json(await engine(() => work.export(cardId)));
  });

  app.post('/work-products/:id/dismiss', async (req, res) => {
    const cardId = paramId(req);
    validate(emptyBody, req.body, 'body');
    res.json({ card: await engine(() => work.dismiss(cardId)) });
  });

  app.post('/work-products/:id/feedback', async (req, res) => {
    const cardId = paramId(req);
    const body = validate(feedbackBody, req.body, 'body') as { value: FeedbackValue };
    const client = req.get('x-sous-client');
    res.json({ feedback: await engine(() => work.feedback(cardId, body.value, client)) });
  });

  app.post('/work-products/:id/adopt', async (req, res) => {
    const cardId = paramId(req);
    validate(emptyBody, req.body, 'body');
    res.json(await engine(() => work.adopt(cardId)));
  });

  app.post('/prepare', async (req, res) => {
    const body = validate(warmBody, req.body, 'body') as { paths?: string[] };
    const own = ctx.focus.own();
    if (own.class === 'paused') throw new ApiError('conflict', `${own.reason} ${own.action}`, undefined, { focus: own.class });
    const job = await ctx.preparation.warm(body.paths);
    res.status(202).json({ job, note: 'a preparation cycle is queued; follow it with GET /jobs/{id} or GET /events' });
  });
}
