import express, { type Express, type Request, type Response, type NextFunction } from 'express';
import { ApiError } from '@sous/protocol';
import type { Logger } from '@sous/logging';
import { errorHandler, notFoundHandler, refuseUnsafeJson } from './errors';
import type { AccessPolicy } from './access';
import { enableFastLanes } from './fast-lane';
import { clientName, createGate, type ErrorWriter } from './gate';
import { hostGuard, originGuard, type HostPolicy } from './guards';

/** Default request body limit for every Sous HTTP surface (bytes). */
export const DEFAULT_BODY_LIMIT_BYTES = 1024 * 1024;

export interface AppOptions extends HostPolicy {
  logger: Logger;
  /** Request body limit in bytes; default DEFAULT_BODY_LIMIT_BYTES (1 MiB). */
  bodyLimitBytes?: number;
  /** Registers the surface's routes between the guards and the error handlers. */
  routes: (app: Express) => void;
  /** Tokens and rate limit (access.ts resolveAccess); default: none (every request passes). */
  access?: AccessPolicy;
  /** Paths a GET may fetch without a token besides `/healthz` (the cockpit's static shell). */
  openPaths?: (path: string) => boolean;
  /** How the gate writes its 401 and 429 answers; default the one JSON error shape. */
  sendError?: ErrorWriter;
}

/**
 * The express app every Sous surface uses: Host and Origin guards first, a strict JSON body
 * parser with a size limit that refuses forbidden keys and NUL characters, the surface's routes,
 * then one JSON error shape for everything.
 */
export function createApp(options: AppOptions): Express {
  const limit = options.bodyLimitBytes ?? DEFAULT_BODY_LIMIT_BYTES;
  const app = express();
  app.disable('x-powered-by');
  app.set('query parser', 'simple');
  // Behind a trusted reverse proxy req.ip is the client's address from X-Forwarded-For.
  if (options.access?.trustProxy !== undefined) app.set('trust proxy', options.access.trustProxy);
  const gate = options.access === undefined ? undefined : createGate({ access: options.access, logger: options.logger, ...(options.openPaths ? { open: options.openPaths } : {}), ...(options.sendError ? { sendError: options.sendError } : {}) });
  enableFastLanes(app, options, gate);
  app.use(hostGuard(options));
  app.use(originGuard(options));
  app.use(requireJsonContentType);
  // inflate: false: a compressed body (Content-Encoding other than identity) is a 415, so a corrupt
  // or bomb-sized gzip body never reaches zlib.
  app.use(express.json({ limit, strict: true, inflate: false, type: ['application/json', 'application/*+json'] }));
  app.use(refuseUnsafeInput);
  app.use(requestLog(options.logger));
  options.routes(app);
  app.use(notFoundHandler);
  app.use(errorHandler(options.logger, limit));
  return app;
}

/** One route of an app: its method in capitals and its express path (`/jobs/:id`). */
export interface RouteInfo {
  method: string;
  path: string;
}

/**
 * Every route `app` serves, in registration order (tests enumerate them to cover new routes
 * automatically; express 5 keeps them in `app.router.stack`).
 */
export function listRoutes(app: Express): RouteInfo[] {
  const stack = (app as unknown as { router?: { stack?: Array<{ route?: { path?: unknown; methods?: Record<string, boolean> } }> } }).router?.stack ?? [];
  const routes: RouteInfo[] = [];
  for (const layer of stack) {
    const route = layer.route;
    if (route === undefined || typeof route.path !== 'string') continue;
    for (const [method, on] of Object.entries(route.methods ?? {})) if (on && method !== '_all') routes.push({ method: method.toUpperCase(), path: route.path });
  }
  return routes;
}

/** A POST with a body must say it is JSON; otherwise the body would be silently ignored. */
function requireJsonContentType(req: Request, _res: Response, next: NextFunction): void {
  const hasBody = Number(req.headers['content-length'] ?? 0) > 0 || req.headers['transfer-encoding'] !== undefined;
  if (hasBody && !req.is(['application/json', 'application/*+json'])) {
    next(new ApiError('unsupported_media_type', `request body must be JSON (Content-Type: application/json), got ${JSON.stringify(req.headers['content-type'] ?? 'none')}`, 'header.content-type'));
    return;
  }
  next();
}

/** No route sees a forbidden key or a NUL character in a body or query (errors.ts refuseUnsafeJson). */
function refuseUnsafeInput(req: Request, _res: Response, next: NextFunction): void {
  refuseUnsafeJson(req.body, 'body');
  refuseUnsafeJson(req.query, 'query');
  next();
}

/** Logs method, path, status, duration and the token's name only: never bodies, queries, headers or tokens. */
function requestLog(logger: Logger) {
  return (req: Request, res: Response, next: NextFunction): void => {
    const started = process.hrtime.bigint();
    res.on('finish', () => {
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      const client = clientName(req);
      logger.debug({ method: req.method, path: req.path, status: res.statusCode, ms: Math.round(ms * 10) / 10, ...(client !== undefined ? { client } : {}) }, 'http');
    });
    next();
  };
}
