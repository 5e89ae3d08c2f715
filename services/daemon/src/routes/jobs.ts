import type { Express } from 'express';
import Joi from 'joi';
import { ApiError } from '@sous/protocol';
import { validate } from '@sous/http';
import { JOB_STATES, type JobState } from '@sous/jobs';
import type { DaemonContext } from '../daemon';

const listQuery = Joi.object({
  limit: Joi.number().integer().min(1).max(500).default(50),
  state: Joi.string().valid(...JOB_STATES),
});
const idParams = Joi.object({ id: Joi.string().max(200).required() });

/** `GET /jobs`, `GET /jobs/{id}`, `POST /jobs/{id}/cancel` (spec 4.2; docs/http-api.md). */
export function jobRoutes(app: Express, ctx: DaemonContext): void {
  app.get('/jobs', async (req, res) => {
    const q = validate(listQuery, req.query, 'query') as { limit: number; state?: JobState };
    const jobs = await ctx.jobs.list({ limit: q.limit, ...(q.state ? { states: [q.state] } : {}) });
    res.json({ queue: ctx.queue.kind, jobs });
  });

  app.get('/jobs/:id', async (req, res) => {
    const { id } = validate(idParams, req.params, 'params') as { id: string };
    const job = await ctx.jobs.get(id);
    if (!job) throw new ApiError('not_found', `no job ${id}; list jobs with GET /jobs`, 'params.id');
    res.json({ job });
  });

  app.post('/jobs/:id/cancel', async (req, res) => {
    const { id } = validate(idParams, req.params, 'params') as { id: string };
    const before = await ctx.jobs.get(id);
    if (!before) throw new ApiError('not_found', `no job ${id}; list jobs with GET /jobs`, 'params.id');
    if (before.state !== 'queued' && before.state !== 'running') {
      throw new ApiError('conflict', `job ${id} already ended (${before.state}); only queued or running jobs can be cancelled`, 'params.id', { state: before.state });
    }
    const job = await ctx.jobs.cancel(id);
    res.json({ job });
  });
}
