import type { Express } from 'express';
import type { DegradedReason } from '@sous/http';
import { SOUS_VERSION } from '@sous/protocol';
import type { DaemonContext } from '../daemon';

/** `GET /healthz` (liveness) and `GET /status` — the runtime health snapshot (spec 4.2); documented in docs/http-api.md. */
export function statusRoutes(app: Express, ctx: DaemonContext): void {
  // Liveness for container health checks: answered without a token, so it says nothing more.
  app.get('/healthz', (_req, res) => {
    res.json({ ok: true });
  });
  // When this process first saw the queue failing (the store and the index keep their own time).
  let queueFailingSince: string | null = null;
  app.get('/status', async (_req, res) => {
    const [store, queue] = await Promise.all([ctx.store.health(), ctx.queue.health()]);
    const config = ctx.config();
    const backend = ctx.backend.latest();
    const index = ctx.index.status();
    queueFailingSince = queue.ok ? null : (queueFailingSince ?? new Date().toISOString());
    const reasons: DegradedReason[] = [];
    const outage = ctx.store.outage();
    if (!store.ok) reasons.push({ dependency: 'store', reason: outage ? `${ctx.store.kind}: ${outage.reason}` : (store.detail ?? `${ctx.store.kind}: no answer`), since: store.since ?? outage?.since ?? null });
    if (!queue.ok) reasons.push({ dependency: 'queue', reason: `${ctx.queue.kind}: ${queue.detail ?? 'no answer'}`, since: queueFailingSince });
    if (index.unsaved !== null) {
      const u = index.unsaved;
      reasons.push({ dependency: 'index', reason: `changes to ${u.files} files not saved to the store yet (${u.attempts} attempts, kept and retried): ${u.error}`, since: u.since });
    }
    res.json({
      status: reasons.length === 0 ? 'ok' : 'degraded',
      ...(reasons.length === 0 ? {} : { reasons }),
      version: SOUS_VERSION,
      pid: process.pid,
      uptime_seconds: Math.round((Date.now() - ctx.startedAt.getTime()) / 1000),
      started_at: ctx.startedAt.toISOString(),
      host: ctx.options.host,
      port: ctx.boundPort(),
      role: ctx.role(),
      workspace: { id: ctx.workspaceId, root: ctx.paths.root, state_dir: ctx.paths.dir },
      config: { path: ctx.paths.config, loaded_at: ctx.configState().loadedAt, ...(ctx.configState().lastError ? { last_error: ctx.configState().lastError } : {}) },
      store: { kind: ctx.store.kind, ok: store.ok, latency_ms: store.latencyMs, ...(store.detail ? { detail: store.detail } : {}) },
      queue: { kind: ctx.queue.kind, ok: queue.ok, ...(queue.detail ? { detail: queue.detail } : {}) },
      policy: { bundle: config.policy.bundle },
      backend: backend
        ? { name: backend.name, base_url: backend.base_url, model: backend.model, reachable: backend.reachable, model_present: backend.model_present, checked_at: backend.checked_at, ...(backend.error ? { error: backend.error } : {}) }
        : { name: config.backend.name, base_url: config.backend.base_url, model: config.backend.model, reachable: null, model_present: null, checked_at: null },
      watch: ctx.watchMode(),
      index: { ...index, scope: ctx.index.scope(), coverage: ctx.index.live.coverage(), semantic: ctx.semantic.status() },
      preparation: ctx.preparation.status(),
      skills: ctx.preparation.skills.status(),
      focus: { ...ctx.focus.own(), may_read: ctx.focus.mayRead(), may_prepare: ctx.focus.mayPrepare(), selected: ctx.focus.decision().selected, mode: ctx.focus.decision().mode },
    });
  });
}
