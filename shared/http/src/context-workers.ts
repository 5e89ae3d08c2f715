/**
 * The context API on several cores: a primary process that forks `count` workers (node:cluster)
 * sharing one port. Each worker is a whole context server (context-worker.ts) with its own replica
 * of the index, synced from the store on its own; the primary only hands out connections
 * (round-robin), replaces a worker that dies, and stops them all on close.
 *
 * Why processes: a query is milliseconds of synchronous work, so one process answers uncached
 * queries on one core. Worker threads would need their own copy of the index just the same (a
 * heap is per thread), and would leave HTTP parsing on one thread.
 */
import cluster, { type Worker } from 'node:cluster';
import * as path from 'node:path';
import Joi from 'joi';
import { createLogger } from '@sous/logging';
import { processPaths, type ProcessOptions } from '@sous/runtime';
import type { RunningSurface } from './surface';

/** Environment variable that sets the number of context workers (1 = a single process). */
export const CONTEXT_WORKERS_ENV = 'SOUS_CONTEXT_WORKERS';
/**
 * Workers by default: one, the process itself. A second worker only pays on a host with an idle
 * core (on 2 shared cores it measured slower), while each worker holds its own replica (about
 * 300 MB at 5,000 files), its own answer cache, and polls the store on its own.
 */
export const DEFAULT_CONTEXT_WORKERS = 1;
/** The most workers SOUS_CONTEXT_WORKERS accepts. */
export const MAX_CONTEXT_WORKERS = 64;
/** Environment variable that carries a worker's start parameters (set by the primary). */
export const CONTEXT_WORKER_START_ENV = 'SOUS_CONTEXT_WORKER_START';

/** A worker's first restart waits this long; each failure before it is ready doubles the wait. */
const RESTART_DELAY_MS = 1000;
const MAX_RESTART_DELAY_MS = 60_000;
/** A worker that has not stopped this long after being told is killed. */
const STOP_TIMEOUT_MS = 10_000;

/** What a worker tells the primary. */
export type WorkerMessage = { sous: 'ready'; port: number } | { sous: 'failed'; message: string };
/** What the primary tells a worker. */
export type PrimaryMessage = { sous: 'stop' };
/** What a worker is started with (CONTEXT_WORKER_START_ENV, JSON). */
export interface WorkerStart {
  name: string;
  options: ProcessOptions;
}

const workersSchema = Joi.number().integer().min(1).max(MAX_CONTEXT_WORKERS);

/** The worker count from SOUS_CONTEXT_WORKERS, or DEFAULT_CONTEXT_WORKERS. */
export function contextWorkerCount(env: NodeJS.ProcessEnv): number {
  const raw = env[CONTEXT_WORKERS_ENV];
  if (raw === undefined || raw.trim() === '') return DEFAULT_CONTEXT_WORKERS;
  const { error, value } = workersSchema.validate(raw.trim(), { convert: true });
  if (error) throw new Error(`${CONTEXT_WORKERS_ENV} must be an integer from 1 to ${MAX_CONTEXT_WORKERS} (found ${JSON.stringify(raw)})`);
  return value as number;
}

const isWorkerMessage = (msg: unknown): msg is WorkerMessage => typeof msg === 'object' && msg !== null && 'sous' in msg;

/**
 * Starts `count` workers on options.port and resolves once every one answers; rejects with the
 * first worker's error (a busy port, an unreachable store) after stopping the others.
 */
export async function startContextWorkers(name: string, options: ProcessOptions, count: number): Promise<RunningSurface> {
  const paths = processPaths(options);
  const logger = createLogger({ name, file: `${paths.logs}/${name}.log`, level: options.logLevel });
  const start: WorkerStart = { name, options };
  cluster.setupPrimary({ exec: path.join(__dirname, 'context-worker.js'), args: [] });
  const workers = new Set<Worker>();
  const timers = new Set<NodeJS.Timeout>();
  let serving = false;
  let stopping = false;
  let restartDelay = RESTART_DELAY_MS;

  const fork = (): Promise<number> =>
    new Promise((resolve, reject) => {
      const worker = cluster.fork({ [CONTEXT_WORKER_START_ENV]: JSON.stringify(start) });
      workers.add(worker);
      let ready = false;
      // A message sent as the worker dies fails on a closed channel (EPIPE): its exit says what
      // happened, and an unheard 'error' would end the primary with exit code 1 instead of a clear line.
      worker.on('error', (err: Error) => logger.warn({ pid: worker.process.pid, error: err.message }, 'context worker channel error'));
      worker.on('message', (msg: unknown) => {
        if (!isWorkerMessage(msg)) return;
        if (msg.sous === 'ready') {
          ready = true;
          restartDelay = RESTART_DELAY_MS;
          resolve(msg.port);
        } else reject(new Error(msg.message));
      });
      worker.on('exit', (code, signal) => {
        workers.delete(worker);
        reject(new Error(`a context worker exited (${signal ?? `code ${code}`}) before it could serve; see the ${name} log`));
        // A worker that served and died is replaced even while others are still starting (a start
        // that fails later clears the timer in close); one that never served fails the start instead.
        if (stopping || (!serving && !ready)) return;
        logger.error({ pid: worker.process.pid, code, signal, ready, restart_in_ms: restartDelay }, 'context worker exited; starting a new one');
        const timer = setTimeout(() => {
          timers.delete(timer);
          fork().catch((err: unknown) => logger.error({ error: err instanceof Error ? err.message : String(err) }, 'context worker did not start'));
        }, restartDelay);
        timers.add(timer);
        if (!ready) restartDelay = Math.min(restartDelay * 2, MAX_RESTART_DELAY_MS);
      });
    });

  const stop = (worker: Worker): Promise<void> =>
    new Promise((resolve) => {
      if (worker.isDead()) return resolve();
      const kill = setTimeout(() => worker.process.kill('SIGKILL'), STOP_TIMEOUT_MS);
      worker.once('exit', () => {
        clearTimeout(kill);
        resolve();
      });
      try {
        worker.send({ sous: 'stop' } satisfies PrimaryMessage);
      } catch {
        worker.process.kill('SIGTERM');
      }
    });

  const close = async (): Promise<void> => {
    stopping = true;
    for (const timer of timers) clearTimeout(timer);
    timers.clear();
    await Promise.all([...workers].map(stop));
  };

  let port: number;
  try {
    // Every worker listens on options.port; with port 0 node:cluster gives them all the same one.
    [port = options.port] = await Promise.all(Array.from({ length: count }, fork));
  } catch (err) {
    await close();
    throw err;
  }
  serving = true;
  logger.info({ host: options.host, port, workers: count }, `${name} started with ${count} workers`);
  return { port, logger, close };
}
