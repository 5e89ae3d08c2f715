/**
 * Authentication and rate limits on the three HTTP surfaces (docs/deployment.md, "Authentication
 * and rate limits"): the daemon, the context API and the chat proxy run as real processes with
 * SOUS_AUTH_TOKENS; every route but `/healthz` (and the cockpit's static shell) wants a Bearer
 * token, fast lanes included; the proxy never passes the client's token upstream; a non-loopback
 * bind without tokens and a malformed token file stop the process (exit 2, one line); the limiter
 * answers 429 with Retry-After, each token name with its own budget.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { embeddedEnv, freePort, sous } from './support/cli';
import { startFakeUpstream, type FakeUpstream } from './support/fake-upstream';
import { rawRequest, type RawResponse } from './support/http';
import { makeGitRepo, makeTempDir, rmTempDir } from './support/tmp';
import { until } from './support/wait';

const ROOT = path.join(__dirname, '..');
const ENTRY = {
  daemon: path.join(ROOT, 'services/daemon/dist/main.js'),
  context: path.join(ROOT, 'services/context/dist/main.js'),
  proxy: path.join(ROOT, 'services/proxy/dist/main.js'),
};
const TEAM_A = 'a1'.repeat(32);
const TEAM_B = 'b2'.repeat(32);
const WRONG = 'ff'.repeat(32);
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

let repo: string;
let secrets: string;
let env: NodeJS.ProcessEnv;
let upstream: FakeUpstream;
const children: ChildProcess[] = [];
const ports = { daemon: 0, context: 0, proxy: 0, limited: 0 };

/** Starts a surface process and waits for its liveness answer. */
async function start(kind: keyof typeof ENTRY, extraEnv: NodeJS.ProcessEnv = {}): Promise<number> {
  const port = await freePort();
  const child = spawn(process.execPath, [ENTRY[kind], '--path', repo, '--port', String(port)], { env: { ...env, ...extraEnv }, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr?.on('data', (c: Buffer) => (stderr += c.toString()));
  children.push(child);
  await until(async () => {
    if (child.exitCode !== null) throw new Error(`${kind} exited: ${stderr}`);
    return (await rawRequest({ port, path: '/healthz' }).catch(() => undefined))?.status === 200 ? true : undefined;
  }, 90_000, 100);
  return port;
}

/** Runs a surface that must refuse to start: its exit code and stderr. */
function refused(kind: keyof typeof ENTRY, args: string[], extraEnv: NodeJS.ProcessEnv): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [ENTRY[kind], '--path', repo, '--port', '0', ...args], { env: { ...env, ...extraEnv }, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr?.on('data', (c: Buffer) => (stderr += c.toString()));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${kind} did not refuse to start: ${stderr}`));
    }, 30_000);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stderr });
    });
  });
}

const get = (port: number, p: string, headers: Record<string, string> = {}) => rawRequest({ port, path: p, headers, timeoutMs: 20_000 });
const post = (port: number, p: string, body: unknown, headers: Record<string, string> = {}) =>
  rawRequest({ port, method: 'POST', path: p, headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body), timeoutMs: 20_000 });

function expectUnauthorized(res: RawResponse, wrongToken: boolean): void {
  expect(res.status).toBe(401);
  expect(res.json?.error).toMatchObject({ code: 'unauthorized', where: 'header.authorization' });
  expect(res.headers['www-authenticate']).toBe(wrongToken ? 'Bearer realm="sous", error="invalid_token"' : 'Bearer realm="sous"');
  // The answer never echoes a token.
  expect(res.text).not.toContain(WRONG);
}

beforeAll(async () => {
  repo = makeGitRepo();
  secrets = makeTempDir('sous-secrets-');
  upstream = await startFakeUpstream({ name: 'upstream' });
  fs.mkdirSync(path.join(repo, '.sous'), { recursive: true });
  fs.writeFileSync(path.join(repo, '.sous', 'config.toml'), `[backend]\nbase_url = "${upstream.baseUrl}"\n`);
  const tokenFile = path.join(secrets, 'tokens');
  fs.writeFileSync(tokenFile, `# one line per team\nteam-a ${TEAM_A}\nteam-b:${TEAM_B}\n`);
  env = embeddedEnv({ SOUS_AUTH_TOKENS_FILE: tokenFile });
  ports.daemon = await start('daemon');
  // The context API reads the index from this daemon (embedded topology), with its own token.
  [ports.context, ports.proxy, ports.limited] = await Promise.all([start('context'), start('proxy'), start('proxy', { SOUS_RATE_LIMIT_PER_MINUTE: '3' })]);
  await until(async () => ((await get(ports.daemon, '/status', bearer(TEAM_A))).json?.index?.state === 'ready' ? true : undefined), 60_000, 200);
}, 180_000);

afterAll(async () => {
  for (const child of children) child.kill('SIGTERM');
  await Promise.all(children.map((c) => (c.exitCode !== null ? undefined : new Promise((r) => c.once('exit', r)))));
  await upstream?.close();
  rmTempDir(repo);
  rmTempDir(secrets);
}, 60_000);

describe('every surface asks for a token', () => {
  test('daemon: 401 without or with a wrong token, 200 with a right one; /healthz and the cockpit shell are open', async () => {
    expectUnauthorized(await get(ports.daemon, '/status'), false);
    expectUnauthorized(await get(ports.daemon, '/status', bearer(WRONG)), true);
    expectUnauthorized(await get(ports.daemon, '/status', { authorization: 'Basic dXNlcjpwYXNz' }), true);
    expectUnauthorized(await get(ports.daemon, '/no-such-route'), false);
    expectUnauthorized(await post(ports.daemon, '/signals', { kind: 'x' }), false);
    expect((await get(ports.daemon, '/status', bearer(TEAM_B))).json.status).toBe('ok');
    const health = await get(ports.daemon, '/healthz');
    expect([health.status, health.json]).toEqual([200, { ok: true }]);
    expect((await get(ports.daemon, '/')).headers['content-type']).toContain('text/html');
    expect((await get(ports.daemon, '/cockpit/main.js')).status).toBe(200);
    expect((await get(ports.daemon, '/manifest.webmanifest')).status).toBe(200);
  });

  test('context API: 401 without or with a wrong token; with one it answers from the index it read from the daemon', async () => {
    expectUnauthorized(await post(ports.context, '/v1/context', { prompt: 'answer' }), false);
    expectUnauthorized(await post(ports.context, '/v1/context', { prompt: 'answer' }, bearer(WRONG)), true);
    const ok = await until(async () => {
      const res = await post(ports.context, '/v1/context', { prompt: 'where is answer defined' }, bearer(TEAM_A));
      return res.status === 200 && res.json.items.length > 0 ? res : undefined;
    }, 60_000, 200);
    expect(ok.json.items.map((i: { path: string }) => i.path)).toContain('src/index.ts');
    // Liveness reveals nothing without a token; with one, the details.
    expect((await get(ports.context, '/healthz')).json).toEqual({ ok: true });
    expect((await get(ports.context, '/healthz', bearer(TEAM_A))).json).toMatchObject({ ok: true, status: 'ok', service: 'context' });
  });

  test('proxy: 401 in the OpenAI shape on every route, the chat fast lane included', async () => {
    const chat = { model: 'fake-model', messages: [{ role: 'user', content: 'hello' }] };
    for (const res of [await get(ports.proxy, '/v1/models'), await post(ports.proxy, '/v1/chat/completions', chat), await get(ports.proxy, '/v1/traces')]) {
      expectUnauthorized(res, false);
      expect(res.json.error.type).toBe('authentication_error');
    }
    expectUnauthorized(await post(ports.proxy, '/v1/chat/completions', chat, bearer(WRONG)), true);
    expect((await get(ports.proxy, '/healthz')).json).toEqual({ ok: true });
    expect((await get(ports.proxy, '/v1/models', bearer(TEAM_A))).status).toBe(200);
  });

  test('fast lanes: a cached /v1/context answer (daemon and context API) is still refused without a token', async () => {
    for (const port of [ports.daemon, ports.context]) {
      const body = { prompt: `answer fast lane ${port}` };
      expect((await post(port, '/v1/context', body, bearer(TEAM_A))).status).toBe(200);
      // The same text again is answered from the lane's cache, before express.
      expect((await post(port, '/v1/context', body, bearer(TEAM_A))).status).toBe(200);
      expectUnauthorized(await post(port, '/v1/context', body), false);
      expectUnauthorized(await post(port, '/v1/context', body, bearer(WRONG)), true);
    }
  });

  test('MCP over HTTP on the daemon: refused without a token; with one, tools call the daemon as that client', async () => {
    expectUnauthorized(await post(ports.daemon, '/mcp', { jsonrpc: '2.0', id: 1, method: 'tools/list' }, { accept: 'application/json, text/event-stream' }), false);
    const client = new Client({ name: 'sous-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${ports.daemon}/mcp`), { requestInit: { headers: bearer(TEAM_A) } }));
    try {
      const result = (await client.callTool({ name: 'sous_status', arguments: {} })) as { isError?: boolean; content?: Array<{ text?: string }> };
      expect(result.isError).not.toBe(true);
      // The tool read the daemon's /status, which wants a token: the caller's went with it.
      expect(JSON.stringify(result.content)).toContain(repo);
    } finally {
      await client.close();
    }
  });

  test('the CLI sends SOUS_TOKEN', async () => {
    const without = await sous(['status', '--path', repo, '--json'], { env });
    expect(without.code).not.toBe(0);
    // With --json the refusal is JSON on stdout (docs/errors.md).
    expect(without.json.error.message).toMatch(/asks for a token/);
    const plain = await sous(['status', '--path', repo], { env });
    expect(plain.stderr).toMatch(/^sous: .*asks for a token/);
    const withToken = await sous(['status', '--path', repo, '--json'], { env: { ...env, SOUS_TOKEN: TEAM_A } });
    expect(withToken.code).toBe(0);
  });
});

test('the proxy forwards chat requests upstream without the client token', async () => {
  const res = await post(ports.proxy, '/v1/chat/completions', { model: 'fake-model', messages: [{ role: 'user', content: 'marker-no-token-upstream' }] }, bearer(TEAM_A));
  expect(res.status).toBe(200);
  const got = upstream.received.find((r) => JSON.stringify(r.body ?? '').includes('marker-no-token-upstream'));
  expect(got).toBeDefined();
  expect(got?.headers.authorization).toBeUndefined();
  expect(JSON.stringify(got?.headers)).not.toContain(TEAM_A);
});

test('rate limit: 429 with Retry-After after the limit, counted per token name, fast lane and express alike', async () => {
  const chat = (token: string) => post(ports.limited, '/v1/chat/completions', { model: 'fake-model', messages: [{ role: 'user', content: 'hi' }] }, bearer(token));
  const first = await chat(TEAM_A);
  expect(first.status).toBe(200);
  expect(first.headers.ratelimit).toMatch(/^limit=3, remaining=2, reset=\d+$/);
  expect((await get(ports.limited, '/v1/models', bearer(TEAM_A))).status).toBe(200);
  expect((await chat(TEAM_A)).status).toBe(200);
  const limited = await chat(TEAM_A);
  expect(limited.status).toBe(429);
  expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
  expect(limited.json.error).toMatchObject({ code: 'rate_limited', type: 'rate_limit_error' });
  expect(limited.json.error.message).toContain('"team-a"');
  expect((await get(ports.limited, '/v1/models', bearer(TEAM_A))).status).toBe(429);
  // Another team has its own budget; liveness is never limited.
  expect((await chat(TEAM_B)).status).toBe(200);
  expect((await get(ports.limited, '/healthz')).status).toBe(200);
});

describe('refusing to start', () => {
  test.each(['context', 'daemon'] as const)('%s on 0.0.0.0 without tokens exits 2 with one line', async (kind) => {
    const { SOUS_AUTH_TOKENS_FILE: _, ...noTokens } = env;
    const child = spawn(process.execPath, [ENTRY[kind], '--path', repo, '--port', '0', '--host', '0.0.0.0'], { env: noTokens, stdio: ['ignore', 'ignore', 'pipe'] });
    const { code, stderr } = await new Promise<{ code: number | null; stderr: string }>((resolve) => {
      let err = '';
      child.stderr?.on('data', (c: Buffer) => (err += c.toString()));
      child.on('exit', (c) => resolve({ code: c, stderr: err }));
    });
    expect(code).toBe(2);
    const lines = stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(new RegExp(`^sous ${kind}: listening on 0\\.0\\.0\\.0 \\(not loopback\\) needs tokens: set SOUS_AUTH_TOKENS or SOUS_AUTH_TOKENS_FILE`));
  });

  test('a malformed token file stops the process, naming the line and never the token', async () => {
    const bad = path.join(secrets, 'bad-tokens');
    const short = 'shortsecret123';
    fs.writeFileSync(bad, `team-a ${TEAM_A}\nteam-c ${short}\n`);
    const { code, stderr } = await refused('context', [], { SOUS_AUTH_TOKENS_FILE: bad });
    expect(code).toBe(2);
    expect(stderr.trim().split('\n')).toEqual([`sous context: SOUS_AUTH_TOKENS_FILE ${bad} line 2 (name "team-c"): the token has ${short.length} characters, at least 32 are needed (make one with: openssl rand -hex 32)`]);
    expect(stderr).not.toContain(short);
  });
});
