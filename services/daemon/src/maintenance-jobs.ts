import Joi from 'joi';
import type { JobQueue } from '@sous/jobs';
import type { BackendMonitor } from './backend-monitor';

/**
 * Cheap maintenance the daemon runs as jobs (spec 1: allowed even when no AI client runs).
 * Any process of the repository may run them (each probes with its own monitor).
 */
export function registerMaintenanceJobs(queue: JobQueue, backend: BackendMonitor): void {
  queue.register(
    'maintenance.probe_backend',
    async () => {
      await backend.check();
      const probe = backend.latest();
      return { reachable: probe?.reachable ?? false, model_present: probe?.model_present ?? null };
    },
    { payload: Joi.object({}) },
  );
}
