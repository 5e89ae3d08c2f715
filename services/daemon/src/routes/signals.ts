import type { Express } from 'express';
import { ApiError } from '@sous/protocol';
import { validateDraftIntentSnapshot } from '@sous/http';
import { EngineError, ingestComposerSnapshot } from '@sous/engine';
import type { DaemonContext } from '../daemon';

/**
 * Composer signal intake (spec 4.3; docs/composer-signals.md): one DraftIntentSnapshot per POST,
 * stored as a `composer_lifecycle` SignalEvent. Raw draft text is refused (400), a state the
 * adapter's level may not emit is `capability_mismatch` (422).
 */
export function signalRoutes(app: Express, ctx: DaemonContext): void {
  app.post('/signals/composer', async (req, res) => {
    const snapshot = validateDraftIntentSnapshot(req.body);
    try {
      const intake = await ingestComposerSnapshot(ctx.store, ctx.workspaceId, snapshot, ctx.config().policy.work_style, ctx.preparation.predictions);
      res.status(201).json(intake);
    } catch (err) {
      if (err instanceof EngineError && err.code === 'capability_mismatch') {
        const { where, ...details } = err.details;
        throw new ApiError('capability_mismatch', err.message, typeof where === 'string' ? where : undefined, details);
      }
      throw err;
    }
  });
}
