import type { Express } from 'express';
import Joi from 'joi';
import { contextRoutes, validate } from '@sous/http';
import { redactText } from '@sous/protocol';
import { scopeKey } from '@sous/retrieval';
import type { DaemonContext } from '../daemon';

const changesQuery = Joi.object({
  since: Joi.number().integer().min(0).required(),
  head: Joi.string().allow('').max(100),
});

/**
 * `POST /v1/context` from the live index (fused with the semantic stage when it runs), and `GET /v1/index/changes` — the stored index changes
 * for context processes that cannot open the embedded store themselves (docs/http-api.md).
 */
export function indexRoutes(app: Express, ctx: DaemonContext): void {
  contextRoutes(app, {
    query: (prompt, options) => ctx.index.query(prompt, options),
    status: () => {
      const s = ctx.index.status();
      return { state: s.state, files_indexed: s.files_indexed, generation: s.generation, error: s.error };
    },
    policy: () => ctx.index.policy(),
    semantic: ctx.semantic.context,
  }, { onRequest: () => ctx.focus.noteIntegration() });

  app.get('/v1/index/changes', async (req, res) => {
    const q = validate(changesQuery, req.query, 'query') as { since: number; head?: string };
    const knownHead = q.head === undefined ? undefined : q.head === '' ? null : q.head;
    const changes = await ctx.index.live.feed.changesSince(q.since, knownHead);
    // Stored texts are redacted, and rewritten when the privacy scope changes; while a rebuild under
    // new patterns runs they are still the old ones, so then they leave redacted by the ones in force.
    const policy = ctx.index.policy();
    if (changes.scope_key === scopeKey(policy)) return void res.json(changes);
    const upserted = changes.delta.upserted.map((f) => ({ ...f, text: redactText(f.text, policy.redactPatterns) }));
    res.json({ ...changes, delta: { ...changes.delta, upserted } });
  });
}
