import type * as http from 'node:http';
import * as fs from 'node:fs';
import { ensureConfigFile, loadConfig, watchConfig, type ConfigWatcher, type SousConfig, type SousPaths } from '@sous/config';
import { configHostPolicy, createApp, describeAccess, fromForeignPage, listen, listRoutes, boundPort, closeServer, isLoopbackHost, resolveAccess, type RouteInfo } from '@sous/http';
import { createJobQueue, type JobQueue } from '@sous/jobs';
import { createLogger, type Logger } from '@sous/logging';
import { compileRedactPatterns, SOUS_VERSION } from '@sous/protocol';
import { DaemonClient, daemonBaseUrl, processPaths, removeRunState, writeRunState } from '@sous/runtime';
import { openStore, type Store } from '@sous/store';
import { BackendMonitor } from './backend-monitor';
import type { ProcessOptions as DaemonOptions } from '@sous/runtime';
import { registerMaintenanceJobs } from './maintenance-jobs';
import { mirrorJobs, settleLeftovers } from './job-records';
import { statusRoutes } from './routes/status';
import { jobRoutes } from './routes/jobs';
import { cockpitRoutes, isCockpitShellPath } from './routes/cockpit';
import { indexRoutes } from './routes/context';
import { startDaemonIndex, type DaemonIndex } from './repository-index';
import { startPreparation, type Preparation } from './preparation';
import { startSemantic, type DaemonSemantic } from './semantic';
import { FocusMonitor, FocusRegistry, defaultProcessSource, detectClients, processesUnder, sousHome } from '@sous/focus';
import { focusRoutes } from './routes/focus';
import { goalRoutes } from './routes/goals';
import { predictionRoutes } from './routes/predictions';
import { resolveRoutes } from './routes/resolve';
import { skillRoutes } from './routes/skills';
import { createSousMcpServer, mcpHttpRoutes } from '@sous/mcp';
import { preparedWorkRoutes } from './routes/prepared-work';
import { reRedactStoredWork } from '@sous/engine';
import { eventRoutes } from './routes/events';
import { resourceRoutes } from './routes/resources';
import { signalRoutes } from './routes/signals';
import { setupRoutes } from './routes/setup';
import { configRoutes } from './routes/config';
import { lifecycleRoutes } from './routes/lifecycle';
import { clientRoutes } from './routes/clients';
import { jobView, type JobView } from './job-view';
import { defaultQueueName } from './queue-name';
import { startRepositoryRole, type RepositoryRole, type RoleStatus } from './repository-role';
import { startDeepRuns, type DeepRunTuning } from './deep-run';
import { deepRunRoutes } from './routes/deep-run';
import type { DeepRuns } from '@sous/engine';

/** Everything a running daemon holds; routes read from it, shutdown closes it in order. */
export interface DaemonContext {
  options: DaemonOptions;
  paths: SousPaths;
  logger: Logger;
  store: Store;
  /** The shared queue: preparation cycles, run by any process of the repository. */
  queue: JobQueue;
  /** Every queue of this daemon read as one (`/jobs`): the shared one and the watcher's own. */
  jobs: JobView;
  /** Watcher or standby (docs/jobs.md, "Scale-out"). */
  role(): RoleStatus;
  backend: BackendMonitor;
  /** The live repository index (retrieval). */
  index: DaemonIndex;
  /** Preparation cycles, the Prepared Work feed and engine events. */
  preparation: Preparation;
  /** The optional semantic stage of retrieval: chunk embeddings in idle time, fused into /v1/context. */
  semantic: DaemonSemantic;
  /** Auto Focus: may this daemon read and prepare its workspace, and why (not). */
  focus: FocusMonitor;
  /** Deep-Run sessions: long-horizon series of preparation steps (docs/deep-run.md). */
  deepRuns: DeepRuns;
  workspaceId: string;
  startedAt: Date;
  /** The current (hot-reloaded) configuration. */
  config(): SousConfig;
  configState(): { loadedAt: string; lastError?: string };
  watchMode(): { mode: 'native' | 'polling'; reason?: string };
  boundPort(): number;
}

export interface RunningDaemon {
  port: number;
  context: DaemonContext;
  /** Every HTTP route the daemon serves. */
  routes: RouteInfo[];
  /** Graceful stop: HTTP first, then jobs (grace, then cancel), watcher, store. */
  close(reason?: string): Promise<void>;
}

/** How the daemon was started (services/daemon/src/supervision.ts). */
export interface DaemonSupervision {
  /** The supervisor that started this daemon; recorded in `run/daemon.json`. Default: none. */
  supervisorPid?: number;
  /**
   * Stops the whole process as `sous down` would (the supervisor first, so it does not restart the
   * daemon). Set by the daemon's entry point; absent in-process (tests), where `POST /lifecycle/stop`
   * answers 501.
   */
  requestStop?: () => void;
  /**
   * This daemon lost the repository's lease (server topology) and stopped watching; the entry point
   * exits non-zero so it is restarted as a standby. Default: it stays up as a standby that no longer
   * contends.
   */
  onWatcherLost?: (reason: string) => void;
}

/** Seams of a daemon started in-process (tests): defaults are the real clock, pauses and prices. */
export interface DaemonSeams {
  deepRun?: DeepRunTuning;
}

/** How often a standby reads the stored index for its reads (`/v1/context`, `/status`). */
const STANDBY_SYNC_MS = 1_000;

/** Grace period for running jobs at shutdown before they are cancelled. */
export const SHUTDOWN_GRACE_MS = 10_000;

/**
 * Starts the daemon: config (with hot reload), logs, store, job queue, HTTP interface.
 * Throws a one-line error (port busy, store locked, invalid config) before anything is left half-open.
 */
export async function startDaemon(options: DaemonOptions, supervision: DaemonSupervision = {}, seams: DaemonSeams = {}): Promise<RunningDaemon> {
  const paths = processPaths(options);
  if (!fs.existsSync(paths.root)) throw new Error(`workspace ${paths.root} does not exist`);
  await ensureConfigFile(paths);

  let config = loadConfig(paths.config);
  let configLoadedAt = new Date().toISOString();
  let configError: string | undefined;
  let redact = compileRedactPatterns(config.privacy.redact_patterns);
  const logger = createLogger({
    name: 'daemon',
    file: `${paths.logs}/daemon.log`,
    level: options.logLevel,
    redactPatterns: () => redact,
  });
  // Tokens and rate limit (docs/deployment.md): refused here, before anything opens, when malformed
  // or missing on a non-loopback address.
  const access = resolveAccess(process.env, { host: options.host, surface: 'daemon' });
  for (const warning of access.warnings) logger.warn(warning);

  const cleanup: Array<() => Promise<void>> = [];
  try {
    const store = await openStore({ databaseUrl: options.databaseUrl, dataDir: paths.data, ...(options.databaseSchema ? { schema: options.databaseSchema } : {}) });
    cleanup.unshift(() => store.close());
    const workspace = await store.workspaces.upsertByRoot({ rootPath: paths.root });
    // Prepared work stored under other redact patterns is redacted again before anything is served.
    const reRedact = (patterns: RegExp[]): Promise<void> =>
      reRedactStoredWork(store, workspace.id, patterns).then((r) => {
        if (r.ran) logger.info({ cards: r.workProducts.length, resolutions: r.resolutions, predictions: r.predictions }, 'stored prepared work redacted under the current privacy.redact_patterns');
      });
    await reRedact(redact);

    const queueName = options.queueName ?? defaultQueueName(paths.root);
    const queueOptions = {
      redisUrl: options.redisUrl,
      concurrency: options.workerConcurrency,
      timeoutSeconds: () => config.compute.max_cycle_seconds,
      onError: (err: Error) => logger.warn({ error: err.message }, 'job queue problem'),
    };
    const queue = createJobQueue({ ...queueOptions, queueName });
    // Jobs that work on the watcher's memory (embedding steps) run only on the watcher: a queue of its own.
    const watcherQueue = options.redisUrl ? createJobQueue({ ...queueOptions, queueName: `${queueName}.watcher` }) : queue;
    for (const q of new Set([queue, watcherQueue])) {
      const jobWrites = mirrorJobs(q, store, logger);
      cleanup.unshift(() => jobWrites());
      cleanup.unshift(() => q.close({ graceMs: SHUTDOWN_GRACE_MS }));
    }

    const backend = new BackendMonitor(() => config);
    // Built in the background: /status reports `index.state` while it catches up.
    // Auto Focus first: a paused workspace is not read at all, not even for the first index.
    let index: DaemonIndex | undefined;
    // SOUS_TEST_CLIENT_DIR (tests only): clients are looked for only among executables in that folder.
    const testClients = process.env.SOUS_TEST_CLIENT_DIR;
    const focus = new FocusMonitor({
      registry: new FocusRegistry(sousHome()),
      root: paths.root,
      ...(testClients ? { detect: () => detectClients(processesUnder(defaultProcessSource(), testClients)) } : {}),
      onChange: (own) => {
        logger.info({ focus: own.class }, 'focus changed');
        if (own.class === 'paused') void index?.pause();
        else if (index?.paused()) void index.resume();
      },
      onProblem: (message) => logger.warn({ error: message }, 'focus registry unreadable; keeping the last decision'),
    });
    await focus.start();
    cleanup.unshift(async () => focus.stop());
    // Signals reach preparation once it exists (it needs the index it listens to).
    let preparation: Preparation | undefined;
    let semantic: DaemonSemantic | undefined;
    index = startDaemonIndex({
      root: paths.root,
      store,
      workspaceId: workspace.id,
      config,
      polling: options.watchPolling,
      logger,
      // Server topology: nothing is watched or written until this process holds the repository's lease.
      ...(options.redisUrl ? { standby: { replicaSyncMs: STANDBY_SYNC_MS } } : {}),
      mayRead: () => focus.mayRead(),
      onSignal: (s) => {
        focus.noteFileChange();
        preparation?.signal(s);
        semantic?.signal();
      },
    });
    const activeIndex = index;
    cleanup.unshift(() => activeIndex.stop());
    preparation = startPreparation({ store, queue, index, workspaceId: workspace.id, root: paths.root, config: () => config, backend, focus, logger });
    const activePreparation = preparation;
    cleanup.unshift(async () => activePreparation.close());
    const deepRuns = startDeepRuns({ store, queue, index, workspaceId: workspace.id, config: () => config, focus, events: preparation.events, logger, ...(seams.deepRun ? { tuning: seams.deepRun } : {}) });
    cleanup.unshift(async () => deepRuns.close());
    semantic = startSemantic({ store, queue: watcherQueue, index, workspaceId: workspace.id, config: () => config, backend, focus, logger });
    const activeSemantic = semantic;
    cleanup.unshift(async () => activeSemantic.close());
    let port = options.port;
    let watcher: ConfigWatcher | undefined;
    let role: RepositoryRole | undefined;
    const context: DaemonContext = {
      options,
      paths,
      logger,
      store,
      queue,
      jobs: jobView([queue, watcherQueue]),
      role: () => role?.status() ?? { role: 'standby', since: new Date().toISOString(), lease: null, lost: null },
      backend,
      index,
      preparation,
      semantic,
      focus,
      deepRuns,
      workspaceId: workspace.id,
      startedAt: new Date(),
      config: () => config,
      configState: () => (configError ? { loadedAt: configLoadedAt, lastError: configError } : { loadedAt: configLoadedAt }),
      watchMode: () => (watcher ? (watcher.reason ? { mode: watcher.mode, reason: watcher.reason } : { mode: watcher.mode }) : { mode: 'native' }),
      boundPort: () => port,
    };
    registerMaintenanceJobs(queue, backend);
    // Before the queue starts: every record still queued or running is a killed daemon's.
    await settleLeftovers(context.jobs, store, logger);
    // Sessions a stopped daemon left running: each resumes with its next step, or ends saying why.
    // Before the queue starts, so a step claimed in this process's name can only be a previous one's.
    await deepRuns.resume().then(
      (ids) => ids.length > 0 && logger.info({ sessions: ids }, 'deep-run sessions resumed'),
      (err: unknown) => logger.warn({ error: err instanceof Error ? err.message : String(err) }, 'deep-run sessions not resumed'),
    );
    await queue.start();
    role = await startRepositoryRole({
      redisUrl: options.redisUrl,
      queueName,
      workspaceId: workspace.id,
      leaseMs: options.leaseMs,
      logger,
      onWatcher: () => {
        activeIndex.promote();
        if (watcherQueue !== queue) void watcherQueue.start().catch((err: unknown) => logger.error({ error: err instanceof Error ? err.message : String(err) }, 'watcher queue not started'));
      },
      onLost: (reason) => {
        // Another process may be the watcher already: no more watching, index writes or scheduling here.
        activePreparation.close();
        activeSemantic.close();
        void activeIndex.stop();
        void watcherQueue.close({ graceMs: 0 });
        supervision.onWatcherLost?.(reason);
      },
    });
    const activeRole = role;
    // Released last but for the store: the index has stopped writing before another process may take over.
    cleanup.splice(cleanup.length - 1, 0, () => activeRole.stop());

    let mcp: { close(): Promise<void> } | undefined;
    cleanup.unshift(async () => mcp?.close());
    const policy = configHostPolicy(() => config, () => port);
    const app = createApp({
      logger,
      ...policy,
      access,
      // A browser cannot send a token when it navigates: the cockpit's static shell (no data) is open.
      openPaths: isCockpitShellPath,
      routes: (a) => {
        // Sous's own integrations at work for this workspace (an MCP request, or any client naming
        // itself with X-Sous-Client) are an Auto Focus signal. Noted once the request was accepted:
        // a refused request, a GET to /mcp or a page of another site changes nothing.
        a.use((req, res, next) => {
          // (`/v1/context` notes its requests itself: repeats are answered before this middleware.)
          if (req.path !== '/v1/context' && (req.get('x-sous-client') !== undefined || (req.path === '/mcp' && req.method === 'POST'))) {
            res.once('finish', () => {
              if (res.statusCode < 400 && !fromForeignPage(req.headers, policy)) focus.noteIntegration();
            });
          }
          next();
        });
        cockpitRoutes(a);
        statusRoutes(a, context);
        jobRoutes(a, context);
        indexRoutes(a, context);
        preparedWorkRoutes(a, context);
        eventRoutes(a, context);
        resourceRoutes(a, context);
        focusRoutes(a, context);
        signalRoutes(a, context);
        goalRoutes(a, context);
        setupRoutes(a, context);
        configRoutes(a, context);
        clientRoutes(a, context);
        lifecycleRoutes(a, context, supervision.requestStop);
        predictionRoutes(a, context);
        resolveRoutes(a, context);
        skillRoutes(a, context);
        deepRunRoutes(a, context);
        // MCP over HTTP on the daemon's own port (docs/mcp.md): tools call this daemon's API.
        // The client is made per request: `port` is the bound port once the server listens. The
        // tools' calls carry the caller's own token: they count as that client's, not anyone else's.
        mcp = mcpHttpRoutes(a, (req) => {
          const authorization = req.get('authorization');
          const headers: Record<string, string> = { 'x-sous-client': 'mcp', ...(authorization !== undefined ? { authorization } : {}) };
          return createSousMcpServer({ daemon: async () => new DaemonClient(daemonBaseUrl(loopbackFor(options.host), port), 10_000, headers), workspace: paths.root, toolNames: config.mcp.tool_names, version: SOUS_VERSION });
        });
      },
    });
    const server: http.Server = await listen(app, options.host, options.port);
    port = boundPort(server);
    cleanup.unshift(() => closeServer(server));
    if (!isLoopbackHost(options.host)) logger.warn({ host: options.host }, 'bound to a non-loopback address; keep it on a private network behind TLS');

    watcher = watchConfig(paths.config, {
      onChange(next) {
        config = next;
        configLoadedAt = new Date().toISOString();
        configError = undefined;
        redact = compileRedactPatterns(next.privacy.redact_patterns);
        logger.info('config reloaded');
        index.configChanged(next);
        activePreparation.configChanged();
        void reRedact(redact).catch((err: unknown) => logger.error({ error: err instanceof Error ? err.message : String(err) }, 'stored prepared work not redacted again'));
        void backend.check().then(() => activeSemantic.configChanged());
      },
      onError(err) {
        configError = err.message;
        logger.warn({ error: err.message }, 'config change refused; keeping the last valid config');
      },
    }, { polling: options.watchPolling });
    const activeWatcher = watcher;
    cleanup.unshift(async () => activeWatcher.close());
    if (watcher.mode === 'polling') logger.warn({ reason: watcher.reason }, 'file watching fell back to polling');

    backend.start();
    cleanup.unshift(async () => backend.stop());
    await queue.enqueue('maintenance.probe_backend', {});

    writeRunState(paths, 'daemon', { pid: process.pid, host: options.host, port, started_at: context.startedAt.toISOString(), version: SOUS_VERSION, workspace: paths.root, supervisor_pid: supervision.supervisorPid ?? null });
    logger.info({ host: options.host, port, store: store.kind, queue: queue.kind, workspace: paths.root, ...describeAccess(access) }, 'daemon started');

    let closing: Promise<void> | undefined;
    return {
      port,
      context,
      routes: listRoutes(app),
      close(reason = 'shutdown') {
        closing ??= (async () => {
          logger.info({ reason }, 'daemon stopping');
          await runAll(cleanup, logger);
          removeRunState(paths, 'daemon', process.pid);
          logger.info('daemon stopped');
        })();
        return closing;
      },
    };
  } catch (err) {
    await runAll(cleanup, logger);
    logger.error({ error: err instanceof Error ? err.message : String(err) }, 'daemon failed to start');
    throw err;
  }
}

/** The address the daemon reaches itself at: loopback when it binds every interface. */
function loopbackFor(host: string): string {
  return host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host;
}


/** Runs every cleanup step even when one fails, logging what could not be closed. */
async function runAll(steps: Array<() => Promise<void>>, logger: Logger): Promise<void> {
  for (const step of steps) {
    try {
      await step();
    } catch (err) {
      logger.error({ error: err instanceof Error ? err.message : String(err) }, 'shutdown step failed');
    }
  }
}
