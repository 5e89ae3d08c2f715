import type { Express, Request } from 'express';
import Joi from 'joi';
import { ApiError } from '@sous/protocol';
import { isLoopbackHost, validate } from '@sous/http';
import { FEEDBACK_VALUES, type FeedbackValue } from '@sous/store';
import type { DaemonContext } from '../daemon';
import { clientId, requestClient } from './resolve';
import { engineCall, paramId } from './engine-call';

/** Engine calls of these routes: an unknown id is a 404 naming `params.id`. */
const engine = <T>(fn: () => Promise<T> | T): Promise<T> => engineCall(fn, 'params.id');

const viewQuery = Joi.object({ reveal: Joi.string().valid('external') });
const feedbackBody = Joi.object({ value: Joi.string().valid(...FEEDBACK_VALUES).required(), client: clientId });
const emptyBody = Joi.object({});



/**
 * Whether this request may see external skills' text (docs/skills.md#zones): it asked
 * (`?reveal=external`), the daemon listens on loopback, the request came over loopback, and it is
 * not an MCP call (an agent's model reads MCP results, wherever that model runs).
 */
function reveal(req: Request, ctx: DaemonContext): boolean {
  const { reveal: asked } = validate(viewQuery, req.query, 'query') as { reveal?: 'external' };
  if (asked !== 'external') return false;
  const remote = (req.socket.remoteAddress ?? '').replace(/^::ffff:/, '');
  const local = isLoopbackHost(ctx.options.host) && isLoopbackHost(remote) && req.get('x-sous-client') !== 'mcp';
  if (!local) throw new ApiError('forbidden', 'external skills are shown only to a local user of a daemon on loopback; ask without reveal=external', 'query.reveal');
  return true;
}

/**
 * Skills (docs/skills.md): the list with zones, weights and diagnostics, one skill, and the
 * influence controls `sous.artefacts.*` share with cards: feedback, dismiss, restore.
 */
export function skillRoutes(app: Express, ctx: DaemonContext): void {
  const skills = ctx.preparation.skills;

  app.get('/skills', async (req, res) => {
    const show = reveal(req, ctx);
    // A list is a diagnostic request: the roots are read again (never while the workspace is paused).
    await skills.refresh();
    res.json(await skills.list(show));
  });

  app.get('/skills/:id', async (req, res) => {
    const skillId = paramId(req);
    const show = reveal(req, ctx);
    res.json({ skill: await engine(() => skills.inspect(skillId, show)) });
  });

  app.post('/skills/:id/feedback', async (req, res) => {
    const skillId = paramId(req);
    const body = validate(feedbackBody, req.body, 'body') as { value: FeedbackValue; client?: string };
    const client = requestClient(body, req.get('x-sous-client'));
    res.json({ feedback: await engine(() => skills.feedback(skillId, body.value, client)), note: 'the next preparation cycle weighs the skill by it' });
  });

  for (const action of ['dismiss', 'restore'] as const) {
    app.post(`/skills/:id/${action}`, async (req, res) => {
      const skillId = paramId(req);
      validate(emptyBody, req.body, 'body');
      res.json({ skill: await engine(() => skills.setDismissed(skillId, action === 'dismiss')) });
    });
  }
}
