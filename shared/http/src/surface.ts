import type { Express } from 'express';
import { loadConfig, type SousConfig } from '@sous/config';
import { createLogger, type Logger } from '@sous/logging';
import { compileRedactPatterns, SOUS_VERSION } from '@sous/protocol';
import { processPaths, type ProcessOptions } from '@sous/runtime';
import { describeAccess, resolveAccess, type AccessPolicy, type SurfaceKind } from './access';
import { createApp, listRoutes, type RouteInfo } from './app';
import { mayReadDetails, type ErrorWriter } from './gate';
import { configHostPolicy } from './guards';
import { listen, boundPort, closeServer } from './listen';

/** One dependency a process is degraded by: which, why (one line), since when (ISO time, or null if unknown). */
export interface DegradedReason {
  dependency: 'store' | 'queue' | 'index';
  reason: string;
  since: string | null;
}

/** What `GET /healthz` adds to `service` and `version`: `degraded` with the reasons while a dependency fails. */
export interface SurfaceHealth {
  status: 'ok' | 'degraded';
  reasons?: DegradedReason[];
  [extra: string]: unknown;
}

/** A running secondary surface (proxy, context API). */
export interface RunningSurface {
  port: number;
  logger: Logger;
  /** The routes this process serves itself (absent for a primary whose workers serve). */
  routes?: RouteInfo[];
  /** Its tokens and rate limit. */
  access?: AccessPolicy;
  close(): Promise<void>;
}

/** What a surface may set besides its routes. */
export interface SurfaceExtras {
  bodyLimitBytes?: number;
  /** How 401 and 429 answers are written (the proxy's OpenAI shape). */
  sendError?: ErrorWriter;
  /** Where tokens and limits are read from; default process.env. */
  env?: NodeJS.ProcessEnv;
  /** The policy, when the caller already resolved it (the token file is then read once). */
  access?: AccessPolicy;
}

/**
 * Starts a small Sous HTTP surface with the same guards, limits and error shape as the daemon:
 * `GET /healthz` plus the routes given. Reads the workspace config once (allowed hosts, redaction)
 * and its tokens and rate limit from the environment (access.ts; throws one line when they are
 * malformed or missing off loopback).
 */
export async function startSurface(
  name: string,
  options: ProcessOptions,
  routes: (app: Express, config: SousConfig, logger: Logger, access: AccessPolicy) => void,
  health: () => SurfaceHealth = () => ({ status: 'ok' }),
  { bodyLimitBytes, sendError, env = process.env, access = resolveAccess(env, { host: options.host, surface: surfaceKind(name) }) }: SurfaceExtras = {},
): Promise<RunningSurface> {
  const paths = processPaths(options);
  const config = loadConfig(paths.config);
  const redact = compileRedactPatterns(config.privacy.redact_patterns);
  const logger = createLogger({ name, file: `${paths.logs}/${name}.log`, level: options.logLevel, redactPatterns: () => redact });
  let port = options.port;
  for (const warning of access.warnings) logger.warn(warning);
  const app = createApp({
    logger,
    access,
    ...(sendError !== undefined ? { sendError } : {}),
    ...(bodyLimitBytes !== undefined ? { bodyLimitBytes } : {}),
    ...configHostPolicy(() => config, () => port),
    routes: (a) => {
      // Always 200 while the process serves: `status` says whether it is degraded, and why. Without
      // a token (where one is asked for) it is a bare liveness answer that reveals nothing.
      a.get('/healthz', (req, res) => {
        if (!mayReadDetails(req)) {
          res.json({ ok: true });
          return;
        }
        const { status, ...rest } = health();
        res.json({ ok: true, status, service: name, version: SOUS_VERSION, ...rest });
      });
      routes(a, config, logger, access);
    },
  });
  const server = await listen(app, options.host, options.port);
  port = boundPort(server);
  logger.info({ host: options.host, port, ...describeAccess(access) }, `${name} started`);
  return { port, logger, routes: listRoutes(app), access, close: () => closeServer(server) };
}

/** The kind of surface a process name stands for (its default rate limit). */
function surfaceKind(name: string): SurfaceKind {
  return name === 'proxy' || name === 'daemon' || name === 'mcp' ? name : 'context';
}

/** Runs a surface as a process: one-line error and exit 2 when it cannot start; clean stop on SIGTERM. */
export function runSurfaceProcess(start: () => Promise<RunningSurface>, label: string): void {
  start().then(
    (surface) => {
      const stop = () => void surface.close().then(() => process.exit(0));
      process.once('SIGTERM', stop);
      process.once('SIGINT', stop);
    },
    (err: unknown) => {
      process.stderr.write(`sous ${label}: ${err instanceof Error ? err.message : String(err)}\n`);
      process.exit(2);
    },
  );
}
