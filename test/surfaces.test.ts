/**
 * The proxy (8471) and context API (8472) processes are separate entry points, so the
 * three-container topology needs no redesign: each answers health, guards Host like the daemon,
 * and gives the documented error shape (the chat proxy refuses a body that is not a chat request, naming
 * the field, docs/proxy.md; the context API without a daemon to read the index from: 503 saying what to start).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import * as path from 'node:path';
import { embeddedEnv, freePort } from './support/cli';
import { rawRequest } from './support/http';
import { makeGitRepo, rmTempDir } from './support/tmp';
import { until } from './support/wait';

const ROOT = path.join(__dirname, '..');
const ENTRIES = {
  proxy: path.join(ROOT, 'services', 'proxy', 'dist', 'main.js'),
  context: path.join(ROOT, 'services', 'context', 'dist', 'main.js'),
};

function start(entry: string, args: string[]): { child: ChildProcess; stderr: () => string; exited: Promise<number | null> } {
  const child = spawn(process.execPath, [entry, ...args], { env: embeddedEnv(), stdio: ['ignore', 'ignore', 'pipe'] });
  let err = '';
  child.stderr?.setEncoding('utf8').on('data', (d: string) => (err += d));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, stderr: () => err, exited };
}

describe.each([
  ['proxy', ENTRIES.proxy, [] as string[], '/v1/chat/completions', 400, 'invalid_request', /model.*is required/],
  ['proxy --context-only', ENTRIES.proxy, ['--context-only'], '/v1/context', 503, 'unavailable', /no daemon is running for .*; start it with: sous up/],
  ['context', ENTRIES.context, [] as string[], '/v1/context', 503, 'unavailable', /no daemon is running for .*; start it with: sous up/],
])('%s process', (_name, entry, extra, route, status, code, message) => {
  let repo: string;
  let port: number;
  let proc: ReturnType<typeof start>;

  beforeAll(async () => {
    repo = makeGitRepo();
    port = await freePort();
    proc = start(entry, ['--path', repo, '--port', String(port), ...extra]);
    await until(async () => (await rawRequest({ port, path: '/healthz' }).catch(() => undefined))?.json, 15_000);
  });

  afterAll(async () => {
    proc.child.kill('SIGTERM');
    expect(await proc.exited).toBe(0);
    rmTempDir(repo);
  });

  test('answers /healthz and refuses foreign Host headers', async () => {
    const health = await rawRequest({ port, path: '/healthz' });
    expect(health.status).toBe(200);
    // A context process with no daemon to read the index from is up but degraded, and says why.
    if (route === '/v1/context') {
      expect(health.json.status).toBe('degraded');
      expect(health.json.reasons[0].reason).toMatch(message);
    } else expect(health.json.status).toBe('ok');
    const rebound = await rawRequest({ port, path: '/healthz', headers: { host: 'attacker.example' } });
    expect(rebound.status).toBe(403);
    expect(rebound.json.error.code).toBe('forbidden_host');
  });

  test(`${route} answers ${status} in the one error shape, and bad bodies 400`, async () => {
    const res = await rawRequest({ port, method: 'POST', path: route, headers: { 'content-type': 'application/json' }, body: '{"prompt":"x","top_n":3}' });
    expect(res.status).toBe(status);
    expect(res.json.error).toMatchObject({ code });
    expect(res.json.error.message).toMatch(message);
    const bad = await rawRequest({ port, method: 'POST', path: route, headers: { 'content-type': 'application/json' }, body: '{"prompt":' });
    expect(bad.status).toBe(400);
    expect(bad.json.error.code).toBe('invalid_json');
  });
});

test('an unknown flag or a busy port stops a surface with one line and exit code 2', async () => {
  const repo = makeGitRepo();
  try {
    const bad = start(ENTRIES.context, ['--path', repo, '--bogus', 'x']);
    expect(await bad.exited).toBe(2);
    expect(bad.stderr()).toMatch(/^sous context: unknown option --bogus.*\n$/);
    const port = await freePort();
    const first = start(ENTRIES.proxy, ['--path', repo, '--port', String(port)]);
    await until(async () => (await rawRequest({ port, path: '/healthz' }).catch(() => undefined))?.json, 15_000);
    const second = start(ENTRIES.proxy, ['--path', repo, '--port', String(port)]);
    expect(await second.exited).toBe(2);
    expect(second.stderr()).toMatch(new RegExp(`port ${port} on 127.0.0.1 is already in use; the next free port is \\d+: pin it with --port \\d+`));
    first.child.kill('SIGTERM');
    await first.exited;
  } finally {
    rmTempDir(repo);
  }
});
