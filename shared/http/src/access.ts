/**
 * Who may use a Sous HTTP surface, and how often: read from the environment once at start
 * (docs/deployment.md, "Authentication and rate limits"). A private network is not a trust
 * boundary: a surface bound off loopback refuses to start without tokens, unless SOUS_AUTH=off says
 * something in front of it authenticates.
 */
import * as fs from 'node:fs';
import proxyaddr from 'proxy-addr';
import { CLIENT_TOKEN_ENV } from '@sous/runtime';
import { isLoopbackHost } from './listen';
import { parseTokenFile, parseTokenList, TokenSet, type TokenEntry } from './tokens';

/** `name:token,name:token` (comma-separated). */
export const AUTH_TOKENS_ENV = 'SOUS_AUTH_TOKENS';
/** A file with one `name token` a line (Docker secrets). */
export const AUTH_TOKENS_FILE_ENV = 'SOUS_AUTH_TOKENS_FILE';
/** `off`: no token check even off loopback (dangerous; only behind an authenticating proxy). */
export const AUTH_SWITCH_ENV = 'SOUS_AUTH';
/** Requests per minute per client; 0 turns the limit off. */
export const RATE_LIMIT_ENV = 'SOUS_RATE_LIMIT_PER_MINUTE';
/** Which proxies' X-Forwarded-For to believe: a hop count (`1` for Caddy in front) or addresses/subnets. */
export const TRUST_PROXY_ENV = 'SOUS_TRUST_PROXY';
/** SOUS_TOKEN: the token a client (the CLI, or one Sous process calling another) sends. */
export { CLIENT_TOKEN_ENV };
/** The proxy's single-key legacy form: accepted as one more token, named LEGACY_PROXY_KEY_NAME. */
export const PROXY_API_KEY_ENV = 'SOUS_PROXY_API_KEY';
export const LEGACY_PROXY_KEY_NAME = 'proxy-key';

/** Which surface asks: each has its own default rate. */
export type SurfaceKind = 'daemon' | 'proxy' | 'context' | 'mcp';

/**
 * Default requests per minute per client where limiting is on: the daemon, context API and MCP
 * answer an agent's many small reads (a busy agent makes a few a second); the proxy makes a model
 * call per request, so 2 a second per client is plenty.
 */
export const DEFAULT_RATE_LIMIT_PER_MINUTE: Record<SurfaceKind, number> = { daemon: 600, context: 600, mcp: 600, proxy: 120 };
const MAX_RATE_LIMIT = 1_000_000;

/** What a surface enforces, resolved once at start. */
export interface AccessPolicy {
  /** Accepted tokens; undefined: no token is asked for. */
  tokens?: TokenSet;
  /** SOUS_AUTH=off was set. */
  authOff: boolean;
  /** Requests per client per minute; 0 = no limit. */
  ratePerMinute: number;
  /** Express's `trust proxy` value (hops or addresses); undefined: X-Forwarded-For is ignored. */
  trustProxy?: number | string[];
  /** The token this process sends when it calls another Sous surface (SOUS_TOKEN, else the first listed). */
  serviceToken?: string;
  /** Lines to log as warnings at start. */
  warnings: string[];
}

/** No tokens, no limit: what a surface without a policy (in-process tests, tools) enforces. */
export const OPEN_ACCESS: AccessPolicy = { authOff: false, ratePerMinute: 0, warnings: [] };

const nonEmpty = (value: string | undefined): string | undefined => (value === undefined || value.trim() === '' ? undefined : value);

function readTokens(env: NodeJS.ProcessEnv, surface: SurfaceKind): TokenEntry[] {
  const entries: TokenEntry[] = [];
  const list = nonEmpty(env[AUTH_TOKENS_ENV]);
  if (list !== undefined) entries.push(...parseTokenList(list, AUTH_TOKENS_ENV));
  const file = nonEmpty(env[AUTH_TOKENS_FILE_ENV]);
  if (file !== undefined) {
    let text: string;
    try {
      text = fs.readFileSync(file, 'utf8');
    } catch (err) {
      throw new Error(`${AUTH_TOKENS_FILE_ENV}: cannot read ${file} (${(err as NodeJS.ErrnoException).code ?? 'error'})`);
    }
    const fromFile = parseTokenFile(text, `${AUTH_TOKENS_FILE_ENV} ${file}`);
    if (fromFile.length === 0) throw new Error(`${AUTH_TOKENS_FILE_ENV}: ${file} lists no tokens; write one "name token" a line`);
    entries.push(...fromFile);
  }
  const legacy = nonEmpty(env[PROXY_API_KEY_ENV]);
  // Legacy keys predate the 32-character rule: any length is still accepted.
  if (surface === 'proxy' && legacy !== undefined) entries.push(...parseTokenList(`${LEGACY_PROXY_KEY_NAME}:${legacy.trim()}`, PROXY_API_KEY_ENV, 1));
  return entries;
}

function readRate(env: NodeJS.ProcessEnv, surface: SurfaceKind, guarded: boolean): number {
  const raw = nonEmpty(env[RATE_LIMIT_ENV]);
  if (raw === undefined) return guarded ? DEFAULT_RATE_LIMIT_PER_MINUTE[surface] : 0;
  const n = Number(raw.trim());
  if (!Number.isInteger(n) || n < 0 || n > MAX_RATE_LIMIT) throw new Error(`${RATE_LIMIT_ENV} must be a whole number of requests per minute from 0 (no limit) to ${MAX_RATE_LIMIT} (found ${JSON.stringify(raw.slice(0, 40))})`);
  return n;
}

function readTrustProxy(env: NodeJS.ProcessEnv): number | string[] | undefined {
  const raw = nonEmpty(env[TRUST_PROXY_ENV]);
  if (raw === undefined) return undefined;
  if (/^\d+$/.test(raw.trim())) return Number(raw.trim());
  const list = raw.split(',').map((s) => s.trim()).filter((s) => s !== '');
  try {
    proxyaddr.compile(list);
  } catch (err) {
    throw new Error(`${TRUST_PROXY_ENV} must be a number of proxy hops (1 for one reverse proxy) or addresses/subnets such as loopback, 10.0.0.0/8 (${err instanceof Error ? err.message : String(err)})`);
  }
  return list;
}

/**
 * The access policy of a surface bound to `host`, from `env`. Throws one line (the process exits 2)
 * for a malformed token list, a bad limit, or a non-loopback bind without tokens.
 */
export function resolveAccess(env: NodeJS.ProcessEnv, { host, surface }: { host: string; surface: SurfaceKind }): AccessPolicy {
  const switchValue = nonEmpty(env[AUTH_SWITCH_ENV])?.trim().toLowerCase();
  if (switchValue !== undefined && switchValue !== 'off' && switchValue !== 'on') throw new Error(`${AUTH_SWITCH_ENV} must be on or off (found ${JSON.stringify(switchValue.slice(0, 20))})`);
  const authOff = switchValue === 'off';
  const entries = readTokens(env, surface);
  const loopback = isLoopbackHost(host);
  const warnings: string[] = [];
  if (authOff) {
    warnings.push(`${AUTH_SWITCH_ENV}=off: this ${surface} asks no token from anyone who can reach ${host}; only do this when a proxy in front of it authenticates every request`);
    if (entries.length > 0) warnings.push(`${AUTH_SWITCH_ENV}=off: the tokens of ${AUTH_TOKENS_ENV}/${AUTH_TOKENS_FILE_ENV} are ignored`);
  } else if (entries.length === 0 && !loopback) {
    throw new Error(`listening on ${host} (not loopback) needs tokens: set ${AUTH_TOKENS_ENV} or ${AUTH_TOKENS_FILE_ENV} (see docs/deployment.md; ${AUTH_SWITCH_ENV}=off only if a proxy in front authenticates)`);
  }
  const tokens = !authOff && entries.length > 0 ? new TokenSet(entries) : undefined;
  const own = nonEmpty(env[CLIENT_TOKEN_ENV])?.trim();
  const serviceToken = own ?? (tokens !== undefined ? entries[0]?.secret : undefined);
  const trustProxy = readTrustProxy(env);
  return {
    ...(tokens !== undefined ? { tokens } : {}),
    authOff,
    ratePerMinute: readRate(env, surface, tokens !== undefined || !loopback),
    ...(trustProxy !== undefined ? { trustProxy } : {}),
    ...(serviceToken !== undefined ? { serviceToken } : {}),
    warnings,
  };
}

/** Headers that authenticate this process to another Sous surface (`{}` when it has no token). */
export function serviceHeaders(access: Pick<AccessPolicy, 'serviceToken'>): Record<string, string> {
  return access.serviceToken === undefined ? {} : { authorization: `Bearer ${access.serviceToken}` };
}

/** What a surface says about its policy when it starts (names and numbers, never tokens). */
export function describeAccess(access: AccessPolicy): Record<string, unknown> {
  return {
    auth: access.tokens !== undefined ? 'tokens' : access.authOff ? 'off' : 'none',
    ...(access.tokens !== undefined ? { token_names: access.tokens.names } : {}),
    rate_limit_per_minute: access.ratePerMinute,
    ...(access.trustProxy !== undefined ? { trust_proxy: access.trustProxy } : {}),
  };
}
