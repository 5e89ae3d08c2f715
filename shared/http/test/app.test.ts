import type * as http from 'node:http';
import * as path from 'node:path';
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
