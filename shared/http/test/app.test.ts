import type * as http from 'node:http';
import * as path from 'node:path';
import * as zlib from 'node:zlib';
import Joi from 'joi';
import { createLogger } from '@sous/logging';
import { ApiError } from '@sous/protocol';
import { boundPort, closeServer, createApp, listen, PortInUseError, validate } from '@sous/http';
import { rawRequest } from '../../../test/support/http';
import { makeTempDir, rmTempDir } from '../../../test/support/tmp';

describe('Sous HTTP surface kit (real HTTP over loopback)', () => {
  let dir: string;
  let server: http.Server;
  let port: number;
  let allowedHosts: string[] = [];
  let allowedOrigins: string[] = [];
  let changes = 0;

  beforeAll(async () => {
    dir = makeTempDir();
    const logger = createLogger({ name: 'test', file: path.join(dir, 'test.log'), level: 'silent' });
    const app = createApp({
      logger,
      port: () => port,
      allowedHosts: () => allowedHosts,
      allowedOrigins: () => allowedOrigins,
      bodyLimitBytes: 1024,
      routes: (a) => {
        a.get('/thing', (_req, res) => {
          res.json({ ok: true });
        });
        a.post('/thing', (req, res) => {
          const body = validate(Joi.object({ name: Joi.string().required(), top_n: Joi.number().integer().min(1).max(50) }), req.body, 'body');
          changes++;
          res.json({ got: body });
        });
        a.get('/thing/:id', (req, res) => {
          res.json(validate(Joi.object({ id: Joi.string().max(200) }), req.params, 'params'));
        });
        a.post('/thing/:id', (req, res) => {
          validate(Joi.object({ id: Joi.string().max(200) }), req.params, 'params');
          validate(Joi.object({}), req.body, 'body');
          changes++;
          res.json({ ok: true });
        });
        a.get('/boom', () => {
          throw new Error('secret internal detail');
        });
        a.get('/gone', () => {
          throw new ApiError('not_found', 'no such thing', 'path');
        });
      },
    });
    server = await listen(app, '127.0.0.1', 0);
    port = boundPort(server);
  });

  afterAll(async () => {
    await closeServer(server);
    rmTempDir(dir);
  });

  beforeEach(() => {
    allowedHosts = [];
    allowedOrigins = [];
  });

  const expectError = (res: { status: number; json: any }, status: number, code: string) => {
    expect(res.status).toBe(status);
    expect(res.json.error.code).toBe(code);
    expect(typeof res.json.error.message).toBe('string');
    expect(res.json.error.message.length).toBeGreaterThan(10);
  };

  test('accepts the bound loopback address and localhost', async () => {
    expect((await rawRequest({ port, path: '/thing' })).status).toBe(200);
    expect((await rawRequest({ port, path: '/thing', headers: { host: `localhost:${port}` } })).status).toBe(200);
  });

  test('refuses a rebinding attacker\'s Host header (DNS rebinding, CVE-2025-66414 class)', async () => {
    const res = await rawRequest({ port, path: '/thing', headers: { host: `evil.example:${port}` } });
    expectError(res, 403, 'forbidden_host');
    expect(res.json.error.where).toBe('header.host');
  });

  test('refuses loopback names with another port, and accepts allowlisted hosts after a config change', async () => {
    expectError(await rawRequest({ port, path: '/thing', headers: { host: `127.0.0.1:${port + 1}` } }), 403, 'forbidden_host');
    expectError(await rawRequest({ port, path: '/thing', headers: { host: 'sous.internal' } }), 403, 'forbidden_host');
    allowedHosts = ['sous.internal'];
    expect((await rawRequest({ port, path: '/thing', headers: { host: 'sous.internal' } })).status).toBe(200);
  });

  test('refuses a state-changing request from a foreign Origin (cross-site, CVE-2024-28224 class) and changes nothing', async () => {
    const before = changes;
    const res = await rawRequest({ port, method: 'POST', path: '/thing', headers: { origin: 'https://evil.example', 'content-type': 'application/json' }, body: '{"name":"x"}' });
    expectError(res, 403, 'forbidden_origin');
    expectError(await rawRequest({ port, method: 'POST', path: '/thing', headers: { origin: 'null', 'content-type': 'application/json' }, body: '{"name":"x"}' }), 403, 'forbidden_origin');
    expect(changes).toBe(before);
  });

  test('allows same-origin, allowlisted-origin and Origin-less (CLI) state changes', async () => {
    const post = (headers: Record<string, string>) => rawRequest({ port, method: 'POST', path: '/thing', headers: { 'content-type': 'application/json', ...headers }, body: '{"name":"x"}' });
    expect((await post({ origin: `http://127.0.0.1:${port}` })).status).toBe(200);
    expect((await post({})).status).toBe(200);
    allowedOrigins = ['https://cockpit.example'];
    expect((await post({ origin: 'https://cockpit.example' })).status).toBe(200);
  });

  test('a GET with a foreign Origin is still served (reads are not state changes; no CORS headers are sent)', async () => {
    const res = await rawRequest({ port, path: '/thing', headers: { origin: 'https://evil.example' } });
    expect(res.status).toBe(200);
    expect(res.headers['access-control-allow-origin']).toBeUndefined();
  });

  test('an Origin passes only when it is exactly this server: a page on http://localhost, another port or https is refused (issue 15)', async () => {
    const before = changes;
    const post = (origin: string) => rawRequest({ port, method: 'POST', path: '/thing', headers: { origin, 'content-type': 'application/json' }, body: '{"name":"x"}' });
    for (const origin of ['http://localhost', 'http://localhost:3000', 'http://127.0.0.1', `https://127.0.0.1:${port}`, `http://localhost:${port}/`, `http://127.0.0.1:${port + 1}`]) {
      const res = await post(origin);
      expectError(res, 403, 'forbidden_origin');
      expect(res.json.error.where).toBe('header.origin');
    }
    expect(changes).toBe(before);
    for (const origin of [`http://localhost:${port}`, `http://[::1]:${port}`, `http://127.0.0.1:${port}`]) expect((await post(origin)).status).toBe(200);
  });

  test('a browser request from another site without an Origin (Sec-Fetch-Site) may not change state; reads and same-origin pass', async () => {
    const before = changes;
    const post = (site: string) => rawRequest({ port, method: 'POST', path: '/thing', headers: { 'sec-fetch-site': site, 'content-type': 'application/json' }, body: '{"name":"x"}' });
    for (const site of ['cross-site', 'same-site']) {
      const res = await post(site);
      expectError(res, 403, 'forbidden_origin');
      expect(res.json.error.where).toBe('header.sec-fetch-site');
    }
    expect(changes).toBe(before);
    expect((await post('same-origin')).status).toBe(200);
    expect((await post('none')).status).toBe(200);
    expect((await rawRequest({ port, path: '/thing', headers: { 'sec-fetch-site': 'cross-site' } })).status).toBe(200);
  });

  test('behind a reverse proxy, an allowed host name is its own origin only for requests addressed to it', async () => {
    allowedHosts = ['sous.internal'];
    const post = (host: string, origin: string) => rawRequest({ port, method: 'POST', path: '/thing', headers: { host, origin, 'content-type': 'application/json' }, body: '{"name":"x"}' });
    expect((await post('sous.internal', 'https://sous.internal')).status).toBe(200);
    expect((await post('sous.internal:8443', 'https://sous.internal:8443')).status).toBe(200);
    expectError(await post('sous.internal', 'https://sous.internal:8443'), 403, 'forbidden_origin');
    expectError(await post(`127.0.0.1:${port}`, 'https://sous.internal'), 403, 'forbidden_origin');
  });

  test('client mistakes in ids, encodings and bodies are 4xx naming where, never 500, and change nothing (issue 15)', async () => {
    const before = changes;
    const post = (p: string, body: string | Buffer, headers: Record<string, string> = {}) => rawRequest({ port, method: 'POST', path: p, headers: { 'content-type': 'application/json', ...headers }, body });
    for (const garbage of ['%E0%A4%A', '%zz', 'a%', '%C0%AF']) {
      const res = await rawRequest({ port, path: `/thing/${garbage}` });
      expectError(res, 400, 'invalid_query');
      expect(res.json.error.where).toBe('path');
    }
    const nulId = await post('/thing/a%00b', '{}');
    expectError(nulId, 400, 'invalid_query');
    expect(nulId.json.error.where).toBe('params.id');
    for (const [body, encoding] of [[zlib.gzipSync('{}'), 'gzip'], [Buffer.from('{}'), 'gzip'], [Buffer.from('{}'), 'br'], [Buffer.from('{}'), 'x-unknown']] as const) {
      const res = await post('/thing/a', body, { 'content-encoding': encoding });
      expectError(res, 415, 'unsupported_media_type');
      expect(res.json.error.where).toBe('header.content-encoding');
    }
    const cases: Array<[string, string]> = [
      ['{"name":"x","__proto__":{"polluted":true}}', 'body.__proto__'],
      ['{"name":"x","nested":{"a":[{"constructor":{"prototype":{}}}]}}', 'body.nested.a.0.constructor'],
      ['{"name":"x","prototype":1}', 'body.prototype'],
      ['{"name":"a\\u0000b"}', 'body.name'],
      ['{"name":"x","k\\u0000":1}', 'body.k\\u0000'],
    ];
    for (const [body, where] of cases) {
      const res = await post('/thing', body);
      expectError(res, 400, 'invalid_body');
      expect(res.json.error.where).toBe(where);
    }
    const query = await rawRequest({ port, path: '/thing?x=a%00' });
    expectError(query, 400, 'invalid_query');
    expect(query.json.error.where).toBe('query.x');
    expect(changes).toBe(before);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  test('requests node\'s HTTP parser refuses get the JSON error shape too (a HEAD gets the head only)', async () => {
    expectError(await rawRequest({ port, method: 'FOO', path: '/thing' }), 400, 'invalid_request');
    expectError(await rawRequest({ port, path: '/thing', headers: { 'x-pad': 'a'.repeat(17_000) } }), 431, 'headers_too_large');
    const head = await rawRequest({ port, method: 'HEAD', path: '/thing', headers: { 'x-pad': 'a'.repeat(17_000) } });
    expect(head.status).toBe(431);
    expect(head.text).toBe('');
  });

  test('bad bodies get 4xx with the one error shape', async () => {
    const post = (body: string, type = 'application/json') => rawRequest({ port, method: 'POST', path: '/thing', headers: { 'content-type': type }, body });
    expectError(await post('{"name": '), 400, 'invalid_json');
    expectError(await post('x'.repeat(5000)), 413, 'payload_too_large');
    expectError(await post('name=x', 'application/x-www-form-urlencoded'), 415, 'unsupported_media_type');
    const invalid = await post('{"name":"x","top_n":0}');
    expectError(invalid, 400, 'invalid_body');
    expect(invalid.json.error.where).toBe('body.top_n');
    expect(invalid.json.error.message).toMatch(/top_n/);
  });

  test('unknown paths are 404 JSON; internal errors are 500 without leaking details', async () => {
    expectError(await rawRequest({ port, path: '/nope' }), 404, 'not_found');
    expectError(await rawRequest({ port, path: '/gone' }), 404, 'not_found');
    const boom = await rawRequest({ port, path: '/boom' });
    expectError(boom, 500, 'internal');
    expect(boom.text).not.toMatch(/secret internal detail/);
  });

  test('a busy port is refused with the next free port named', async () => {
    const app = createApp({ logger: createLogger({ name: 't', level: 'silent' }), port: () => port, allowedHosts: () => [], allowedOrigins: () => [], routes: () => undefined });
    const err = await listen(app, '127.0.0.1', port).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PortInUseError);
    expect((err as PortInUseError).message).toMatch(new RegExp(`port ${port} .*in use.*--port \\d+`));
    expect((err as PortInUseError).nextFree).toBeGreaterThan(port);
  });
});
