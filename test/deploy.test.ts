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
import { makeTempDir, rmTempDir } from './support/tmp';

const ROOT = path.resolve(__dirname, '..');
const INSTALL_HINT = 'apt-get install -y docker-compose caddy';
const APP_SERVICES = ['daemon', 'proxy', 'context'] as const;
type AppService = (typeof APP_SERVICES)[number];

/** What each app service must be: its Dockerfile's port, health path and entry point. */
const EXPECTED: Record<AppService, { port: number; health: string; entry: string }> = {
  daemon: { port: 8473, health: '/healthz', entry: 'services/daemon/dist/main.js' },
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

/**
 * Runs a validator binary. A missing binary fails the test with the install command: CI must not
 * turn green because the tool that checks these files was absent.
 */
function runTool(cmd: string, args: string[], env: NodeJS.ProcessEnv, input?: string): { status: number; stdout: string; stderr: string } {
  const res = spawnSync(cmd, args, { cwd: ROOT, env, input, encoding: 'utf8', timeout: 60_000, maxBuffer: 16 * 1024 * 1024 });
  if (res.error) {
    const code = (res.error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') throw new Error(`${cmd} is not installed; it validates the deployment files offline. Run: ${INSTALL_HINT}`);
    throw new Error(`${cmd} ${args.join(' ')} failed to run: ${res.error.message}`);
  }
  return { status: res.status ?? -1, stdout: res.stdout, stderr: res.stderr };
}

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

const PASSWORDS = { POSTGRES_PASSWORD: 'pg0123456789abcdef', REDIS_PASSWORD: 'redis0123456789abcdef' };
/** The services bind 0.0.0.0 in their containers, so compose refuses to render without tokens. */
const TOKENS = { SOUS_AUTH_TOKENS: `team-a:${'a1'.repeat(32)},team-b:${'b2'.repeat(32)}` };
const REQUIRED = { ...PASSWORDS, ...TOKENS };

function compose(args: string[], extraEnv: Record<string, string> = REQUIRED) {
  return runTool('docker-compose', ['--env-file', 'deploy/.env.example', '-f', 'docker-compose.yml', ...args], toolEnv(extraEnv));
}

interface ComposeService {
  image?: string;
  build?: { context?: string; dockerfile?: string };
  environment?: Record<string, string | null>;
  ports?: string[];
  expose?: string[];
  volumes?: string[];
  networks?: Record<string, unknown>;
  depends_on?: Record<string, { condition?: string }>;
  healthcheck?: { test?: string[] | string };
  read_only?: boolean;
  cap_drop?: string[];
}
interface ComposeConfig {
  services: Record<string, ComposeService>;
  networks?: Record<string, { internal?: boolean } | null>;
}

/** The interpreter docker-compose v1 runs on (its shebang), which is sure to have PyYAML. */
function composePython(): string {
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    const script = path.join(dir, 'docker-compose');
    if (!fs.existsSync(script)) continue;
    const shebang = /^#!\s*(\S+)(?:\s+(\S+))?/.exec(fs.readFileSync(script, 'utf8').slice(0, 200));
    if (shebang?.[1]) return shebang[1].endsWith('/env') && shebang[2] ? shebang[2] : shebang[1];
  }
  return 'python3';
}

let renderedConfig: ComposeConfig | undefined;
/**
 * `docker-compose config` (normalized YAML: anchors merged, variables interpolated) as an object.
 * v1 has no JSON output; PyYAML comes with docker-compose v1, so python3 converts it.
 */
function composeConfig(): ComposeConfig {
  if (renderedConfig) return renderedConfig;
  const res = compose(['config']);
  if (res.status !== 0) throw new Error(`docker-compose config failed: ${res.stderr.trim()}`);
  const json = runTool(composePython(), ['-c', 'import sys, json, yaml; json.dump(yaml.safe_load(sys.stdin), sys.stdout)'], toolEnv(), res.stdout);
  if (json.status !== 0) throw new Error(`could not convert the compose YAML to JSON (python3-yaml comes with docker-compose): ${json.stderr.trim()}`);
  renderedConfig = JSON.parse(json.stdout) as ComposeConfig;
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

  it('refuses to render without a database password instead of defaulting one', () => {
    const res = compose(['config', '-q'], { REDIS_PASSWORD: PASSWORDS.REDIS_PASSWORD, ...TOKENS });
    expect(res.status).not.toBe(0);
    expect(res.stderr).toContain('set POSTGRES_PASSWORD');
  });

  it('refuses to render without tokens: the services listen on 0.0.0.0 inside their containers', () => {
    const res = compose(['config', '-q'], PASSWORDS);
    expect(res.status).not.toBe(0);
    expect(res.stderr).toContain('set SOUS_AUTH_TOKENS');
  });

  it('passes the tokens to the three app services', () => {
    for (const name of APP_SERVICES) expect(service(name).environment?.SOUS_AUTH_TOKENS).toBe(TOKENS.SOUS_AUTH_TOKENS);
  });

  it('has the six services, with the pinned major versions of the data stores and Caddy', () => {
    expect(Object.keys(composeConfig().services).sort()).toEqual(['caddy', 'context', 'daemon', 'postgres', 'proxy', 'redis']);
    expect(service('postgres').image).toMatch(/^postgres:16(\b|$)/);
    expect(service('redis').image).toMatch(/^redis:7(\b|$)/);
    expect(service('caddy').image).toMatch(/^caddy:2(\b|$)/);
  });

  it('publishes host ports only from Caddy (80 and 443)', () => {
    for (const [name, svc] of Object.entries(composeConfig().services)) {
      if (name !== 'caddy') expect({ name, ports: svc.ports ?? [] }).toEqual({ name, ports: [] });
    }
    const published = (service('caddy').ports ?? []).map((p) => /:(\d+)(\/\w+)?$/.exec(p)?.[1]);
    expect(new Set(published)).toEqual(new Set(['80', '443']));
    // On loopback unless SOUS_LISTEN_ADDR names the server's private address.
    expect((service('caddy').ports ?? []).every((p) => p.startsWith('127.0.0.1:'))).toBe(true);
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
    expect(svc.build?.dockerfile).toBe(`Dockerfile.${name}`);
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

describe.each(APP_SERVICES)('Dockerfile.%s', (name) => {
  const file = `Dockerfile.${name}`;
  const ins = instructions(file);
  const all = (op: string) => ins.filter((i) => i.op === op).map((i) => i.args);
  const expected = EXPECTED[name];

  it('builds on node:20-bookworm-slim in stages: npm ci with the lockfile, npm run build, dev dependencies pruned', () => {
    const froms = all('FROM');
    expect(froms.length).toBeGreaterThanOrEqual(2);
    for (const from of froms) expect(from).toMatch(/^node:20-bookworm-slim(\s+AS\s+\w+)?$/i);
    const runs = all('RUN').join('\n');
    expect(all('COPY').some((c) => c.includes('package-lock.json'))).toBe(true);
    expect(runs).toMatch(/\bnpm ci\b/);
    expect(runs).toMatch(/\bnpm run build\b/);
    expect(runs).toMatch(/\bnpm prune --omit=dev\b/);
    expect(runs).toMatch(/apt-get install[^\n]*\bgit\b/);
  });

  it('runs as a non-root user in the final stage', () => {
    const lastFrom = ins.map((i) => i.op).lastIndexOf('FROM');
    const users = ins.slice(lastFrom).filter((i) => i.op === 'USER').map((i) => i.args.split(':')[0]);
    expect(users.length).toBeGreaterThan(0);
    expect(['root', '0']).not.toContain(users[users.length - 1]);
  });

  it(`exposes ${expected.port} and runs node ${expected.entry}`, () => {
    expect(all('EXPOSE')).toEqual([String(expected.port)]);
    expect(all('ENV').join(' ')).toContain(`SOUS_PORT=${expected.port}`);
    const cmds = all('CMD');
    expect(JSON.parse(cmds[cmds.length - 1] ?? '[]')).toEqual(['node', expected.entry]);
    // The entry point is compiled from a real source file.
    expect(fs.existsSync(path.join(ROOT, expected.entry.replace('/dist/', '/src/').replace(/\.js$/, '.ts')))).toBe(true);
  });

  it(`has a HEALTHCHECK whose command passes on 200 from ${expected.health} and fails otherwise`, async () => {
    const hc = all('HEALTHCHECK');
    expect(hc).toHaveLength(1);
    const m = /\bCMD\s+(\[.*\])\s*$/.exec(hc[0] ?? '');
    const argv = JSON.parse(m?.[1] ?? '[]') as string[];
    expect(argv.slice(0, 2)).toEqual(['node', '-e']);
    expect(argv[2]).toContain(`'${expected.health}'`);
    const run = async (port: number) => {
      try {
        await execFileAsync(argv[0] ?? 'node', argv.slice(1), { env: { ...toolEnv(), SOUS_PORT: String(port) }, timeout: 20_000 });
        return 0;
      } catch (err) {
        return (err as { code?: number }).code ?? -1;
      }
    };
    const ok = await healthServer(expected.health, 200);
    const failing = await healthServer(expected.health, 503);
    try {
      expect(await run(ok.port)).toBe(0);
      expect(await run(failing.port)).toBe(1);
    } finally {
      await ok.close();
      await failing.close();
    }
  });
});

describe('.dockerignore', () => {
  it('keeps dependencies, build output, git history, local state and env files out of the build context', () => {
    const lines = fs.readFileSync(path.join(ROOT, '.dockerignore'), 'utf8').split('\n').map((l) => l.trim());
    expect(lines).toEqual(expect.arrayContaining(['**/node_modules', '**/dist', '.git', '.sous', '**/.env']));
  });
});
