/**
 * Bearer tokens of a Sous HTTP surface (docs/deployment.md, "Authentication and rate limits"): each
 * token belongs to a name (a team or a client) and only the name is ever shown or logged. Tokens
 * come from the environment, never from config.toml: SOUS_AUTH_TOKENS (`name:token,name:token`)
 * and/or the file SOUS_AUTH_TOKENS_FILE (one `name token` or `name:token` a line, `#` comments).
 * Only sha256 digests are kept for checking; a check compares against every entry in constant time.
 */
import { createHash, timingSafeEqual } from 'node:crypto';

/** Names: letters, digits, `-`, `_`, `.` (what logs and rate-limit keys show). */
export const TOKEN_NAME = /^[A-Za-z0-9_.-]{1,64}$/;
/** A token's characters: RFC 6750's b64token (what `Authorization: Bearer` may carry). */
const TOKEN_CHARS = /^[A-Za-z0-9._~+/-]+=*$/;
/** Shortest token accepted: 32 characters (`openssl rand -hex 32` makes 64). */
export const MIN_TOKEN_LENGTH = 32;
const MAX_TOKEN_LENGTH = 512;

/** A token as parsed: `secret` is the value clients send. */
export interface TokenEntry {
  name: string;
  secret: string;
}

/** A malformed token list: the message names the entry or line, never the token. */
export class TokenConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TokenConfigError';
  }
}

/** Checks one `name` + `secret` pair; `at` says where it came from (e.g. `SOUS_AUTH_TOKENS entry 2`). */
function entry(name: string, secret: string, at: string, minLength: number): TokenEntry {
  // A name that is not a name may be a token written in the wrong place: never quoted.
  if (name === '') throw new TokenConfigError(`${at} has no name: write name:token (the name says which team or client the token belongs to)`);
  if (!TOKEN_NAME.test(name)) throw new TokenConfigError(`${at}: the name must be 1-64 letters, digits, '-', '_' or '.'`);
  if (secret === '') throw new TokenConfigError(`${at} (name ${JSON.stringify(name)}) has no token after the name`);
  if (!TOKEN_CHARS.test(secret) || secret.length > MAX_TOKEN_LENGTH) throw new TokenConfigError(`${at} (name ${JSON.stringify(name)}): the token may hold only letters, digits and - . _ ~ + / (then = padding), at most ${MAX_TOKEN_LENGTH} characters`);
  if (secret.length < minLength) throw new TokenConfigError(`${at} (name ${JSON.stringify(name)}): the token has ${secret.length} characters, at least ${minLength} are needed (make one with: openssl rand -hex 32)`);
  return { name, secret };
}

/** Parses SOUS_AUTH_TOKENS: comma-separated `name:token` pairs (blanks around them and empty entries are ignored). */
export function parseTokenList(text: string, source = 'SOUS_AUTH_TOKENS', minLength = MIN_TOKEN_LENGTH): TokenEntry[] {
  const out: TokenEntry[] = [];
  text.split(',').forEach((raw, i) => {
    const item = raw.trim();
    if (item === '') return;
    const colon = item.indexOf(':');
    const at = `${source} entry ${i + 1}`;
    if (colon < 0) throw new TokenConfigError(`${at} has no name: write name:token (the name says which team or client the token belongs to)`);
    out.push(entry(item.slice(0, colon).trim(), item.slice(colon + 1).trim(), at, minLength));
  });
  return out;
}

/** Parses a token file: one `name token` or `name:token` a line; blank lines and lines starting with `#` are skipped. */
export function parseTokenFile(text: string, source: string, minLength = MIN_TOKEN_LENGTH): TokenEntry[] {
  const out: TokenEntry[] = [];
  text.split(/\r?\n/).forEach((raw, i) => {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) return;
    const at = `${source} line ${i + 1}`;
    const m = /^([^\s:]*)(?:\s*:\s*|\s+)(.*)$/.exec(line);
    if (!m) throw new TokenConfigError(`${at} has no name: write "name token" (the name says which team or client the token belongs to)`);
    const secret = (m[2] ?? '').trim();
    if (/\s/.test(secret)) throw new TokenConfigError(`${at}: write one name and one token a line, separated by a space or ':'`);
    out.push(entry(m[1] ?? '', secret, at, minLength));
  });
  return out;
}

const digest = (text: string): Buffer => createHash('sha256').update(text, 'utf8').digest();

/** The tokens a surface accepts, kept as digests. */
export class TokenSet {
  private readonly digests: Array<{ name: string; digest: Buffer }>;
  /** Every name, in the order listed (a name may own several tokens while one is rotated out). */
  readonly names: string[];

  constructor(entries: readonly TokenEntry[]) {
    const seen = new Map<string, string>();
    for (const e of entries) {
      const owner = seen.get(e.secret);
      if (owner !== undefined && owner !== e.name) throw new TokenConfigError(`the same token is listed under the names ${JSON.stringify(owner)} and ${JSON.stringify(e.name)}; give each team or client its own`);
      seen.set(e.secret, e.name);
    }
    this.digests = entries.map((e) => ({ name: e.name, digest: digest(e.secret) }));
    this.names = [...new Set(entries.map((e) => e.name))];
  }

  get size(): number {
    return this.digests.length;
  }

  /**
   * The name owning `secret`, or undefined. Both sides are sha256 digests of equal length compared
   * with timingSafeEqual, and every entry is compared, so the time says nothing about the tokens.
   */
  nameOf(secret: string): string | undefined {
    const sent = digest(secret);
    let found: string | undefined;
    for (const e of this.digests) if (timingSafeEqual(sent, e.digest) && found === undefined) found = e.name;
    return found;
  }
}

/** The token of an `Authorization: Bearer <token>` header: undefined when absent, null when the header is not a Bearer token. */
export function bearerToken(header: string | string[] | undefined): string | undefined | null {
  if (header === undefined) return undefined;
  if (Array.isArray(header)) return null;
  const m = /^Bearer +([A-Za-z0-9._~+/-]+=*) *$/i.exec(header);
  return m ? (m[1] as string) : null;
}
