/**
 * The worker-only process (docs/jobs.md, "Scale-out"): an extra consumer of a repository's shared
 * job queue in the server topology. It runs preparation cycles from the stored index (brought up to
 * date from PostgreSQL before each job), never watches the repository, never takes the watcher's
 * lease, never schedules work, and serves nothing but `GET /healthz` on loopback.
 */
import * as fs from 'node:fs';
import * as http from 'node:http';
import { ensureConfigFile, loadConfig, watchConfig, type SousConfig } from '@sous/config';
import { boundPort, closeServer } from '@sous/http';
import { createJobQueue, runnerIdentity } from '@sous/jobs';
import { createLogger, type Logger } from '@sous/logging';
import { processPaths, type ProcessOptions } from '@sous/runtime';
import { openStore } from '@sous/store';
import { FocusMonitor, FocusRegistry, defaultProcessSource, detectClients, processesUnder, sousHome } from '@sous/focus';
import { BackendMonitor } from './backend-monitor';
import { mirrorJobs } from './job-records';
import { registerMaintenanceJobs } from './maintenance-jobs';
import { startPreparation } from './preparation';
import { startDeepRuns } from './deep-run';
import { startDaemonIndex } from './repository-index';
import { defaultQueueName } from './queue-name';

export interface RunningWorker {
  /** The loopback health port. */
  port: number;
  logger: Logger;
  close(reason?: string): Promise<void>;
}

/** Grace for a running job when the worker stops, before it is cancelled. */
const WORKER_GRACE_MS = 10_000;

/** Starts the worker; throws one line (missing PostgreSQL or Redis, bad workspace) before anything is left open. */
export async function startWorker(options: ProcessOptions): Promise<RunningWorker> {
  if (!options.databaseUrl || !options.redisUrl) {
    throw new Error('the worker runs only in the server topology: set DATABASE_URL and REDIS_URL (the daemon of this repository uses the same)');
  }
  const paths = processPaths(options);
  if (!fs.existsSync(paths.root)) throw new Error(`workspace ${paths.root} does not exist`);
  await ensureConfigFile(paths);
  let config: SousConfig = loadConfig(paths.config);
  const logger = createLogger({ name: 'worker', file: `${paths.logs}/worker.log`, level: options.logLevel });
  const cleanup: Array<() => Promise<void>> = [];
  const close = async (): Promise<void> => {
    for (const step of cleanup.splice(0)) {
      try {
        await step();
      } catch (err) {
        logger.error({ error: err instanceof Error ? err.message : String(err) }, 'shutdown step failed');
      }
    }
  };
  try {
    const store = await openStore({ databaseUrl: options.databaseUrl, dataDir: paths.data, ...(options.databaseSchema ? { schema: options.databaseSchema } : {}) });
    cleanup.unshift(() => store.close());
    const workspace = await store.workspaces.upsertByRoot({ rootPath: paths.root });
    const queue = createJobQueue({
      redisUrl: options.redisUrl,
      queueName: options.queueName ?? defaultQueueName(paths.root),
      concurrency: options.workerConcurrency,
      timeoutSeconds: () => config.compute.max_cycle_seconds,
      onError: (err) => logger.warn({ error: err.message }, 'job queue problem'),
    });
    const jobWrites = mirrorJobs(queue, store, logger);
    cleanup.unshift(() => jobWrites());
    cleanup.unshift(() => queue.close({ graceMs: WORKER_GRACE_MS }));
    const backend = new BackendMonitor(() => config);
    backend.start();
    cleanup.unshift(async () => backend.stop());
    const testClients = process.env.SOUS_TEST_CLIENT_DIR;
    const focus = new FocusMonitor({
      registry: new FocusRegistry(sousHome()),
      root: paths.root,
      ...(testClients ? { detect: () => detectClients(processesUnder(defaultProcessSource(), testClients)) } : {}),
      onProblem: (message) => logger.warn({ error: message }, 'focus registry unreadable; keeping the last decision'),
    });
    await focus.start();
    cleanup.unshift(async () => focus.stop());
    // A standby index never promoted: jobs read the stored index, synced when each job starts.
    const index = startDaemonIndex({ root: paths.root, store, workspaceId: workspace.id, config, polling: false, logger, standby: { replicaSyncMs: 0 } });
    cleanup.unshift(() => index.stop());
    const preparation = startPreparation({ store, queue, index, workspaceId: workspace.id, root: paths.root, config: () => config, backend, focus, logger });
    cleanup.unshift(async () => preparation.close());
    registerMaintenanceJobs(queue, backend);
    // Deep-Run steps are on the shared queue too: a step this worker runs queues the session's next one.
    const deepRuns = startDeepRuns({ store, queue, index, workspaceId: workspace.id, config: () => config, focus, events: preparation.events, logger });
    cleanup.unshift(async () => deepRuns.close());
    const watcher = watchConfig(paths.config, {
      onChange(next) {
        config = next;
        index.configChanged(next);
        logger.info('config reloaded');
      },
      onError(err) {
        logger.warn({ error: err.message }, 'config change refused; keeping the last valid config');
      },
    });
    cleanup.unshift(async () => watcher.close());
    await queue.start();

    // Loopback only: a container healthcheck, nothing else.
    const server = http.createServer((req, res) => {
      if (req.method !== 'GET' || req.url !== '/healthz') {
        res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { code: 'not_found', message: 'the worker serves only GET /healthz' } }));
        return;
      }
      void Promise.all([store.health(), queue.health()]).then(([s, q]) => {
        const ok = s.ok && q.ok;
        res.writeHead(ok ? 200 : 503, { 'content-type': 'application/json' }).end(JSON.stringify({ status: ok ? 'ok' : 'degraded', role: 'worker', runner: runnerIdentity(), store: s.ok, queue: q.ok }));
      });
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(options.port, '127.0.0.1', () => resolve());
    });
    cleanup.unshift(() => closeServer(server));
    const port = boundPort(server);
    logger.info({ port, queue: options.queueName ?? defaultQueueName(paths.root), concurrency: options.workerConcurrency, workspace: paths.root, runner: runnerIdentity() }, 'worker started');
    let closing: Promise<void> | undefined;
    return {
      port,
      logger,
      close(reason = 'shutdown') {
        closing ??= (async () => {
          logger.info({ reason }, 'worker stopping');
          await close();
          logger.info('worker stopped');
        })();
        return closing;
      },
    };
  } catch (err) {
    await close();
    throw err;
  }
}
