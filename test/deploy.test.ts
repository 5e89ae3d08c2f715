/**
 * The server topology files (docker-compose.yml, caddy/Caddyfile, Dockerfile.*, deploy/config.toml),
 * checked offline with the real docker-compose (v1) and caddy binaries, plus the promises
 * docs/deployment.md makes: the repository is mounted read-only, only Caddy publishes ports, the
 * app services reach PostgreSQL and Redis, the images run as a non-root user with a health check, and
 * Caddy routes each path to the service that serves it. There is no Docker engine here, so nothing
 * is built or started; the health-check commands run against a real loopback server instead.
 */
import { execFile, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { loadConfig } from '@sous/config';
import { ROOT, compose as composeTool, renderCompose, runTool, type ComposeConfig, type ComposeService } from './support/compose';
import { makeTempDir, rmTempDir } from './support/tmp';

const APP_SERVICES = ['daemon', 'proxy', 'context'] as const;
type AppService = (typeof APP_SERVICES)[number];

/** What each HTTP role must be: its port, health path and the process its role runs. */
const EXPECTED: Record<AppService, { port: number; health: string; entry: string }> = {
  daemon: { port: 8473, health: '/healthz', entry: 'services/daemon/dist/supervisor.js' },
  proxy: { port: 8471, health: '/healthz', entry: 'services/proxy/dist/main.js' },
  context: { port: 8472, health: '/healthz', entry: 'services/context/dist/main.js' },
};

const execFileAsync = promisify(execFile);
let scratch: string;

beforeAll(() => {
  scratch = makeTempDir('sous-deploy-');
});
afterAll(() => {
  rmTempDir(scratch);
});

/** KEY=VALUE lines of deploy/.env.example (comments and blank lines skipped). */
function envExample(): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of fs.readFileSync(path.join(ROOT, 'deploy/.env.example'), 'utf8').split('\n')) {
    const m = /^([A-Z_][A-Z0-9_]*)=(.*)$/.exec(line.trim());
    if (m && m[1]) out[m[1]] = m[2] ?? '';
  }
  return out;
}

/** A minimal environment so the developer's own shell (or a stray .env) cannot change the result. */
function toolEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: scratch, XDG_DATA_HOME: path.join(scratch, 'data'), XDG_CONFIG_HOME: path.join(scratch, 'config'), ...extra };
}

const PASSWORDS = {
  POSTGRES_PASSWORD: 'pg0123456789abcdef',
  REDIS_PASSWORD: 'redis0123456789abcdef',
  SOUS_AUTH_TOKENS: `team:${'ab'.repeat(32)}`,
};

function compose(args: string[], extraEnv: Record<string, string> = PASSWORDS) {
  return composeTool(args, toolEnv(extraEnv));
}

let renderedConfig: ComposeConfig | undefined;
function composeConfig(): ComposeConfig {
  renderedConfig ??= renderCompose(toolEnv(PASSWORDS));
  return renderedConfig;
}

function service(name: string): ComposeService {
  const svc = composeConfig().services[name];
  if (!svc) throw new Error(`docker-compose.yml has no service ${name}`);
  return svc;
}

/** `source:target[:mode]` volume strings as parts (sources are absolute paths or volume names). */
function mounts(svc: ComposeService): Array<{ source: string; target: string; mode: string }> {
  return (svc.volumes ?? []).map((v) => {
    const [source = '', target = '', mode = 'rw'] = v.split(':');
    return { source, target, mode };
  });
}

describe('docker-compose.yml', () => {
  it('validates with docker-compose config -q using deploy/.env.example and the two passwords', () => {
    const res = compose(['config', '-q']);
    expect(res.stderr.trim()).toBe('');
    expect(res.status).toBe(0);
  });

  it('refuses to render without a database password or auth tokens instead of defaulting them', () => {
    const noDb = compose(['config', '-q'], { REDIS_PASSWORD: PASSWORDS.REDIS_PASSWORD, SOUS_AUTH_TOKENS: PASSWORDS.SOUS_AUTH_TOKENS });
    expect(noDb.status).not.toBe(0);
    expect(noDb.stderr).toContain('set POSTGRES_PASSWORD');
    const noTokens = compose(['config', '-q'], { POSTGRES_PASSWORD: PASSWORDS.POSTGRES_PASSWORD, REDIS_PASSWORD: PASSWORDS.REDIS_PASSWORD });
    expect(noTokens.status).not.toBe(0);
    expect(noTokens.stderr).toContain('set SOUS_AUTH_TOKENS');
  });

  it('has the seven services, with the data stores and Caddy pinned to exact versions', () => {
    expect(Object.keys(composeConfig().services).sort()).toEqual(['caddy', 'context', 'daemon', 'postgres', 'proxy', 'redis', 'worker']);
    expect(service('postgres').image).toMatch(/^postgres:16\.\d+(-bookworm)?$/);
    expect(service('redis').image).toMatch(/^redis:7\.\d+\.\d+(-bookworm)?$/);
    expect(service('caddy').image).toMatch(/^caddy:2\.\d+\.\d+$/);
    // The test suites' testcontainers (when a Docker engine answers) run the very same images.
    const setup = fs.readFileSync(path.join(ROOT, 'test/support/global-services.js'), 'utf8');
    expect(/IMAGES = \{ postgres: '([^']+)', redis: '([^']+)'/.exec(setup)?.slice(1)).toEqual([service('postgres').image, service('redis').image]);
  });

  it('runs every app service from the one image, with its role as the command, under tini', () => {
    for (const name of [...APP_SERVICES, 'worker']) {
      const svc = service(name);
      expect({ name, image: svc.image, build: svc.build, command: svc.command, init: svc.init }).toEqual({
        name,
        image: 'sous:local',
        build: { context: ROOT, dockerfile: 'Dockerfile' },
        command: name,
        init: true,
      });
    }
  });

  it.each([...APP_SERVICES, 'worker'])('%s has a memory limit and a node heap cap well below it', (name) => {
    const svc = service(name);
    const limit = /^(\d+)([mg])$/.exec(String(svc.mem_limit));
    expect(limit).not.toBeNull();
    const limitMb = Number(limit?.[1]) * (limit?.[2] === 'g' ? 1024 : 1);
    const heap = /--max-old-space-size=(\d+)/.exec(svc.environment?.NODE_OPTIONS ?? '');
    expect(heap).not.toBeNull();
    // Room for native memory (git, WebAssembly parsers, buffers) and the watchdog process.
    expect(Number(heap?.[1])).toBeLessThanOrEqual(limitMb * 0.7);
  });

  it('runs no worker by default, scales by SOUS_WORKERS, and gives workers the stores and the read-only repository without ports', () => {
    const worker = service('worker');
    expect(worker.deploy?.replicas).toBe(0);
    expect(worker.ports ?? []).toEqual([]);
    expect(worker.expose ?? []).toEqual([]);
    // Its health check is the image's, against its loopback-only /healthz.
    expect(worker.healthcheck).toBeUndefined();
    expect(worker.environment?.SOUS_PORT).toBe('8474');
    expect(worker.environment?.SOUS_HEALTH_PATH).toBe('/healthz');
    expect(new URL(worker.environment?.DATABASE_URL ?? '').hostname).toBe('postgres');
    expect(new URL(worker.environment?.REDIS_URL ?? '').hostname).toBe('redis');
    expect(mounts(worker).filter((m) => m.target === '/repo')).toEqual([{ source: ROOT, target: '/repo', mode: 'ro' }]);
    expect(worker.read_only).toBe(true);
    const scaled = renderCompose(toolEnv({ ...PASSWORDS, SOUS_WORKERS: '3' }));
    expect(scaled.services.worker?.deploy?.replicas).toBe(3);
  });

  it('passes the auth tokens to every app service and binds Caddy to 127.0.0.1 unless told otherwise', () => {
    for (const name of [...APP_SERVICES, 'worker']) expect(service(name).environment?.SOUS_AUTH_TOKENS).toBe(PASSWORDS.SOUS_AUTH_TOKENS);
    const example = envExample();
    expect(example.SOUS_LISTEN_ADDR).toBe('127.0.0.1');
    expect(Object.keys(example)).toContain('SOUS_AUTH_TOKENS');
    const withoutExample = renderCompose(toolEnv({ ...PASSWORDS, SOUS_LISTEN_ADDR: '' }));
    for (const p of withoutExample.services.caddy?.ports ?? []) expect(p).toMatch(/^127\.0\.0\.1:/);
  });

  it('publishes host ports only from Caddy (80 and 443)', () => {
    for (const [name, svc] of Object.entries(composeConfig().services)) {
      if (name !== 'caddy') expect({ name, ports: svc.ports ?? [] }).toEqual({ name, ports: [] });
    }
    const published = (service('caddy').ports ?? []).map((p) => /:(\d+)(\/\w+)?$/.exec(p)?.[1]);
    expect(new Set(published)).toEqual(new Set(['80', '443']));
  });

  it.each(APP_SERVICES)('%s mounts the repository read-only at SOUS_PATH, keeps state on its own volume and binds 0.0.0.0 inside the container only', (name) => {
    const svc = service(name);
    const env = svc.environment ?? {};
    const repoMounts = mounts(svc).filter((m) => m.target === '/repo');
    expect(repoMounts).toEqual([{ source: ROOT, target: '/repo', mode: 'ro' }]);
    expect(env.SOUS_PATH).toBe('/repo');
    expect(env.SOUS_HOST).toBe('0.0.0.0');
    expect(env.SOUS_PORT).toBe(String(EXPECTED[name].port));
    expect(svc.expose).toEqual([String(EXPECTED[name].port)]);
    const state = mounts(svc).find((m) => m.target === env.SOUS_STATE_DIR);
    expect(state).toEqual({ source: `${name}-state`, target: '/var/lib/sous', mode: 'rw' });
    // The shared config (Host allowlist) sits inside the state folder, read-only.
    expect(mounts(svc)).toContainEqual({ source: path.join(ROOT, 'deploy/config.toml'), target: '/var/lib/sous/config.toml', mode: 'ro' });
    expect(env.SOUS_HEALTH_PATH).toBe(EXPECTED[name].health);
    expect(svc.read_only).toBe(true);
    expect(svc.cap_drop).toEqual(['ALL']);
  });

  it('gives the daemon PostgreSQL and Redis URLs naming the compose services and the configured passwords', () => {
    const env = service('daemon').environment ?? {};
    const db = new URL(env.DATABASE_URL ?? '');
    expect([db.protocol, db.hostname, db.port, db.pathname, db.password]).toEqual(['postgres:', 'postgres', '5432', '/sous', PASSWORDS.POSTGRES_PASSWORD]);
    const redis = new URL(env.REDIS_URL ?? '');
    expect([redis.protocol, redis.hostname, redis.port, redis.password]).toEqual(['redis:', 'redis', '6379', PASSWORDS.REDIS_PASSWORD]);
  });

  it('starts services only after their dependencies are healthy, and the data stores define health checks', () => {
    const healthyDeps = (name: string) =>
      Object.entries(service(name).depends_on ?? {})
        .filter(([, d]) => d.condition === 'service_healthy')
        .map(([dep]) => dep)
        .sort();
    expect(healthyDeps('daemon')).toEqual(['postgres', 'redis']);
    expect(healthyDeps('proxy')).toEqual(['daemon']);
    expect(healthyDeps('context')).toEqual(['daemon']);
    expect(healthyDeps('worker')).toEqual(['daemon']);
    expect(healthyDeps('caddy')).toEqual(['context', 'daemon', 'proxy']);
    expect(JSON.stringify(service('postgres').healthcheck?.test)).toContain('pg_isready');
    expect(JSON.stringify(service('redis').healthcheck?.test)).toContain('redis-cli ping');
  });

  it('keeps PostgreSQL and Redis on an internal network that Caddy is not on', () => {
    expect(composeConfig().networks?.data?.internal).toBe(true);
    expect(Object.keys(service('postgres').networks ?? {})).toEqual(['data']);
    expect(Object.keys(service('redis').networks ?? {})).toEqual(['data']);
    expect(Object.keys(service('caddy').networks ?? {})).toEqual(['edge']);
  });
});

/** One reverse_proxy handler of the adapted Caddy config with the path matchers leading to it. */
interface ProxyRoute {
  hosts: string[];
  paths: string[];
  dial: string[];
}

/** Walks Caddy's JSON routes (nested subroutes) and collects every reverse_proxy with its matchers. */
function collectProxies(routes: unknown, hosts: string[] = [], paths: string[] = [], out: ProxyRoute[] = []): ProxyRoute[] {
  if (!Array.isArray(routes)) return out;
  for (const route of routes as Array<{ match?: Array<{ host?: string[]; path?: string[] }>; handle?: Array<Record<string, unknown>> }>) {
    const h = [...hosts, ...(route.match ?? []).flatMap((m) => m.host ?? [])];
    const p = [...paths, ...(route.match ?? []).flatMap((m) => m.path ?? [])];
    for (const handler of route.handle ?? []) {
      if (handler.handler === 'subroute') collectProxies(handler.routes, h, p, out);
      if (handler.handler === 'reverse_proxy') {
        const upstreams = (handler.upstreams as Array<{ dial?: string }> | undefined) ?? [];
        out.push({ hosts: h, paths: p, dial: upstreams.map((u) => u.dial ?? '') });
      }
    }
  }
  return out;
}

describe('caddy/Caddyfile', () => {
  const example = envExample();
  const caddyEnv = (extra: Record<string, string> = {}) => toolEnv({ SOUS_SITE_HOST: example.SOUS_SITE_HOST ?? '', SOUS_TLS: example.SOUS_TLS ?? '', ...extra });

  function adapt(extra: Record<string, string> = {}): { apps: { http: { servers: Record<string, { listen?: string[]; routes?: unknown }> }; tls?: Record<string, unknown> } } {
    const res = runTool('caddy', ['adapt', '--config', 'caddy/Caddyfile', '--adapter', 'caddyfile'], caddyEnv(extra));
    if (res.status !== 0) throw new Error(`caddy adapt failed: ${res.stderr.trim()}`);
    return JSON.parse(res.stdout);
  }

  it('passes caddy validate with the variables from deploy/.env.example', () => {
    const res = runTool('caddy', ['validate', '--config', 'caddy/Caddyfile', '--adapter', 'caddyfile'], caddyEnv());
    expect(res.status).toBe(0);
    expect(res.stdout + res.stderr).toContain('Valid configuration');
  });

  it('routes /v1/chat/*, /v1/models and /v1/traces to the proxy, /v1/context to the context API and everything else to the daemon, on the site host over HTTPS', () => {
    const servers = Object.values(adapt().apps.http.servers);
    expect(servers).toHaveLength(1);
    const server = servers[0];
    expect(server?.listen).toEqual([':443']);
    const proxies = collectProxies(server?.routes);
    expect(proxies).toHaveLength(3);
    expect(proxies).toEqual(
      expect.arrayContaining([
        { hosts: ['sous.localhost'], paths: ['/v1/chat/*', '/v1/models', '/v1/traces'], dial: ['proxy:8471'] },
        { hosts: ['sous.localhost'], paths: ['/v1/context'], dial: ['context:8472'] },
        { hosts: ['sous.localhost'], paths: [], dial: ['daemon:8473'] },
      ]),
    );
  });

  it('upstream ports match the ports the compose services listen on', () => {
    const dials = collectProxies(Object.values(adapt().apps.http.servers)[0]?.routes).flatMap((p) => p.dial);
    for (const name of APP_SERVICES) expect(dials).toContain(`${name}:${service(name).environment?.SOUS_PORT}`);
  });

  it('uses Caddy’s internal CA by default and certificate files when SOUS_TLS names them', () => {
    expect(JSON.stringify(adapt().apps.tls)).toContain('"module":"internal"');
    const files = adapt({ SOUS_TLS: '/etc/caddy/certs/cert.pem /etc/caddy/certs/key.pem' }).apps.tls;
    expect(JSON.stringify(files)).toContain('"certificate":"/etc/caddy/certs/cert.pem"');
  });

  it('serves the host named by SOUS_SITE_HOST', () => {
    const proxies = collectProxies(Object.values(adapt({ SOUS_SITE_HOST: 'sous.example.com' }).apps.http.servers)[0]?.routes);
    expect(new Set(proxies.flatMap((p) => p.hosts))).toEqual(new Set(['sous.example.com']));
  });
});

describe('deploy/config.toml', () => {
  it('is a valid Sous config that allowlists the default site host and the three service names', () => {
    const config = loadConfig(path.join(ROOT, 'deploy/config.toml'));
    const siteHost = envExample().SOUS_SITE_HOST;
    expect(siteHost).toBe('sous.localhost');
    expect(config.daemon.allowed_hosts).toEqual(expect.arrayContaining([siteHost, 'daemon', 'proxy', 'context']));
    // The backend key, if any, comes from the variable compose passes through; never the key itself.
    expect(['', 'SOUS_BACKEND_API_KEY']).toContain(config.backend.api_key_env);
  });
});

/** Dockerfile instructions with line continuations joined and comments dropped. */
function instructions(file: string): Array<{ op: string; args: string }> {
  const text = fs.readFileSync(path.join(ROOT, file), 'utf8').replace(/\\\n/g, ' ');
  return text
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('#'))
    .map((l) => {
      const m = /^(\w+)\s+(.*)$/.exec(l);
      return { op: (m?.[1] ?? l).toUpperCase(), args: m?.[2] ?? '' };
    });
}

/** Serves `path` with `status` on a loopback port; everything else is 404. */
async function healthServer(healthPath: string, status: number): Promise<{ port: number; close: () => Promise<void> }> {
  const server = http.createServer((req, res) => {
    res.statusCode = req.url === healthPath ? status : 404;
    res.end('{}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { port: (server.address() as AddressInfo).port, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

/** Runs the image's HEALTHCHECK command (argv from the Dockerfile) with `env`; its exit code. */
async function runHealthCheck(argv: string[], env: Record<string, string>): Promise<number> {
  try {
    await execFileAsync(argv[0] ?? 'node', argv.slice(1), { env: { ...toolEnv(), ...env }, timeout: 20_000 });
    return 0;
  } catch (err) {
    return (err as { code?: number }).code ?? -1;
  }
}

describe('Dockerfile (the one image)', () => {
  const ins = instructions('Dockerfile');
  const all = (op: string) => ins.filter((i) => i.op === op).map((i) => i.args);
  const lastFrom = ins.map((i) => i.op).lastIndexOf('FROM');
  const runtime = ins.slice(lastFrom);

  it('builds on the exact Node 22 bookworm-slim version CI runs (.nvmrc) in stages: npm ci with the lockfile, npm run build, dev dependencies pruned', () => {
    const froms = all('FROM');
    const pinned = fs.readFileSync(path.join(ROOT, '.nvmrc'), 'utf8').trim();
    expect(pinned).toMatch(/^22\.\d+\.\d+$/);
    expect(froms.length).toBeGreaterThanOrEqual(2);
    for (const from of froms) expect(from.split(/\s+/)[0]).toBe(`node:${pinned}-bookworm-slim`);
    const runs = all('RUN').join('\n');
    expect(all('COPY').some((c) => c.includes('package-lock.json'))).toBe(true);
    expect(runs).toMatch(/\bnpm ci\b/);
    expect(runs).toMatch(/\bnpm run build\b/);
    expect(runs).toMatch(/\bnpm prune --omit=dev\b/);
  });

  it('installs git and CA certificates, trusts /repo, disables optional git locks and runs as the node user', () => {
    const runs = runtime.filter((i) => i.op === 'RUN').map((i) => i.args).join('\n');
    expect(runs).toMatch(/apt-get install[^\n]*\bgit\b/);
    expect(runs).toMatch(/apt-get install[^\n]*\bca-certificates\b/);
    expect(runs).toContain('safe.directory /repo');
    expect(runtime.filter((i) => i.op === 'ENV').map((i) => i.args).join(' ')).toContain('GIT_OPTIONAL_LOCKS=0');
    const users = runtime.filter((i) => i.op === 'USER').map((i) => i.args.split(':')[0]);
    expect(users[users.length - 1]).toBe('node');
  });

  it('enters through deploy/sous-entrypoint with the daemon as the default role', () => {
    expect(all('COPY')).toContain('deploy/sous-entrypoint ./deploy/sous-entrypoint');
    expect(JSON.parse(all('ENTRYPOINT')[0] ?? '[]')).toEqual(['/app/deploy/sous-entrypoint']);
    expect(JSON.parse(all('CMD').pop() ?? '[]')).toEqual(['daemon']);
  });

  it('has one HEALTHCHECK that probes SOUS_PORT and SOUS_HEALTH_PATH over loopback: 0 on 200, 1 otherwise', async () => {
    const hc = all('HEALTHCHECK');
    expect(hc).toHaveLength(1);
    const argv = JSON.parse(/\bCMD\s+(\[.*\])\s*$/.exec(hc[0] ?? '')?.[1] ?? '[]') as string[];
    expect(argv.slice(0, 2)).toEqual(['node', '-e']);
    const ok = await healthServer('/healthz', 200);
    const status = await healthServer('/status', 200);
    const failing = await healthServer('/healthz', 503);
    try {
      expect(await runHealthCheck(argv, { SOUS_PORT: String(ok.port) })).toBe(0);
      expect(await runHealthCheck(argv, { SOUS_PORT: String(status.port), SOUS_HEALTH_PATH: '/status' })).toBe(0);
      expect(await runHealthCheck(argv, { SOUS_PORT: String(status.port) })).toBe(1);
      expect(await runHealthCheck(argv, { SOUS_PORT: String(failing.port) })).toBe(1);
    } finally {
      await ok.close();
      await status.close();
      await failing.close();
    }
  });
});

describe.each(APP_SERVICES)('Dockerfile.%s (thin role wrapper)', (name) => {
  const ins = instructions(`Dockerfile.${name}`);
  const all = (op: string) => ins.filter((i) => i.op === op).map((i) => i.args);
  const expected = EXPECTED[name];

  it(`is FROM the one image and sets role ${name}, port ${expected.port} and health path ${expected.health}`, () => {
    expect(all('ARG')).toEqual(['SOUS_IMAGE=sous:local']);
    expect(all('FROM')).toEqual(['${SOUS_IMAGE}']);
    expect(all('RUN')).toEqual([]); // nothing is built here
    expect(all('EXPOSE')).toEqual([String(expected.port)]);
    const env = all('ENV').join(' ');
    expect(env).toContain(`SOUS_PORT=${expected.port}`);
    expect(env).toContain(`SOUS_HEALTH_PATH=${expected.health}`);
    expect(JSON.parse(all('CMD').pop() ?? '[]')).toEqual([name]);
  });

  it(`names a role the entry point runs as ${expected.entry}, compiled from a real source file`, () => {
    const script = fs.readFileSync(path.join(ROOT, 'deploy/sous-entrypoint'), 'utf8');
    expect(script).toMatch(new RegExp(`\\n\\s*${name}\\)[^\\n]*\\$app/${expected.entry.replace(/[/.]/g, '\\$&')}`));
    expect(fs.existsSync(path.join(ROOT, expected.entry.replace('/dist/', '/src/').replace(/\.js$/, '.ts')))).toBe(true);
  });
});

describe('deploy/sous-entrypoint', () => {
  const entry = (args: string[]) => spawnSync('sh', [path.join(ROOT, 'deploy/sous-entrypoint'), ...args], { env: toolEnv(), encoding: 'utf8', timeout: 60_000 });

  it('refuses an unknown or missing role with one line and exit 2', () => {
    for (const args of [['bogus'], []]) {
      const res = entry(args);
      expect(res.status).toBe(2);
      expect(res.stderr.trim().split('\n')).toHaveLength(1);
      expect(res.stderr).toContain('expected daemon, proxy, context or worker');
    }
  });

  it.each(['proxy', 'context'])('runs the %s role under the watchdog, which passes a refusal to start (exit 2) through without restarting', (role) => {
    const res = entry([role, '--no-such-flag']);
    expect(res.status).toBe(2);
    expect(res.stderr).toContain(`sous ${role}:`);
    expect(res.stderr).toContain('sous watchdog: gave up: the process refused to start (exit code 2)');
    expect(res.stderr.match(/sous watchdog: started/g)).toHaveLength(1);
  });
});

describe('.dockerignore', () => {
  it('keeps dependencies, build output, git history, local state and env files out of the build context', () => {
    const lines = fs.readFileSync(path.join(ROOT, '.dockerignore'), 'utf8').split('\n').map((l) => l.trim());
    expect(lines).toEqual(expect.arrayContaining(['**/node_modules', '**/dist', '.git', '.sous', '**/.env', 'deploy', '!deploy/sous-entrypoint']));
    // The re-include must come after the folder's exclusion to take effect.
    expect(lines.indexOf('!deploy/sous-entrypoint')).toBeGreaterThan(lines.indexOf('deploy'));
  });
});
