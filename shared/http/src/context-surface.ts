/**
 * The context-only API process (spec 4.5): a replica of the index the daemon stored, answering
 * `POST /v1/context` from memory; with several workers (SOUS_CONTEXT_WORKERS, context-workers.ts)
 * each worker holds its own replica. It reaches the store the way the topology allows:
 *  - server topology (`DATABASE_URL`): reads the index tables in PostgreSQL directly;
 *  - embedded default (PGlite under `.sous/data`, which only one process may open): asks the
 *    daemon of the same workspace for the stored changes (`GET /v1/index/changes`), found through
 *    `.sous/run/daemon.json`. The daemon only reads its store for it; queries never reach it.
 */
import { FocusRegistry, IntegrationReporter, sousHome } from '@sous/focus';
import type { SousConfig } from '@sous/config';
import { IndexReplica, scopePolicyFromConfig, storeIndexFeed, type IndexFeed, type StoredChanges } from '@sous/retrieval';
import { DaemonClient, DaemonUnreachableError, daemonBaseUrl, pidAlive, processPaths, readRunState, type ProcessOptions } from '@sous/runtime';
import { openStore, type Store } from '@sous/store';
import { resolveAccess, serviceHeaders } from './access';
import { contextRoutes, type ContextSource } from './context-routes';
import { contextWorkerCount, startContextWorkers } from './context-workers';
import { startSurface, type RunningSurface, type SurfaceHealth } from './surface';

/** The feed over the daemon's HTTP interface (embedded topology); `headers` carry this process's token. */
function daemonFeed(options: ProcessOptions, headers: Record<string, string>): IndexFeed {
  const paths = processPaths(options);
  return {
    async changesSince(generation, knownHead) {
      const daemon = readRunState(paths, 'daemon');
      if (daemon === undefined || !pidAlive(daemon.pid)) throw new Error(`no daemon is running for ${paths.root}; start it with: sous up --path ${paths.root}`);
      // `head=` (empty) says the reader knows there is no HEAD; leaving it out asks for the signals.
      const head = knownHead === undefined ? '' : `&head=${encodeURIComponent(knownHead ?? '')}`;
      const client = new DaemonClient(daemonBaseUrl(daemon.host, daemon.port), 30_000, headers);
      const path = `/v1/index/changes?since=${generation}${head}`;
      try {
        return await client.get<StoredChanges>(path);
      } catch (err) {
        // A keep-alive connection the daemon closed while this process was busy applying the last
        // page fails at once (UND_ERR_SOCKET); a read is safe to try again on a fresh connection.
        if (!(err instanceof DaemonUnreachableError)) throw err;
        return client.get<StoredChanges>(path);
      }
    },
  };
}

/** The feed over PostgreSQL (server topology); the workspace row appears when the daemon first starts. */
function storeFeed(store: Store, root: string): IndexFeed {
  let feed: IndexFeed | undefined;
  return {
    async changesSince(generation, knownHead) {
      if (feed === undefined) {
        const workspace = await store.workspaces.getByRoot(root);
        if (workspace === undefined) throw new Error(`the daemon has not indexed ${root} yet; start it with the same SOUS_PATH and DATABASE_URL`);
        feed = storeIndexFeed(store.repositoryIndex, workspace.id);
      }
      return feed.changesSince(generation, knownHead);
    },
  };
}

/** A replica as the context routes see it, under this process's own privacy settings. */
export function replicaSource(replica: IndexReplica, config: SousConfig): ContextSource {
  const policy = scopePolicyFromConfig(config);
  return {
    query: (prompt, options) => replica.query(prompt, options),
    status: () => {
      const s = replica.status();
      // A replica that cannot read the store may be behind the daemon: never `ready` then.
      const stale = s.sync_error !== null && s.state !== null;
      return {
        state: stale ? 'stale' : s.state,
        files_indexed: s.files_indexed,
        generation: s.generation,
        error: stale ? `cannot read the stored index since ${s.sync_failing_since}: ${s.sync_error}; answers may be behind the repository` : (s.sync_error ?? s.error),
      };
    },
    policy: () => policy,
  };
}

/** `/healthz` of a context process: `degraded` while its replica cannot read the stored index. */
export function replicaHealth(replica: IndexReplica): SurfaceHealth {
  const s = replica.status();
  const index = { state: s.state, generation: s.generation, files_indexed: s.files_indexed, synced_at: s.synced_at };
  if (s.sync_error === null) return { status: 'ok', index };
  return { status: 'degraded', index, reasons: [{ dependency: 'store', reason: `cannot read the stored index: ${s.sync_error}`, since: s.sync_failing_since }] };
}

/**
 * Starts the context API: one server in this process when `workers` is 1, else a primary with that
 * many worker processes sharing the port. `workers` defaults to SOUS_CONTEXT_WORKERS, else 1
 * (docs/http-api.md).
 */
export async function startContextSurface(name: string, options: ProcessOptions, { workers = contextWorkerCount(process.env) }: { workers?: number } = {}): Promise<RunningSurface> {
  // Checked before any worker starts: a missing or malformed token list is one line from this process.
  resolveAccess(process.env, { host: options.host, surface: 'context' });
  return workers > 1 ? startContextWorkers(name, options, workers) : startContextServer(name, options);
}

/** One context server in this process: opens its feed, syncs once, serves, and keeps syncing in the background. */
export async function startContextServer(name: string, options: ProcessOptions): Promise<RunningSurface> {
  const paths = processPaths(options);
  const store = options.databaseUrl ? await openStore({ databaseUrl: options.databaseUrl, ...(options.databaseSchema ? { schema: options.databaseSchema } : {}) }) : undefined;
  try {
    const access = resolveAccess(process.env, { host: options.host, surface: 'context' });
    const replica = new IndexReplica(store === undefined ? daemonFeed(options, serviceHeaders(access)) : storeFeed(store, paths.root), paths.root);
    await replica.start();
    // Each context request is Sous's own integration at work for the workspace: an Auto Focus signal.
    const integration = new IntegrationReporter(new FocusRegistry(sousHome()), paths.root, name);
    const surface = await startSurface(
      name,
      options,
      (app, config) => {
        contextRoutes(app, replicaSource(replica, config), { onRequest: () => integration.note() });
      },
      () => replicaHealth(replica),
      { access },
    );
    if (replica.status().sync_error !== null) surface.logger.warn({ error: replica.status().sync_error }, 'index not available yet; retrying in the background');
    return {
      ...surface,
      async close() {
        replica.stop();
        await surface.close();
        await store?.close();
      },
    };
  } catch (err) {
    await store?.close();
    throw err;
  }
}
