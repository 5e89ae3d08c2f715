/**
 * The gate in front of a surface: every request passes it before the fast lanes and the express
 * app (fast-lane.ts requestListener), so no path answers around it. It checks the Bearer token
 * (access.ts, tokens.ts) and counts the request against its client's budget (express-rate-limit,
 * keyed by the token's name, else the client address); it answers 401 or 429 itself.
 */
import type * as http from 'node:http';
import { rateLimit, ipKeyGenerator, type RateLimitRequestHandler } from 'express-rate-limit';
import proxyaddr from 'proxy-addr';
import { ApiError } from '@sous/protocol';
import type { Logger } from '@sous/logging';
import type { AccessPolicy } from './access';
import { toApiError } from './errors';
import { bearerToken } from './tokens';

/** The liveness route: answered without a token and never rate limited (container health checks). */
export const HEALTH_PATH = '/healthz';
/** The rate limit's fixed window. */
const WINDOW_MS = 60_000;

/** Writes an error answer (the one JSON shape by default; the proxy writes OpenAI's). */
export type ErrorWriter = (res: http.ServerResponse, err: ApiError) => void;

export interface GateOptions {
  access: AccessPolicy;
  /** Paths a GET or HEAD may fetch without a token (besides HEALTH_PATH): e.g. the cockpit's static shell. */
  open?: (path: string) => boolean;
  sendError?: ErrorWriter;
  logger?: Logger;
}

/** Passes `req` on (calls `pass`) or answers it. */
export type Gate = (req: http.IncomingMessage, res: http.ServerResponse, pass: () => void) => void;

/** The name a request authenticated as. */
const names = new WeakMap<http.IncomingMessage, string>();
/** Requests let through on an open path without a valid token, on a surface that asks for one. */
const anonymous = new WeakSet<http.IncomingMessage>();

/** The token name this request authenticated with (what handlers and logs may show), or undefined. */
export function clientName(req: http.IncomingMessage): string | undefined {
  return names.get(req);
}

/** False for a request without a token on a surface that asks for one (it reached an open path): it sees no details. */
export function mayReadDetails(req: http.IncomingMessage): boolean {
  return !anonymous.has(req);
}

/** The one JSON error shape, written without express (the gate answers before it). */
export function sendApiError(res: http.ServerResponse, err: ApiError): void {
  const body = JSON.stringify(err.toBody());
  res.writeHead(err.status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body) });
  res.end(body);
}

const pathOf = (url: string | undefined): string => {
  const q = (url ?? '/').indexOf('?');
  return q < 0 ? (url ?? '/') : (url ?? '/').slice(0, q);
};

/** Express's `trust proxy` semantics: a hop count trusts that many proxies, a list those addresses. */
function trustFunction(value: AccessPolicy['trustProxy']): ((addr: string, i: number) => boolean) | undefined {
  if (value === undefined) return undefined;
  if (typeof value === 'number') return (_addr, i) => i < value;
  return proxyaddr.compile(value);
}

/** The gate for `access`, or undefined when it has nothing to check (no tokens, no limit). */
export function createGate({ access, open = () => false, sendError = sendApiError, logger }: GateOptions): Gate | undefined {
  const tokens = access.tokens;
  if (tokens === undefined && access.ratePerMinute === 0) return undefined;
  const trust = trustFunction(access.trustProxy);
  const addressOf = (req: http.IncomingMessage): string => (trust === undefined ? (req.socket.remoteAddress ?? 'unknown') : proxyaddr(req, trust));
  const limiter: RateLimitRequestHandler | undefined =
    access.ratePerMinute === 0
      ? undefined
      : rateLimit({
          windowMs: WINDOW_MS,
          limit: access.ratePerMinute,
          standardHeaders: 'draft-7',
          legacyHeaders: false,
          // The request is node's, not express's: the checks that read express settings do not apply.
          validate: false,
          keyGenerator: (req) => {
            const name = clientName(req);
            return name !== undefined ? `name:${name}` : `ip:${ipKeyGenerator(addressOf(req))}`;
          },
          handler: (req, res) => {
            const name = clientName(req);
            const retry = Number(res.getHeader('retry-after') ?? 60);
            logger?.info({ client: name ?? null, path: pathOf(req.url) }, 'rate limited');
            sendError(
              res,
              new ApiError('rate_limited', `more than ${access.ratePerMinute} requests a minute from ${name === undefined ? 'this address' : `token ${JSON.stringify(name)}`}; retry after ${retry} s`, undefined, { limit_per_minute: access.ratePerMinute, retry_after_seconds: retry }),
            );
          },
        });

  const refuse = (res: http.ServerResponse, sent: string | null | undefined): void => {
    res.setHeader('www-authenticate', sent === undefined ? 'Bearer realm="sous"' : 'Bearer realm="sous", error="invalid_token"');
    sendError(
      res,
      new ApiError(
        'unauthorized',
        sent === undefined
          ? 'this server asks for a token: send Authorization: Bearer <token> (one of SOUS_AUTH_TOKENS where it runs; the CLI reads SOUS_TOKEN)'
          : sent === null
            ? 'the Authorization header must be "Bearer <token>"'
            : 'the token is not valid here; ask for a current one (tokens are listed in SOUS_AUTH_TOKENS where the server runs)',
        'header.authorization',
      ),
    );
  };

  return (req, res, pass) => {
    const path = pathOf(req.url);
    const method = req.method ?? 'GET';
    let refused = false;
    let sent: string | null | undefined;
    if (tokens !== undefined) {
      sent = bearerToken(req.headers.authorization);
      const name = typeof sent === 'string' ? tokens.nameOf(sent) : undefined;
      if (name !== undefined) names.set(req, name);
      else if ((method === 'GET' || method === 'HEAD') && (path === HEALTH_PATH || open(path))) anonymous.add(req);
      else refused = true;
    }
    const decide = (err?: unknown): void => {
      if (err !== undefined) sendError(res, toApiError(err));
      else if (refused) refuse(res, sent);
      else pass();
    };
    // A refused request counts too (by address): a flood of bad tokens is limited like any other.
    if (limiter === undefined || path === HEALTH_PATH) decide();
    else void limiter(req as never, res as never, decide);
  };
}
