/**
 * The server topology behind real Caddy over HTTPS. With a Docker engine, docker-compose.yml itself
 * through testcontainers (test/support/compose-site.ts). Without one (this project's CI), as processes: the
 * daemon, proxy and context roles start through the image's entry point (deploy/sous-entrypoint,
 * so under their supervisor/watchdog) with the environment `docker-compose config` renders for
 * them, pointed at a PostgreSQL schema and a BullMQ queue of their own, a temporary repository and
 * loopback ports; Caddy runs caddy/Caddyfile with only the upstreams, the site's port and its
 * storage rewritten, `tls internal`. The client trusts Caddy's internal root CA and nothing else.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as https from 'node:https';
import * as path from 'node:path';
import { renderCompose, ROOT } from './support/compose';
import { startComposeSite } from './support/compose-site';
import { embeddedEnv, freePort, gitSnapshot } from './support/cli';
import { startFakeBackend, type FakeBackend } from './support/fake-backend';
import { serverTopology } from './support/topologies';
import { makeGitRepo, makeTempDir, rmTempDir, writeFile } from './support/tmp';
import { until } from './support/wait';

const SITE = 'sous.localhost';
const TOKEN = 'c0ffee'.repeat(10) + 'c0ffee'.slice(0, 4); // 64 hex digits
const ROLES = ['daemon', 'proxy', 'context'] as const;
type Role = (typeof ROLES)[number];

const topology = serverTopology('tophttps');
let scratch: string;
let repo: string;
let before: ReturnType<typeof gitSnapshot>;
let fake: FakeBackend;
let httpsPort: number;
let rootCa: Buffer;
const ports = {} as Record<Role, number>;
const procs: ChildProcess[] = [];
/** Stops the compose project (Docker only). */
let stopSite: (() => Promise<void>) | undefined;

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

/** An HTTPS request to the site through Caddy, trusting only Caddy's root, with the bearer token (none when `token` is null). */
function request(method: string, urlPath: string, body?: string, token: string | null = TOKEN): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const auth = token === null ? {} : { authorization: `Bearer ${token}` };
    const req = https.request(
      { host: '127.0.0.1', port: httpsPort, servername: SITE, ca: rootCa, method, path: urlPath, headers: { host: `${SITE}:${httpsPort}`, ...auth, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) }, timeout: 20_000 },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text }));
      },
    );
    req.on('error', reject);
    req.on('timeout', () => req.destroy(new Error('timed out')));
    req.end(body);
  });
}

/** A streamed answer read as it arrives: `text()` is what came so far; `done` resolves at its end. */
function stream(method: string, urlPath: string, body?: string): { text: () => string; done: Promise<void>; status: Promise<number>; close: () => void } {
  let text = '';
  let req: ReturnType<typeof https.request> | undefined;
  let setStatus: (s: number) => void = () => undefined;
  const status = new Promise<number>((r) => (setStatus = r));
  const done = new Promise<void>((resolve, reject) => {
    req = https.request(
      { host: '127.0.0.1', port: httpsPort, servername: SITE, ca: rootCa, method, path: urlPath, headers: { host: `${SITE}:${httpsPort}`, authorization: `Bearer ${TOKEN}`, accept: 'text/event-stream', ...(body !== undefined ? { 'content-type': 'application/json' } : {}) } },
      (res) => {
        setStatus(res.statusCode ?? 0);
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        res.on('end', () => resolve());
        res.on('error', () => resolve());
      },
    );
    req.on('error', reject);
    req.end(body);
  });
  done.catch(() => undefined);
  return { text: () => text, done, status, close: () => req?.destroy() };
}

/** caddy/Caddyfile with the compose service names replaced by loopback ports and the site on a free HTTPS port. */
function testCaddyfile(dataDir: string, httpPort: number): string {
  let text = fs.readFileSync(path.join(ROOT, 'caddy/Caddyfile'), 'utf8');
  for (const role of ROLES) {
    const upstream = new RegExp(`reverse_proxy ${role}:\\d+`);
    expect(text).toMatch(upstream);
    text = text.replace(upstream, `reverse_proxy 127.0.0.1:${ports[role]}`);
  }
  const site = '{$SOUS_SITE_HOST:sous.localhost} {';
  expect(text).toContain(site);
  const global = `{\n\tadmin off\n\tskip_install_trust\n\thttp_port ${httpPort}\n\thttps_port ${httpsPort}\n\tstorage file_system {\n\t\troot ${dataDir}/caddy\n\t}\n}\n\n`;
  return global + text.replace(site, `${SITE}:${httpsPort} {`).replace('tls {$SOUS_TLS:internal}', 'tls internal');
}

/**
 * The three roles as processes through the image's entry point, with the environment compose
 * renders for them, and real Caddy in front (no Docker engine).
 */
async function startProcessSite(config: string, httpPort: number): Promise<void> {
  for (const role of ROLES) ports[role] = await freePort();
  // The environment compose gives each service, with the test's token.
  const compose = renderCompose({
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: scratch,
    POSTGRES_PASSWORD: 'unused0123456789',
    REDIS_PASSWORD: 'unused0123456789',
    SOUS_AUTH_TOKENS: `team:${TOKEN}`,
  });
  const topologyEnv = await topology.env();
  for (const role of ROLES) {
    const service = compose.services[role];
    expect(service?.command).toBe(role);
    const state = path.join(scratch, `${role}-state`);
    fs.mkdirSync(state, { recursive: true });
    fs.writeFileSync(path.join(state, 'config.toml'), config, { mode: 0o444 });
    const env: NodeJS.ProcessEnv = {
      ...embeddedEnv(),
      ...Object.fromEntries(Object.entries(service?.environment ?? {}).map(([k, v]) => [k, v ?? ''])),
      // What a container gets from its mounts and network, here on loopback.
      SOUS_PATH: repo,
      SOUS_STATE_DIR: state,
      SOUS_HOST: '127.0.0.1',
      SOUS_PORT: String(ports[role]),
      DATABASE_URL: topologyEnv.DATABASE_URL,
      SOUS_DB_SCHEMA: topologyEnv.SOUS_DB_SCHEMA,
      REDIS_URL: topologyEnv.REDIS_URL,
      SOUS_QUEUE_NAME: topologyEnv.SOUS_QUEUE_NAME,
      SOUS_HOME: topologyEnv.SOUS_HOME,
      ...(role === 'proxy' ? { SOUS_DAEMON_URL: `http://127.0.0.1:${ports.daemon}` } : {}),
    };
    expect(env.SOUS_AUTH_TOKENS).toBe(`team:${TOKEN}`);
    expect(env.NODE_OPTIONS).toMatch(/--max-old-space-size=\d+/);
    const proc = spawn('sh', [path.join(ROOT, 'deploy/sous-entrypoint'), role], { env, stdio: ['ignore', 'ignore', 'pipe'] });
    proc.stderr?.resume();
    procs.push(proc);
    if (role === 'daemon') await until(async () => ((await fetch(`http://127.0.0.1:${ports.daemon}/status`, { headers: { authorization: `Bearer ${TOKEN}` } }).then((r) => r.json() as Promise<{ index?: { state?: string } }>).catch(() => undefined))?.index?.state === 'ready' ? true : undefined), 90_000, 200);
  }

  const caddyfile = path.join(scratch, 'Caddyfile');
  fs.writeFileSync(caddyfile, testCaddyfile(path.join(scratch, 'data'), httpPort));
  const caddy = spawn('caddy', ['run', '--config', caddyfile, '--adapter', 'caddyfile'], {
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: scratch, XDG_DATA_HOME: path.join(scratch, 'data'), XDG_CONFIG_HOME: path.join(scratch, 'config') },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  caddy.stderr?.resume();
  procs.push(caddy);
  const rootFile = path.join(scratch, 'data', 'caddy', 'pki', 'authorities', 'local', 'root.crt');
  rootCa = await until(() => (fs.existsSync(rootFile) ? fs.readFileSync(rootFile) : undefined), 30_000, 100);
}

beforeAll(async () => {
  scratch = makeTempDir('sous-topology-https-');
  repo = makeGitRepo();
  writeFile(repo, 'src/user.ts', 'export function getUserName(id: string): string {\n  return lookup(id).name;\n}\n');
  writeFile(repo, 'src/report.ts', "import { getUserName } from './user';\nexport const line = (id: string) => `user ${getUserName(id)}`;\n");
  before = gitSnapshot(repo);
  // With a Docker engine (found once per run by test/support/global-services.js) the real images
  // run under docker-compose.yml; they reach the fake model server through the Docker host.
  const docker = process.env.SOUS_TEST_DOCKER === '1';
  fake = await startFakeBackend(docker ? { host: '0.0.0.0' } : {});
  httpsPort = await freePort();
  const httpPort = await freePort();
  const backendUrl = docker ? `http://host.docker.internal:${fake.port}/v1` : fake.baseUrl;
  // deploy/config.toml as mounted into every service, with the backend pointed at the fake.
  const config = fs.readFileSync(path.join(ROOT, 'deploy/config.toml'), 'utf8').replace(/^base_url = .*$/m, `base_url = "${backendUrl}"`);
  expect(config).toContain(backendUrl);
  if (docker) {
    const site = await startComposeSite({ repo, config, scratch, tokens: `team:${TOKEN}`, httpPort, httpsPort });
    rootCa = site.rootCa;
    stopSite = site.stop;
  } else await startProcessSite(config, httpPort);
  // Ready when the site answers over TLS with a certificate chaining to that root, and every role
  // answers through it: the daemon, the proxy, and the context API (a 502 is Caddy finding no one there).
  const deadline = docker ? 300_000 : 60_000;
  for (const probe of ['/status', '/v1/models']) await until(async () => ((await request('GET', probe).catch(() => undefined))?.status === 200 ? true : undefined), deadline, 200);
  const ask = JSON.stringify({ prompt: 'getUserName', top_n: 1 });
  await until(async () => {
    const status = (await request('POST', '/v1/context', ask).catch(() => undefined))?.status;
    return status !== undefined && status < 500 ? true : undefined;
  }, deadline, 200);
  // Building the images takes minutes; the processes' own waits bound the run without Docker.
}, 20 * 60_000);

afterAll(async () => {
  // All at once, as `docker compose down` stops them: SIGTERM, and SIGKILL after its 10 s default
  // grace tripled (a loaded machine; a clean stop is the supervisor suites' business, not this one's).
  await Promise.all(
    procs.map(async (proc) => {
      if (proc.exitCode !== null || proc.signalCode !== null) return;
      const exited = new Promise((r) => proc.once('exit', r));
      proc.kill('SIGTERM');
      const late = setTimeout(() => proc.kill('SIGKILL'), 30_000);
      await exited;
      clearTimeout(late);
    }),
  );
  await stopSite?.();
  await fake?.close();
  await topology.cleanup();
  rmTempDir(repo);
  rmTempDir(scratch);
}, 90_000);

test('the daemon answers /status through Caddy over HTTPS, with Caddy’s security headers', async () => {
  const res = await request('GET', '/status');
  expect(res.status).toBe(200);
  expect(JSON.parse(res.text)).toHaveProperty('index.state');
  expect(res.headers['strict-transport-security']).toBe('max-age=31536000');
  expect(res.headers['x-content-type-options']).toBe('nosniff');
  expect(res.headers['referrer-policy']).toBe('no-referrer');
  expect(res.headers['x-frame-options']).toBe('DENY');
  expect(res.headers['content-security-policy']).toBe("frame-ancestors 'none'");
  expect(res.headers.server).toBeUndefined();
});

test('without the team token every service refuses through Caddy (401, the JSON error naming the header); the liveness route stays open', async () => {
  const chat = JSON.stringify({ model: 'fake', messages: [{ role: 'user', content: 'hi' }] });
  const context = JSON.stringify({ prompt: 'getUserName', top_n: 3 });
  for (const [method, route, body] of [['GET', '/status', undefined], ['POST', '/v1/context', context], ['POST', '/v1/chat/completions', chat]] as const) {
    for (const token of [null, 'f'.repeat(64)]) {
      const res = await request(method, route, body, token);
      expect({ route, status: res.status }).toEqual({ route, status: 401 });
      expect(res.headers['www-authenticate']).toMatch(/^Bearer/);
      expect(res.text).toContain('authorization');
    }
  }
  const live = await request('GET', '/healthz', undefined, null);
  expect(live.status).toBe(200);
  expect(JSON.parse(live.text)).toEqual({ ok: true });
});

test('the context API answers a real query from the index the daemon stored in PostgreSQL', async () => {
  const ask = () => request('POST', '/v1/context', JSON.stringify({ prompt: 'getUserName returns undefined for new users', top_n: 3 }));
  // The context process reads the stored index; on a loaded machine its first read may still be warming.
  const items = await until(async () => {
    const res = await ask();
    const found = res.status === 200 ? (JSON.parse(res.text) as { items: Array<{ path: string }> }).items : [];
    return found[0]?.path === 'src/user.ts' ? found : undefined;
  }, 30_000, 250);
  expect(items[0]?.path).toBe('src/user.ts');
});

test('Caddy refuses a request body over its cap before it reaches a service', async () => {
  const res = await request('POST', '/v1/context', JSON.stringify({ prompt: 'x'.repeat(3 * 1024 * 1024) }));
  // Caddy 2.7+ (the image's) answers 413; Debian's 2.6 reports the cut body as 502. Either way it is
  // Caddy's answer, not the service's JSON error (the service's own 1 MiB limit would say 413 in JSON).
  expect([413, 502]).toContain(res.status);
  expect(res.text).not.toContain('"error"');
});

test('chat completions stream through Caddy chunk by chunk: the first arrives while the upstream still holds the stream open', async () => {
  fake.holdStreams = true;
  const chat = stream('POST', '/v1/chat/completions', JSON.stringify({ model: 'qwen2.5-coder:1.5b', stream: true, messages: [{ role: 'user', content: 'where is getUserName defined?' }] }));
  try {
    expect(await chat.status).toBe(200);
    await until(() => (chat.text().includes('"role":"assistant"') ? true : undefined), 30_000);
    // Flushed, not merely delivered: the upstream has not finished this stream yet.
    expect(fake.heldStreams()).toBe(1);
    expect(chat.text()).not.toContain('[DONE]');
    fake.releaseStreams();
    await chat.done;
    expect(chat.text()).toContain('"finish_reason":"stop"');
    expect(chat.text().trimEnd().endsWith('data: [DONE]')).toBe(true);
  } finally {
    fake.holdStreams = false;
    fake.releaseStreams();
    chat.close();
  }
});

test('the daemon’s event stream is flushed through Caddy as it happens', async () => {
  const events = stream('GET', '/events');
  try {
    expect(await events.status).toBe(200);
    // The stream never ends by itself: the hello event can only be seen if Caddy flushes it.
    await until(() => (events.text().includes('event: hello') ? true : undefined), 30_000);
  } finally {
    events.close();
  }
});

test('nothing was written to the repository: state lives in SOUS_STATE_DIR', () => {
  expect(gitSnapshot(repo)).toEqual(before);
  expect(fs.existsSync(path.join(repo, '.sous'))).toBe(false);
});
