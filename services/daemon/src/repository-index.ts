/**
 * The daemon's side of retrieval: one live index of the workspace, started in the background after
 * the HTTP interface is up (so `/status` answers while it builds), rebuilt when privacy settings
 * change, and stopped before the store closes.
 */
import type { SousConfig } from '@sous/config';
import type { Logger } from '@sous/logging';
import { LiveIndex, scopeCoverage, scopePolicyFromConfig, type ScopeCoverage } from '@sous/retrieval';
import type { Store } from '@sous/store';

/** Privacy keys whose change means files must be read again under the new policy. */
function privacyKey(config: SousConfig): string {
  const p = config.privacy;
  return JSON.stringify([p.allowed_paths, p.excluded_patterns, p.redact_patterns]);
}

/** What `/status` says about the scope. */
export interface ScopeSummary {
  total_files: number;
  in_scope: number;
  out_of_scope: number;
  out_of_scope_code: number;
  suggested_globs: string[];
}

function summary(c: ScopeCoverage): ScopeSummary {
  return { total_files: c.total, in_scope: c.inScope, out_of_scope: c.outOfScope, out_of_scope_code: c.outOfScopeCode, suggested_globs: c.suggestedGlobs };
}

export interface DaemonIndex {
  live: LiveIndex;
  /** Resolves when the first catch-up is done (or failed; the failure is in the status). */
  ready: Promise<void>;
  /** How much of the repository the privacy scope covers (null until first measured); never widens the scope. */
  scope(): ScopeSummary | null;
  /** Called on every config reload. */
  configChanged(config: SousConfig): void;
  stop(): Promise<void>;
}

export function startDaemonIndex(options: { root: string; store: Store; workspaceId: string; config: SousConfig; polling: boolean; logger: Logger }): DaemonIndex {
  const { logger } = options;
  let current = privacyKey(options.config);
  const live = new LiveIndex({
    root: options.root,
    policy: scopePolicyFromConfig(options.config),
    store: options.store,
    workspaceId: options.workspaceId,
    watch: { polling: options.polling },
    onNotice: (message) => logger.warn(message),
  });
  let scope: ScopeSummary | null = null;
  const measure = (config: SousConfig): Promise<void> =>
    scopeCoverage(options.root, scopePolicyFromConfig(config)).then(
      (c) => {
        scope = summary(c);
        if (c.outOfScopeCode > 0) logger.warn({ out_of_scope_code: c.outOfScopeCode, suggested_globs: c.suggestedGlobs }, 'privacy.allowed_paths leaves code files out of the index (sous doctor)');
      },
      () => undefined,
    );
  void measure(options.config);
  const started = Date.now();
  const ready = live.start().then(
    () => {
      const s = live.status();
      logger.info({ files: s.files_indexed, reads: s.reads, watch: s.watch, ms: Date.now() - started }, 'repository index ready');
    },
    (err: unknown) => logger.error({ error: err instanceof Error ? err.message : String(err) }, 'repository index failed'),
  );
  return {
    live,
    ready,
    scope: () => scope,
    configChanged(config) {
      const next = privacyKey(config);
      if (next === current) return;
      current = next;
      void measure(config);
      logger.info('privacy settings changed; re-reading the repository under the new scope');
      void ready.then(() => live.rebuild(scopePolicyFromConfig(config))).catch((err: unknown) => logger.error({ error: err instanceof Error ? err.message : String(err) }, 'index rebuild failed'));
    },
    stop: () => live.stop(),
  };
}
