import type { NextFunction, Request, Response } from 'express';
import type { SousConfig } from '@sous/config';
import { ApiError } from '@sous/protocol';

/**
 * What a Sous HTTP surface accepts. Functions, so a hot-reloaded config applies without a restart.
 */
export interface HostPolicy {
  /** The port the server is bound to (Host headers must name it, or omit it). */
  port: () => number;
  /** Extra host names (config `daemon.allowed_hosts`), with or without `:port`. */
  allowedHosts: () => string[];
  /** Extra origins allowed to make state-changing requests (config `daemon.allowed_origins`). */
  allowedOrigins: () => string[];
}

/** The policy every Sous surface applies: its bound port plus `daemon.allowed_hosts` / `daemon.allowed_origins` of the current config. */
export function configHostPolicy(config: () => SousConfig, port: () => number): HostPolicy {
  return { port, allowedHosts: () => config().daemon.allowed_hosts, allowedOrigins: () => config().daemon.allowed_origins };
}

const LOOPBACK_NAMES = ['127.0.0.1', 'localhost', '[::1]'];
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

function splitHost(host: string): { name: string; port?: string } {
  const m = /^(\[[^\]]+\]|[^:]+)(?::(\d+))?$/.exec(host.trim().toLowerCase());
  if (!m || !m[1]) return { name: '' };
  return m[2] ? { name: m[1], port: m[2] } : { name: m[1] };
}

/** True when `host` (a Host header value or URL host) names this server. */
export function hostAllowed(host: string, policy: HostPolicy): boolean {
  const { name, port } = splitHost(host);
  if (!name) return false;
  if (LOOPBACK_NAMES.includes(name)) return port === undefined || port === String(policy.port());
  return policy.allowedHosts().some((entry) => {
    const allowed = splitHost(entry);
    return allowed.name === name && (allowed.port === undefined || allowed.port === port);
  });
}

/**
 * DNS-rebinding defence: a page on evil.example that rebinds its name to 127.0.0.1 still sends
 * `Host: evil.example`, so only Host headers naming the bound loopback address (or the allowlist) pass.
 */
export function hostGuard(policy: HostPolicy) {
  return (req: Request, _res: Response, next: NextFunction): void => {
    const host = req.headers.host;
    if (!host || !hostAllowed(host, policy)) {
      next(new ApiError('forbidden_host', `Host header ${JSON.stringify((host ?? '').slice(0, 200))} is not allowed; use http://127.0.0.1:${policy.port()} or add the name to daemon.allowed_hosts`, 'header.host'));
      return;
    }
    next();
  };
}

/** The request headers the guards read (node's IncomingHttpHeaders or a subset). */
export interface GuardHeaders {
  host?: string | undefined;
  origin?: string | undefined;
  'sec-fetch-site'?: string | undefined;
}

/**
 * True when the request comes from a web page that is not Sous itself: an `Origin` that is none of
 * this server's own origins, or a browser's `Sec-Fetch-Site: cross-site | same-site` without an
 * allowed `Origin` (an `<img>` or a no-cors fetch from another page sends no Origin on a GET).
 * Requests without either header (CLI, agents, curl) are not from a foreign page.
 */
export function fromForeignPage(headers: GuardHeaders, policy: HostPolicy): boolean {
  const { origin } = headers;
  if (origin !== undefined) return !originAllowed(origin, headers.host, policy);
  const site = headers['sec-fetch-site']?.trim().toLowerCase();
  return site === 'cross-site' || site === 'same-site';
}

/**
 * Cross-site request defence: a state-changing request (anything but GET/HEAD/OPTIONS) from a
 * foreign page is refused (fromForeignPage), whatever its body: a no-cors POST with no body needs
 * no preflight, so the Origin (which browsers send on every such request) and Sec-Fetch-Site
 * decide. Requests without Origin or Sec-Fetch-Site (CLI, curl, agents) pass.
 */
export function originGuard(policy: HostPolicy) {
  return (req: Request, _res: Response, next: NextFunction): void => {
    if (SAFE_METHODS.has(req.method) || !fromForeignPage(req.headers, policy)) {
      next();
      return;
    }
    const origin = req.headers.origin;
    next(
      origin === undefined
        ? new ApiError('forbidden_origin', `a request from another site (Sec-Fetch-Site: ${req.headers['sec-fetch-site'] ?? ''}) may not change state; serve the page from an origin in daemon.allowed_origins`, 'header.sec-fetch-site')
        : new ApiError('forbidden_origin', `requests from origin ${JSON.stringify(origin.slice(0, 200))} may not change state; add it to daemon.allowed_origins if you trust it`, 'header.origin'),
    );
  };
}

/** True when a request would pass both guards above (for handlers that answer before express). */
export function guardsPass(headers: GuardHeaders, method: string, policy: HostPolicy): boolean {
  if (!headers.host || !hostAllowed(headers.host, policy)) return false;
  return SAFE_METHODS.has(method) || !fromForeignPage(headers, policy);
}

/** `scheme://host:port` with the port always written (URL drops a scheme's default port). */
function explicitOrigin(url: URL): string {
  const port = url.port || (url.protocol === 'https:' ? '443' : '80');
  return `${url.protocol}//${url.hostname}:${port}`;
}

/**
 * True when `origin` is exactly one of this server's own origins, or listed in
 * `daemon.allowed_origins`. Own origins are scheme, host and port together, never a name alone:
 * - `http://127.0.0.1:<bound port>`, `http://localhost:<bound port>`, `http://[::1]:<bound port>`
 *   (a page on `http://localhost` or `http://localhost:3000` is another origin);
 * - the origin the request itself was addressed to, when its Host names an entry of
 *   `daemon.allowed_hosts` (a reverse proxy serving Sous under its own name, e.g. Caddy's
 *   `https://sous.localhost`, passes the Host through).
 */
function originAllowed(origin: string, requestHost: string | undefined, policy: HostPolicy): boolean {
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return false; // includes the opaque origin "null" (sandboxed iframes, file://)
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return false;
  // An origin header is scheme://host[:port] and nothing else.
  if (url.username || url.password || url.pathname !== '/' || url.search || url.hash || origin.endsWith('/')) return false;
  const wanted = explicitOrigin(url);
  for (const allowed of policy.allowedOrigins()) {
    try {
      if (explicitOrigin(new URL(allowed)) === wanted) return true;
    } catch {
      // config validation keeps malformed entries out; one that slips through allows nothing
    }
  }
  const name = url.hostname.toLowerCase();
  const port = url.port || (url.protocol === 'https:' ? '443' : '80');
  if (LOOPBACK_NAMES.includes(name)) return url.protocol === 'http:' && port === String(policy.port());
  if (requestHost === undefined) return false;
  const target = splitHost(requestHost);
  const targetPort = target.port ?? (url.protocol === 'https:' ? '443' : '80');
  return target.name === name && targetPort === port && hostAllowed(requestHost, policy);
}
