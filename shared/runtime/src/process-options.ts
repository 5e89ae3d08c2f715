import Joi from 'joi';
import { sousPaths, type SousPaths } from '@sous/config';
import { DEFAULT_HOST } from '@sous/protocol';

/** How a Sous process (daemon, proxy, context API) was asked to run: flags first, then SOUS_* environment, then defaults. */
export interface ProcessOptions {
  /** Workspace (repository) root. Flag `--path`, env SOUS_PATH; default: current directory. */
  path: string;
  /** Bind address. Flag `--host`, env SOUS_HOST; default 127.0.0.1. */
  host: string;
  /** Port. Flag `--port`, env SOUS_PORT; default per process (8473, 8471, 8472). 0 picks a free port (tests). */
  port: number;
  /** State folder instead of `<path>/.sous`. Flag `--state-dir`, env SOUS_STATE_DIR. */
  stateDir?: string;
  /** PostgreSQL URL; embedded PGlite when absent. Env DATABASE_URL. */
  databaseUrl?: string;
  /** PostgreSQL schema for Sous's tables (one per workspace on a shared server). Env SOUS_DB_SCHEMA; default `public`. */
  databaseSchema?: string;
  /** Redis URL; in-process queue when absent. Env REDIS_URL. */
  redisUrl?: string;
  /** BullMQ queue name. Env SOUS_QUEUE_NAME; default derived from the workspace path, so daemons of several repositories can share one Redis. */
  queueName?: string;
  /**
   * Lease time in ms of the repository's watcher lease (server topology: one watcher per repository,
   * taken over within this when it dies). Env SOUS_LEASE_MS; default 15000, at least 1000.
   */
  leaseMs: number;
  /** Jobs one process runs at once. Env SOUS_WORKER_CONCURRENCY; default 1. */
  workerConcurrency: number;
  /** pino level. Env LOG_LEVEL; default info. */
  logLevel: string;
  /** Watch files by polling instead of native events. Env SOUS_WATCH_POLLING=1 (for file systems without events). */
  watchPolling: boolean;
  /** Boolean flags the process declared (e.g. `--context-only`). */
  switches: string[];
}

/** Default of SOUS_LEASE_MS (the same as @sous/jobs' DEFAULT_LEASE_MS). */
export const DEFAULT_LEASE_MS = 15_000;

const schema = Joi.object({
  path: Joi.string().required(),
  host: Joi.string().hostname().required(),
  port: Joi.number().integer().min(0).max(65535).required(),
  stateDir: Joi.string(),
  databaseUrl: Joi.string().uri({ scheme: ['postgres', 'postgresql'] }),
  databaseSchema: Joi.string().pattern(/^[a-z_][a-z0-9_]{0,62}$/),
  redisUrl: Joi.string().uri({ scheme: ['redis', 'rediss'] }),
  queueName: Joi.string().pattern(/^[A-Za-z0-9_.-]{1,100}$/),
  watchPolling: Joi.boolean().required(),
  leaseMs: Joi.number().integer().min(1000).max(3_600_000).required().label('SOUS_LEASE_MS'),
  workerConcurrency: Joi.number().integer().min(1).max(64).required().label('SOUS_WORKER_CONCURRENCY'),
  logLevel: Joi.string().valid('trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent').required(),
});

/**
 * Parses `--flag value` pairs (and the boolean `switches` a process accepts); unknown flags are an
 * error (one line), not ignored.
 */
export function parseProcessOptions(argv: string[], env: NodeJS.ProcessEnv, defaults: { port: number; switches?: string[] }): ProcessOptions {
  const flags: Record<string, string> = {};
  const switches: string[] = [];
  const known = new Set(['--path', '--host', '--port', '--state-dir']);
  const allowedSwitches = new Set(defaults.switches ?? []);
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    if (allowedSwitches.has(arg)) {
      switches.push(arg);
      continue;
    }
    const [name, inline] = arg.includes('=') ? arg.split(/=(.*)/s, 2) : [arg, undefined];
    if (!name || !known.has(name)) throw new Error(`unknown option ${arg}; expected --path, --host, --port, --state-dir${[...allowedSwitches].map((s) => ` or ${s}`).join('')}`);
    const value = inline ?? argv[++i];
    if (value === undefined) throw new Error(`option ${name} needs a value`);
    flags[name] = value;
  }
  const raw = {
    path: flags['--path'] ?? env.SOUS_PATH ?? process.cwd(),
    host: flags['--host'] ?? env.SOUS_HOST ?? DEFAULT_HOST,
    port: Number(flags['--port'] ?? env.SOUS_PORT ?? defaults.port),
    stateDir: flags['--state-dir'] ?? (env.SOUS_STATE_DIR || undefined),
    databaseUrl: env.DATABASE_URL || undefined,
    databaseSchema: env.SOUS_DB_SCHEMA || undefined,
    redisUrl: env.REDIS_URL || undefined,
    queueName: env.SOUS_QUEUE_NAME || undefined,
    logLevel: env.LOG_LEVEL || 'info',
    watchPolling: env.SOUS_WATCH_POLLING === '1',
    leaseMs: env.SOUS_LEASE_MS ? Number(env.SOUS_LEASE_MS) : DEFAULT_LEASE_MS,
    workerConcurrency: env.SOUS_WORKER_CONCURRENCY ? Number(env.SOUS_WORKER_CONCURRENCY) : 1,
  };
  const { error, value } = schema.validate(raw, { stripUnknown: true });
  if (error) throw new Error(`invalid daemon option: ${error.details[0]?.message.replace(/"/g, '') ?? error.message}`);
  return { ...(value as Omit<ProcessOptions, 'switches'>), switches };
}

/** The state paths a process works with: `<path>/.sous`, or `--state-dir` / SOUS_STATE_DIR. */
export function processPaths(options: Pick<ProcessOptions, 'path' | 'stateDir'>): SousPaths {
  return sousPaths(options.path, options.stateDir ? { stateDir: options.stateDir } : {});
}
