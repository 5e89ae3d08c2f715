import type { Express } from 'express';
import Joi from 'joi';
import { ApiError } from '@sous/protocol';
import { validate } from '@sous/http';
import type { DaemonContext } from '../daemon';

const emptyBody = Joi.object({});

/** Whether the daemon listens on loopback only: one developer's machine, not a shared server. */
function loopbackOnly(host: string): boolean {
  return host === '127.0.0.1' || host === '::1' || host === 'localhost';
}

/**
 * `POST /lifecycle/stop`: the cockpit's Stop (spec 1, rule 8: a client sends the user's action, the
 * daemon acts). It stops the process as `sous down` does, after answering. Offered only on a
 * loopback daemon: on a shared server a page must not stop everyone's daemon (use the service
 * manager there). Starting again needs a terminal (`sous up`): a stopped daemon answers nothing.
 */
export function lifecycleRoutes(app: Express, ctx: DaemonContext, requestStop: (() => void) | undefined): void {
  app.post('/lifecycle/stop', (req, res) => {
    validate(emptyBody, req.body ?? {}, 'body');
    if (!loopbackOnly(ctx.options.host)) throw new ApiError('forbidden', `stop is offered only on a daemon bound to loopback (this one listens on ${ctx.options.host}); stop it with its service manager`);
    if (requestStop === undefined) throw new ApiError('not_implemented', 'this daemon was not started by sous up (no process to stop); stop its host process instead');
    ctx.logger.info('stop requested over HTTP');
    res.status(202).json({ stopping: true, start_again: `sous up --path ${ctx.paths.root}` });
    res.on('finish', () => setImmediate(requestStop));
  });
}
