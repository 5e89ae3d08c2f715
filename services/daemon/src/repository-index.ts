/**
 * The daemon's side of retrieval: one live index of the workspace, started in the background after
 * the HTTP interface is up (so `/status` answers while it builds), rebuilt when privacy settings
 * change, and stopped before the store closes.
 */
import type { SousConfig } from '@sous/config';
import type { Logger } from '@sous/logging';
import { IndexReplica, LiveIndex, scopeCoverage, scopeKey, scopePolicyFromConfig, type ContextResult, type IndexReader, type IndexSignal, type LiveIndexStatus, type QueryOptions, type ScopeCoverage, type ScopePolicy } from '@sous/retrieval';
import type { Store } from '@sous/store';

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
  /** The watcher's index: started only once this process is the repository's watcher (`promote`). */
  live: LiveIndex;
  /** Ranks files for a prompt: the live index on the watcher, the stored copy on a standby. */
  query(prompt: string, options?: QueryOptions): ContextResult;
  /** The index state: the live index's on the watcher, the stored one on a standby. */
  status(): LiveIndexStatus;
  /**
   * What a preparation job reads, in any process: the live index once ready on the watcher, else the
   * stored index brought up to date from the store (docs/jobs.md, "Scale-out"); or why it cannot.
   */
  jobReader(): Promise<{ reader: IndexReader } | { refusal: string }>;
  /** Whether this process watches the repository and writes the index (the lease holder). */
  watching(): boolean;
  /** This process became the repository's watcher: start watching, catching up and writing. */
  promote(): void;
  /** Resolves when the first catch-up is done (or failed; the failure is in the status). */
  ready: Promise<void>;
  /** How much of the repository the privacy scope covers (null until first measured); never widens the scope. */
  scope(): ScopeSummary | null;
  /** The privacy scope in force (answers are filtered and redacted by it). */
  policy(): ScopePolicy;
  /** Called on every config reload. */
  configChanged(config: SousConfig): void;
  /** Whether Auto Focus holds the workspace paused (nothing is read). */
  paused(): boolean;
  /** Auto Focus paused the workspace: stop watching and reading. */
  pause(): Promise<void>;
  /** Auto Focus resumed it: start (or catch up). */
  resume(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * `standby`: the repository is neither watched nor read until `promote` (another process holds the
 * lease; `replicaSyncMs` > 0 keeps a stored copy for reads, 0 syncs it only when a job asks).
 */
export function startDaemonIndex(options: { root: string; store: Store; workspaceId: string; config: SousConfig; polling: boolean; logger: Logger; onSignal?: (signal: IndexSignal) => void; mayRead?: () => boolean; standby?: { replicaSyncMs: number } }): DaemonIndex {
  const { logger } = options;
  let policy = scopePolicyFromConfig(options.config);
  const live = new LiveIndex({
    root: options.root,
    policy,
    store: options.store,
    workspaceId: options.workspaceId,
    watch: { polling: options.polling },
    onNotice: (message) => logger.warn(message),
    ...(options.onSignal ? { onSignal: options.onSignal } : {}),
  });
  let scope: ScopeSummary | null = null;
  const measure = (scoped: ScopePolicy): Promise<void> =>
    scopeCoverage(options.root, scoped).then(
      (c) => {
        scope = summary(c);
        if (c.outOfScopeCode > 0) logger.warn({ out_of_scope_code: c.outOfScopeCode, suggested_globs: c.suggestedGlobs }, 'privacy.allowed_paths leaves code files out of the index (sous doctor)');
      },
      () => undefined,
    );
  // Auto Focus may hold the workspace paused from the start: then nothing is read until resume.
  let began = false;
  let standby = options.standby !== undefined;
  const replica = new IndexReplica(live.feed, options.root);
  if (options.standby && options.standby.replicaSyncMs > 0) void replica.start(options.standby.replicaSyncMs);
  let paused = options.mayRead ? !options.mayRead() : false;
  let pendingRebuild = false;
  let markReady: () => void = () => undefined;
  const ready = new Promise<void>((resolve) => (markReady = resolve));
  const begin = (): void => {
    if (began) return;
    began = true;
    const t0 = Date.now();
    live
      .start()
      .then(
        () => {
          const s = live.status();
          logger.info({ files: s.files_indexed, reads: s.reads, watch: s.watch, ms: Date.now() - t0 }, 'repository index ready');
          // Measured once the catch-up is done, so its own listing does not compete with the index's.
          void measure(policy);
        },
        (err: unknown) => logger.error({ error: err instanceof Error ? err.message : String(err) }, 'repository index failed'),
      )
      .finally(markReady);
  };
  if (standby) logger.info('standby: another process watches this repository; reads come from the stored index');
  else if (!paused) begin();
  else logger.info('workspace paused (Auto Focus): the repository is not read until it is resumed');
  return {
    live,
    ready,
    query: (prompt, queryOptions) => (began ? live.query(prompt, queryOptions) : replica.query(prompt, queryOptions)),
    status: () => (began ? live.status() : replicaStatus(replica)),
    async jobReader() {
      if (!standby) {
        await ready;
        return { reader: live.reader() };
      }
      await replica.sync();
      const state = replica.status().state;
      return state === 'ready' ? { reader: replica.reader() } : { refusal: `the stored index is ${state ?? 'not written yet'}; the watcher is still reading the repository` };
    },
    watching: () => !standby,
    promote() {
      if (!standby) return;
      standby = false;
      replica.stop();
      logger.info('this process now watches the repository');
      if (!paused) begin();
    },
    scope: () => scope,
    policy: () => policy,
    paused: () => paused,
    configChanged(config) {
      const next = scopePolicyFromConfig(config);
      if (scopeKey(next) === scopeKey(policy)) return;
      policy = next;
      if (paused) {
        pendingRebuild = began;
        return;
      }
      if (!standby) void measure(next);
      logger.info('privacy settings changed; re-reading the repository under the new scope');
      void ready.then(() => live.rebuild(next)).catch((err: unknown) => logger.error({ error: err instanceof Error ? err.message : String(err) }, 'index rebuild failed'));
    },
    async pause() {
      if (paused) return;
      paused = true;
      logger.info('workspace paused (Auto Focus): watching and reading stop');
      if (began) await live.suspend();
    },
    async resume() {
      if (!paused) return;
      paused = false;
      logger.info('workspace resumed (Auto Focus): catching up with the repository');
      if (!began) return standby ? undefined : begin();
      await live.resume();
      if (pendingRebuild) {
        pendingRebuild = false;
        await live.rebuild(policy);
      }
    },
    stop: () => {
      replica.stop();
      return live.stop();
    },
  };
}

/** A standby's index state, in the live index's shape (nothing is watched or read here). */
function replicaStatus(replica: IndexReplica): LiveIndexStatus {
  const r = replica.status();
  return {
    state: r.state ?? 'indexing',
    files_indexed: r.files_indexed,
    generation: r.generation,
    head: r.head,
    watch: 'off',
    updated_at: r.synced_at,
    reads: 0,
    suspended: false,
    progress: null,
    error: r.sync_error ?? r.error,
    unsaved: null,
  };
}
