import type { Express } from 'express';
import Joi from 'joi';
import { ApiError } from '@sous/protocol';
import { validate } from '@sous/http';
import { FOCUS_MODES, type FocusAction, type FocusDecision, type FocusMode } from '@sous/focus';
import type { DaemonContext } from '../daemon';

const idParams = Joi.object({ id: Joi.string().max(200).required() });
const emptyBody = Joi.object({});
const modeBody = Joi.object({ mode: Joi.string().valid(...FOCUS_MODES).required() });
const ACTIONS = ['work-here', 'pin', 'unpin', 'pause', 'resume'] as const;

/** The decision as JSON (its `may_*` functions become this workspace's answers). */
function focusBody(ctx: DaemonContext, decision: FocusDecision): Record<string, unknown> {
  const detection = ctx.focus.detection();
  return {
    workspace: ctx.focus.id,
    this_workspace: { ...ctx.focus.own(), may_read: decision.may_read(ctx.focus.id), may_prepare: decision.may_prepare(ctx.focus.id), pinned: ctx.focus.pinned() },
    selected: decision.selected,
    mode: decision.mode,
    status: decision.status,
    reasons: decision.reasons,
    workspaces: decision.workspaces,
    clients: { running: detection.clients, checked_at: detection.checked_at, method: detection.method, ...(detection.error ? { error: detection.error } : {}) },
    ...(ctx.focus.problem() ? { problem: ctx.focus.problem() } : {}),
  };
}

/**
 * Auto Focus (spec 4.2; docs/focus.md): `GET /focus`, the per-workspace actions, pause-all and the
 * mode. Clients only send user actions; the daemons decide, from the shared registry.
 */
export function focusRoutes(app: Express, ctx: DaemonContext): void {
  const act = (action: FocusAction): Record<string, unknown> => {
    let result;
    try {
      result = ctx.focus.apply(action);
    } catch (err) {
      // The registry could not be read or locked: nothing changed, and the message says what to do.
      throw new ApiError('conflict', err instanceof Error ? err.message : String(err));
    }
    if (!result.ok) throw new ApiError('not_found', result.error.message, 'params.id');
    return focusBody(ctx, ctx.focus.decision());
  };

  app.get('/focus', async (_req, res) => {
    let decision: FocusDecision;
    try {
      decision = await ctx.focus.recheck();
    } catch (err) {
      // A hand-edited focus.json that is not JSON: say so, and show the last good decision.
      decision = ctx.focus.decision();
      res.setHeader('warning', '199 sous "focus registry unreadable"');
      return res.json({ ...focusBody(ctx, decision), problem: err instanceof Error ? err.message : String(err) });
    }
    res.json(focusBody(ctx, decision));
  });

  for (const kind of ACTIONS) {
    app.post(`/focus/workspaces/:id/${kind}`, (req, res) => {
      const { id } = validate(idParams, req.params, 'params') as { id: string };
      validate(emptyBody, req.body, 'body');
      res.json(act({ kind, id }));
    });
  }

  app.post('/focus/pause-all', (req, res) => {
    validate(emptyBody, req.body, 'body');
    res.json(act({ kind: 'pause-all' }));
  });

  app.post('/focus/mode', (req, res) => {
    const { mode } = validate(modeBody, req.body, 'body') as { mode: FocusMode };
    res.json(act({ kind: 'set-mode', mode }));
  });
}
