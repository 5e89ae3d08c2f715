/**
 * Which upstream a chat request goes to (docs/proxy.md#routing), decided from the config alone:
 *  1. `X-Sous-Backend: <profile>` selects `backends.<profile>` (an unknown profile is the client's mistake);
 *  2. else the longest `gateway.routes.<model_prefix>` that the request's model starts with;
 *  3. else `backend.*`, the default upstream.
 * The key sent upstream comes from the environment variable the chosen entry names (`api_key_env`);
 * the config never holds a key.
 */
import type { SousConfig } from '@sous/config';
import { GatewayError } from './errors';

/** Where one request is forwarded. */
export interface Upstream {
  /** `backend`, `route:<prefix>` or `profile:<name>`: shown in traces and errors, never a key. */
  name: string;
  /** OpenAI-compatible base URL ending in the version segment, e.g. http://127.0.0.1:11434/v1. */
  baseUrl: string;
  /**
   * The key to send as `Authorization: Bearer`, from the environment; undefined when the entry names
   * no variable (the client's own Authorization header is then forwarded as it came).
   */
  apiKey?: string;
}

/** Reads the key an entry names; a named variable that is unset or empty is a deployment mistake, said plainly. */
function keyFrom(env: NodeJS.ProcessEnv, variable: string, entry: string): string | undefined {
  if (variable === '') return undefined;
  const key = env[variable];
  if (key === undefined || key === '') throw new GatewayError('upstream_misconfigured', `${entry}.api_key_env names the environment variable ${variable}, which is not set in the proxy's environment; export it and restart the proxy`, 'config');
  return key;
}

/** The `gateway.routes` prefix that routes `model`: the longest that matches, else undefined. */
export function routeFor(routes: Readonly<Record<string, string>>, model: string): string | undefined {
  let best: string | undefined;
  for (const prefix of Object.keys(routes)) if (model.startsWith(prefix) && (best === undefined || prefix.length > best.length)) best = prefix;
  return best;
}

/**
 * The upstream for a request with `model` and the `X-Sous-Backend` header `profile` (undefined when
 * absent). `GET /v1/models` passes no model: only the header or the default apply.
 */
export function chooseUpstream(config: SousConfig, model: string | undefined, profile: string | undefined, env: NodeJS.ProcessEnv = process.env): Upstream {
  if (profile !== undefined) {
    const entry = config.backends[profile];
    if (entry === undefined) {
      const known = Object.keys(config.backends);
      throw new GatewayError('invalid_request', `X-Sous-Backend ${JSON.stringify(profile)} is not a configured profile; ${known.length === 0 ? 'no [backends.<profile>] table is configured' : `configured: ${known.join(', ')}`}`, 'header.x-sous-backend');
    }
    const apiKey = keyFrom(env, entry.api_key_env, `backends.${profile}`);
    return { name: `profile:${profile}`, baseUrl: entry.base_url, ...(apiKey !== undefined ? { apiKey } : {}) };
  }
  const prefix = model === undefined ? undefined : routeFor(config.gateway.routes, model);
  if (prefix !== undefined) return { name: `route:${prefix}`, baseUrl: config.gateway.routes[prefix] as string };
  const apiKey = keyFrom(env, config.backend.api_key_env, 'backend');
  return { name: 'backend', baseUrl: config.backend.base_url, ...(apiKey !== undefined ? { apiKey } : {}) };
}

/** The upstream URL of `suffix` (e.g. `/chat/completions`) under a base URL that already ends in `/v1`. */
export function upstreamUrl(baseUrl: string, suffix: string): URL {
  return new URL(baseUrl.replace(/\/+$/, '') + suffix);
}

/** Where a request goes, split as undici's dispatch takes it. */
export interface UpstreamTarget {
  /** `http://host:port`. */
  origin: string;
  /** Path and query, e.g. `/v1/chat/completions`. */
  path: string;
}

/** Targets by base URL and suffix: base URLs come from the config alone, so this stays small. */
const targets = new Map<string, UpstreamTarget>();

/** upstreamUrl as an origin and a path, parsed once per base URL and suffix (not once per request). */
export function upstreamTarget(baseUrl: string, suffix: string): UpstreamTarget {
  const key = `${baseUrl}\n${suffix}`;
  let target = targets.get(key);
  if (target === undefined) {
    const url = upstreamUrl(baseUrl, suffix);
    target = { origin: url.origin, path: url.pathname + url.search };
    targets.set(key, target);
  }
  return target;
}
