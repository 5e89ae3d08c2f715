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
      next(new ApiError('forbidden_host', `Host header ${JSON.stringify(host ?? '')} is not allowed; use http://127.0.0.1:${policy.port()} or add the name to daemon.allowed_hosts`, 'header.host'));
      return;
    }
    next();
  };
}

/**
 * Cross-site request defence: a state-changing request that carries an Origin must come from this
 * server itself or an allowlisted origin. Requests without Origin (CLI, curl, agents) pass.
 */
export function originGuard(policy: HostPolicy) {
  return (req: Request, _res: Response, next: NextFunction): void => {
    const origin = req.headers.origin;
    if (SAFE_METHODS.has(req.method) || origin === undefined) {
      next();
      return;
    }
    if (originAllowed(origin, policy)) {
      next();
      return;
    }
    next(new ApiError('forbidden_origin', `requests from origin ${JSON.stringify(origin)} may not change state; add it to daemon.allowed_origins if you trust it`, 'header.origin'));
  };
}

/** True when a request would pass both guards above (for handlers that answer before express). */
export function guardsPass(headers: { host?: string | undefined; origin?: string | undefined }, method: string, policy: HostPolicy): boolean {
  if (!headers.host || !hostAllowed(headers.host, policy)) return false;
  return SAFE_METHODS.has(method) || headers.origin === undefined || originAllowed(headers.origin, policy);
}

function originAllowed(origin: string, policy: HostPolicy): boolean {
  if (policy.allowedOrigins().includes(origin)) return true;
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return false; // includes the opaque origin "null" (sandboxed iframes, file://)
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return false;
  return hostAllowed(url.host, policy);
}
