/**
 * Malformed HTTP requests for the fuzz suite, drawn from a Dice: random and unknown methods,
 * percent-garbage, NUL and overlong ids, broken paths and queries, bodies that are not JSON, the
 * wrong JSON, too big, too deep, with `__proto__` keys or NUL characters, and odd headers
 * (Content-Type, Content-Encoding, Transfer-Encoding, Host, Origin, Sec-Fetch-Site, huge headers).
 *
 * Every request with a state-changing method carries at least one defect that must make Sous
 * refuse it (`defects` names them), so a run changes nothing a user could see; GET/HEAD/OPTIONS
 * may be well-formed (they must still never change state).
 */
import type { Dice } from './fuzz-random';

/** A surface under test: its port and the routes it serves (from the express app). */
export interface FuzzTarget {
  name: string;
  port: number;
  routes: Array<{ method: string; path: string }>;
}

/** Real ids to mutate, so requests reach past "not found" into the handlers. */
export interface FuzzIds {
  cards: string[];
  jobs: string[];
  workspaces: string[];
}

export interface FuzzRequest {
  target: string;
  port: number;
  route: string;
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: Buffer;
  /** Sent with Transfer-Encoding: chunked instead of Content-Length. */
  chunked: boolean;
  /** Why Sous must refuse this request (empty only for safe methods). */
  defects: string[];
}

export const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);
const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'];
/** Methods no Sous route serves (404) or node's parser does not know (400). */
const ODD_METHODS = ['PROPFIND', 'TRACE', 'MKCOL', 'FOO', 'BREW', 'SEARCH'];
const PERCENT_GARBAGE = ['%', '%%', '%zz', '%E0%A4%A', '%C0%AF', '%FF', '%u0041', '%2', '%ZZ%', '%ED%A0%80', 'a%', '%%30'];
const NUL_IDS = ['%00', 'a%00b', '%00%00', 'job%00'];
const BAD_HOSTS = ['evil.example', 'localhost:1', '[::1', 'a'.repeat(300), '127.0.0.1:0', 'sous.internal', ''];
const FOREIGN_ORIGINS = ['http://localhost', 'http://localhost:3000', 'null', 'https://evil.example', 'http://127.0.0.1', 'http://[::1]', 'file://', 'garbage', 'http://127.0.0.1.evil.example'];
/** Types that are not JSON at all, or JSON in a charset Sous refuses. */
const REFUSED_TYPES = ['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'application/json; charset=utf-16', 'application/json; charset=latin1', 'text/plain; charset=utf-8'];
/** Types whose JSON body is parsed. */
const JSON_TYPES = ['application/json', 'application/json; charset=utf-8', 'application/vnd.api+json'];
/** Types whose handling is up to the parser's corner cases (no guaranteed outcome). */
const ODD_TYPES = ['application/json; charset', ';;;', '*/*', 'application/json, text/plain', 'APPLICATION/JSON'];
const REFUSED_ENCODINGS = ['gzip', 'br', 'deflate', 'zstd', 'x-unknown', 'gzip, br', 'compress'];
const QUERY_KEYS = ['limit', 'state', 'kind', 'since', 'head', 'diagnostic', 'sessionId', '__proto__', 'constructor', 'a[b]', 'x', ''];
const QUERY_VALUES = ['%00', '-1', '1e309', 'NaN', '[]', '%zz', 'true', 'ready', '0x10', '', '%F0%9F%98%80', 'a%00', '9'.repeat(40)];
const FIELDS = ['value', 'mode', 'paths', 'prompt', 'top_n', 'budget_tokens', 'id', 'jsonrpc', 'method', 'params', 'diagnostic'];

/** Plausible bodies per path (so requests get past the parser into validation and handlers). */
function plausibleBody(path: string, dice: Dice): Record<string, unknown> {
  if (path.endsWith('/feedback')) return { value: dice.pick(['useful', 'partial', 'irrelevant', 'wrong']) };
  if (path === '/focus/mode') return { mode: dice.pick(['auto', 'manual-only']) };
  if (path === '/prepare') return dice.chance(0.5) ? {} : { paths: ['src/config.ts'] };
  if (path === '/v1/context') return { prompt: 'where is loadConfig', top_n: 3 };
  if (path === '/mcp' || path === '/messages') return { jsonrpc: '2.0', id: 1, method: 'tools/list' };
  if (path === '/v1/chat/completions') return { model: 'x', messages: [{ role: 'user', content: 'hi' }] };
  return {};
}

function wrongValue(dice: Dice): unknown {
  return dice.pick<unknown>([1, -1, 1e308, 0.5, true, null, [], {}, 'x'.repeat(dice.between(0, 5000)), '😀', [null], { a: [] }, dice.text(20), '\ud800', -0]);
}

function idSegment(dice: Dice, ids: FuzzIds, defects: string[]): string {
  const real = dice.pick([...ids.cards, ...ids.jobs, ...ids.workspaces, 'unknown-id']);
  const r = dice.int(100);
  if (r < 30) return encodeURIComponent(real);
  if (r < 50) {
    defects.push('percent-garbage id');
    return dice.chance(0.5) ? dice.pick(PERCENT_GARBAGE) : `${encodeURIComponent(real)}${dice.pick(PERCENT_GARBAGE)}`;
  }
  if (r < 60) {
    defects.push('NUL in id');
    return dice.chance(0.5) ? dice.pick(NUL_IDS) : `${encodeURIComponent(real)}%00`;
  }
  if (r < 68) {
    defects.push('overlong id');
    return 'x'.repeat(dice.between(201, 6000));
  }
  if (r < 78) return encodeURIComponent(dice.text(dice.between(1, 40)).replace(/[\ud800-\udfff]/g, 'x'));
  if (r < 86) return dice.pick(['..', '%2e%2e', '..%2f..%2fetc%2fpasswd', '.', '%2F']);
  if (r < 94) return dice.latin1(dice.between(1, 30)).replace(/[/?#%]/g, '_');
  return '';
}

function garbageQuery(dice: Dice): string {
  const parts: string[] = [];
  for (let i = dice.between(1, 4); i > 0; i--) parts.push(`${dice.pick(QUERY_KEYS)}=${dice.pick(QUERY_VALUES)}`);
  if (dice.chance(0.2)) parts.push(dice.pick(PERCENT_GARBAGE));
  return `?${parts.join('&')}`;
}

function mutatePath(dice: Dice, path: string, defects: string[]): string {
  switch (dice.int(8)) {
    case 0:
      defects.push('unknown path');
      return `${path}/zz-fuzz`;
    case 1:
      return `${path}/`;
    case 2:
      return `/${path}`;
    case 3:
      // ASCII only: upper-casing Latin-1 can leave it (ÿ → Ÿ), which no HTTP client sends raw.
      return path.replace(/[a-z]+/g, (w) => w.toUpperCase());
    case 4:
      return `${path}${dice.pick(PERCENT_GARBAGE)}`;
    case 5:
      return `${path};x=1`;
    case 6:
      defects.push('unknown path');
      return `/zz-fuzz${path}`;
    default:
      return `${path}/${'a'.repeat(dice.between(1000, 9000))}`;
  }
}

/** A body that must be refused whatever the route: [kind, bytes]. */
function refusedBody(dice: Dice, path: string): [string, Buffer] {
  const base = plausibleBody(path, dice);
  switch (dice.int(6)) {
    case 0:
      return ['invalid JSON', Buffer.from(dice.pick(['{', '{"a":', 'nul', "{'a':1}", '{"a":1,}', '[1,2', '"unterminated', '{"a":1}{"b":2}', 'NaN', '{"a":01}', '{"a":"\\x"}', '\u0000']))];
    case 1:
      return ['JSON that is not an object', Buffer.from(dice.pick(['"x"', '1', 'true', 'null', '-0', '"\\u0000"']))];
    case 2: {
      const key = dice.pick(['__proto__', 'constructor', 'prototype']);
      const inner = `{"${key}":${JSON.stringify(wrongValue(dice)) ?? '{}'}}`;
      const text = JSON.stringify(base).replace(/^\{/, dice.chance(0.5) ? `{"${key}":{"polluted":true},` : `{"nested":[${inner}],`);
      return ['forbidden key', Buffer.from(text.replace(/,\}$/, '}'))];
    }
    case 3: {
      const withNul = dice.chance(0.5) ? { ...base, [dice.pick(FIELDS)]: `a\u0000${dice.text(5)}` } : { ...base, nested: { [`k\u0000${dice.int(9)}`]: 1 } };
      return ['NUL in body', Buffer.from(JSON.stringify(withNul))];
    }
    case 4:
      return ['body over 1 MiB', Buffer.from(JSON.stringify({ ...base, pad: 'x'.repeat(1024 * 1024 + dice.int(4096)) }))];
    default:
      return ['binary body', Buffer.concat([Buffer.from([0xff, 0xfe]), dice.bytes(dice.between(1, 2000))])];
  }
}

/** A body that may or may not be valid for the route. */
function looseBody(dice: Dice, path: string): Buffer {
  const base = plausibleBody(path, dice);
  switch (dice.int(6)) {
    case 0:
      return Buffer.from(JSON.stringify(base));
    case 5:
      // Invalid UTF-8 inside a string: decoded with replacement characters, not refused.
      return Buffer.concat([Buffer.from('{"prompt":"'), Buffer.from([0xc3, 0x28, 0xa0, 0xa1]), Buffer.from('"}')]);
    case 1:
      return Buffer.from(JSON.stringify({ ...base, [dice.pick(FIELDS)]: wrongValue(dice) }));
    case 2:
      return Buffer.from(JSON.stringify(dice.pick<unknown>([[], [1, 'a'], [base], {}])));
    case 3: {
      const depth = dice.between(10, 50_000);
      return Buffer.from(dice.chance(0.5) ? `${'['.repeat(depth)}${']'.repeat(depth)}` : `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`);
    }
    default:
      return Buffer.from(JSON.stringify({ ...base, [`extra_${dice.int(99)}`]: wrongValue(dice) }));
  }
}

/** Request `dice` draws for one route of `targets` (every route of every surface equally often). */
export function fuzzRequest(dice: Dice, targets: readonly FuzzTarget[], ids: FuzzIds): FuzzRequest {
  const routes = targets.flatMap((target) => target.routes.map((route) => ({ target, route })));
  const { target, route } = dice.pick(routes);
  const defects: string[] = [];
  const m = dice.int(100);
  const method = m < 55 ? route.method : m < 90 ? dice.pick(METHODS) : dice.pick(ODD_METHODS);
  if (ODD_METHODS.includes(method)) defects.push('method no route serves');

  let path = route.path.replace(/:(\w+)/g, () => idSegment(dice, ids, defects));
  if (dice.chance(0.3)) path = mutatePath(dice, path, defects);
  if (!path.startsWith('/')) path = `/${path}`;
  if (dice.chance(0.35)) path += garbageQuery(dice);

  const own = `127.0.0.1:${target.port}`;
  const headers: Record<string, string> = { host: own };
  if (dice.chance(0.12)) {
    headers.host = dice.pick([...BAD_HOSTS, `127.0.0.1:${target.port + 1}`]);
    defects.push('foreign Host');
  }
  const o = dice.int(100);
  if (o >= 55 && o < 65) headers.origin = dice.pick([`http://127.0.0.1:${target.port}`, `http://localhost:${target.port}`]);
  else if (o >= 65) {
    headers.origin = dice.pick([...FOREIGN_ORIGINS, `http://127.0.0.1:${target.port + 1}`, `https://127.0.0.1:${target.port}`, `http://localhost:${target.port}/`]);
    if (!SAFE_METHODS.has(method)) defects.push('foreign Origin');
  }
  if (dice.chance(0.25)) {
    headers['sec-fetch-site'] = dice.pick(['cross-site', 'same-site', 'same-origin', 'none', 'bogus']);
    if (headers.origin === undefined && ['cross-site', 'same-site'].includes(headers['sec-fetch-site']) && !SAFE_METHODS.has(method)) defects.push('cross-site Sec-Fetch-Site');
  }
  if (dice.chance(0.5)) headers.accept = dice.pick(['application/json, text/event-stream', 'application/json', 'text/event-stream', '*/*', 'text/html']);
  if (dice.chance(0.03)) {
    headers['x-pad'] = 'a'.repeat(17_000);
    defects.push('headers over 16 KiB');
  }

  const hasBody = SAFE_METHODS.has(method) ? dice.chance(0.2) : dice.chance(0.9);
  let body: Buffer | undefined;
  let chunked = false;
  if (hasBody) {
    const refused = dice.chance(0.6);
    let kind = '';
    if (refused) [kind, body] = refusedBody(dice, route.path);
    else body = looseBody(dice, route.path);
    const t = dice.int(100);
    if (t < 70) headers['content-type'] = dice.pick(JSON_TYPES);
    else if (t < 85) headers['content-type'] = dice.pick(REFUSED_TYPES);
    else if (t < 95) headers['content-type'] = dice.pick(ODD_TYPES);
    const encoding = dice.chance(0.12) ? dice.pick([...REFUSED_ENCODINGS, 'identity', '']) : undefined;
    if (encoding !== undefined) headers['content-encoding'] = encoding;
    chunked = dice.chance(0.08);
    if (body.length > 0) {
      if (refused) defects.push(kind);
      if (headers['content-type'] === undefined || REFUSED_TYPES.includes(headers['content-type'])) defects.push('body that is not UTF-8 JSON');
      if (encoding !== undefined && REFUSED_ENCODINGS.includes(encoding)) defects.push('compressed body');
    }
  }
  const request: FuzzRequest = { target: target.name, port: target.port, route: `${route.method} ${route.path}`, method, path, headers, chunked, defects, ...(body ? { body } : {}) };
  if (!SAFE_METHODS.has(method) && defects.length === 0) forceDefect(dice, request);
  return request;
}

/** Adds one defect Sous must refuse to a state-changing request that has none. */
function forceDefect(dice: Dice, req: FuzzRequest): void {
  switch (dice.int(4)) {
    case 0:
      req.headers.origin = dice.pick(FOREIGN_ORIGINS);
      req.defects.push('foreign Origin');
      return;
    case 1:
      delete req.headers.origin;
      req.headers['sec-fetch-site'] = dice.pick(['cross-site', 'same-site']);
      req.defects.push('cross-site Sec-Fetch-Site');
      return;
    case 2:
      req.headers.host = dice.pick(BAD_HOSTS);
      req.defects.push('foreign Host');
      return;
    default: {
      const [kind, body] = refusedBody(dice, req.route.split(' ')[1] ?? '/');
      req.body = body;
      req.headers['content-type'] = 'application/json';
      delete req.headers['content-encoding'];
      req.defects.push(kind);
    }
  }
}
