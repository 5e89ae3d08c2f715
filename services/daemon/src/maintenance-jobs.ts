import Joi from 'joi';
import type { DaemonContext } from './daemon';

/**
 * Cheap maintenance the daemon runs as jobs (spec 1: allowed even when no AI client runs).
 * Preparation cycles register alongside these in later work.
 */
export function registerMaintenanceJobs(ctx: DaemonContext): void {
  ctx.queue.register(
    'maintenance.probe_backend',
    async () => {
      await ctx.backend.check();
      const probe = ctx.backend.latest();
      return { reachable: probe?.reachable ?? false, model_present: probe?.model_present ?? null };
    },
    { payload: Joi.object({}) },
  );
}
