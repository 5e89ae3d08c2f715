/**
 * The daemon in both topologies, from the same cases: embedded (PGlite + in-process queue) and
 * server (PostgreSQL + BullMQ on Redis). Real repository, real HTTP over loopback, a fake
 * OpenAI-compatible backend for model reachability.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { setConfigValue, sousPaths } from '@sous/config';
import { parseProcessOptions, readRunState } from '@sous/runtime';
import { startDaemon, type RunningDaemon } from '../services/daemon/src/daemon';
import { startFakeBackend, type FakeBackend } from './support/fake-backend';
import { rawRequest } from './support/http';
import { until } from './support/wait';
import { sous } from './support/cli';
import { makeGitRepo, rmTempDir } from './support/tmp';
import { embeddedTopology, serverTopology } from './support/topologies';

// The daemon runs in this process here: only the topology's store/queue variables matter.
const topologies = [embeddedTopology(), serverTopology('daemon')];

describe.each(topologies)('daemon, $name', (topology) => {
  let repo: string;
  let daemon: RunningDaemon;
  let backend: FakeBackend;
  let port: number;

  beforeAll(async () => {
    repo = makeGitRepo();
    backend = await startFakeBackend();
    const env = await topology.env();
    const paths = sousPaths(repo);
    fs.mkdirSync(paths.dir, { recursive: true });
    daemon = await startDaemon(parseProcessOptions(['--path', repo, '--port', '0'], { ...env, LOG_LEVEL: 'debug' }, { port: 0 }));
    port = daemon.port;
    await setConfigValue(paths.config, 'backend.base_url', backend.baseUrl);
  }, 120_000);

  afterAll(async () => {
    await daemon?.close('test done');
    await backend?.close();
    await topology.cleanup();
    rmTempDir(repo);
  });

  test('GET /status reports a healthy daemon with its store, queue, config, bundle and workspace', async () => {
    const res = await rawRequest({ port, path: '/status' });
    expect(res.status).toBe(200);
    const s = res.json;
    expect(s.status).toBe('ok');
    expect(s.version).toMatch(/^\d+\.\d+\.\d+/);
    expect(s.uptime_seconds).toBeGreaterThanOrEqual(0);
    expect(s.workspace.root).toBe(path.resolve(repo));
    expect(s.config.path).toBe(path.join(repo, '.sous', 'config.toml'));
    expect(s.store.ok).toBe(true);
    expect(['pglite', 'postgres']).toContain(s.store.kind);
    expect(['in-process', 'bullmq']).toContain(s.queue.kind);
    expect(s.queue.ok).toBe(true);
    expect(s.policy.bundle).toBe('local_balanced');
    expect(s.watch.mode).toBe('native');
  });

  test('store and queue kinds follow DATABASE_URL / REDIS_URL', async () => {
    const s = (await rawRequest({ port, path: '/status' })).json;
    if (topology.name.startsWith('server')) expect([s.store.kind, s.queue.kind]).toEqual(['postgres', 'bullmq']);
    else expect([s.store.kind, s.queue.kind]).toEqual(['pglite', 'in-process']);
  });

  // How fast the change lands is a benchmark figure (watcher debounce); here: it lands without a restart.
  test('hot reload: a config change reaches the running daemon without a restart, and the backend is re-checked', async () => {
    const paths = sousPaths(repo);
    await setConfigValue(paths.config, 'policy.bundle', 'cost_saver');
    await until(async () => ((await rawRequest({ port, path: '/status' })).json.policy.bundle === 'cost_saver' ? true : undefined), 10_000);
    const s = await until(async () => {
      const b = (await rawRequest({ port, path: '/status' })).json.backend;
      return b.base_url === backend.baseUrl && b.reachable !== null ? b : undefined;
    });
    expect(s).toMatchObject({ reachable: true, model_present: true, model: 'qwen2.5-coder:1.5b' });
  });

  test('an invalid config edit is refused and the last valid config stays in force', async () => {
    const paths = sousPaths(repo);
    const good = fs.readFileSync(paths.config, 'utf8');
    fs.writeFileSync(paths.config, good.replace(/cpu_fraction = [0-9.]+/, 'cpu_fraction = 7'));
    const s = await until(async () => {
      const body = (await rawRequest({ port, path: '/status' })).json;
      return body.config.last_error ? body : undefined;
    }, 2000);
    expect(s.config.last_error).toMatch(/compute\.cpu_fraction/);
    expect(s.status).toBe('ok');
    fs.writeFileSync(paths.config, good);
    await until(async () => ((await rawRequest({ port, path: '/status' })).json.config.last_error === undefined ? true : undefined), 2000);
  });

  test('GET /jobs lists jobs the daemon ran, and they are recorded in the store', async () => {
    const body = await until(async () => {
      const b = (await rawRequest({ port, path: '/jobs' })).json;
      return b.jobs.some((j: { state: string }) => j.state === 'completed') ? b : undefined;
    });
    const job = body.jobs.find((j: { name: string }) => j.name === 'maintenance.probe_backend');
    expect(job).toBeDefined();
    const stored = await until(async () => {
      const rec = await daemon.context.store.jobs.get(job.id);
      return rec?.state === 'completed' ? rec : undefined;
    });
    expect(stored.name).toBe('maintenance.probe_backend');
    expect((await rawRequest({ port, path: `/jobs/${job.id}` })).json.job.id).toBe(job.id);
  });

  test('job cancel: unknown id is 404, an ended job is 409, bad query is 400', async () => {
    const unknown = await rawRequest({ port, method: 'POST', path: '/jobs/does-not-exist/cancel' });
    expect(unknown.status).toBe(404);
    expect(unknown.json.error.code).toBe('not_found');
    const done = (await rawRequest({ port, path: '/jobs?state=completed' })).json.jobs[0];
    const ended = await rawRequest({ port, method: 'POST', path: `/jobs/${done.id}/cancel` });
    expect(ended.status).toBe(409);
    expect(ended.json.error.message).toMatch(/already ended/);
    const bad = await rawRequest({ port, path: '/jobs?limit=100000' });
    expect(bad.status).toBe(400);
    expect(bad.json.error.where).toBe('query.limit');
  });

  test('refuses DNS-rebinding Host headers and cross-site state changes', async () => {
    expect((await rawRequest({ port, path: '/status', headers: { host: 'attacker.example' } })).status).toBe(403);
    const cross = await rawRequest({ port, method: 'POST', path: '/jobs/x/cancel', headers: { origin: 'http://attacker.example' } });
    expect(cross.status).toBe(403);
    expect(cross.json.error.code).toBe('forbidden_origin');
  });

  test('oversized and non-JSON bodies get 4xx JSON errors', async () => {
    const big = await rawRequest({ port, method: 'POST', path: '/jobs/x/cancel', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ pad: 'x'.repeat(2 * 1024 * 1024) }) });
    expect(big.status).toBe(413);
    expect(big.json.error.code).toBe('payload_too_large');
    const broken = await rawRequest({ port, method: 'POST', path: '/jobs/x/cancel', headers: { 'content-type': 'application/json' }, body: '{oops' });
    expect(broken.status).toBe(400);
    expect(broken.json.error.code).toBe('invalid_json');
  });

  test('writes its run state and structured logs without file contents', async () => {
    const state = readRunState(sousPaths(repo), 'daemon');
    expect(state).toMatchObject({ pid: process.pid, port });
    const log = fs.readFileSync(path.join(repo, '.sous', 'logs', 'daemon.log'), 'utf8');
    expect(log).toContain('daemon started');
    expect(log).not.toContain('export const answer = 42');
  });
});

test('graceful close stops HTTP, closes the store and removes the run state', async () => {
  const repo = makeGitRepo();
  try {
    const daemon = await startDaemon(parseProcessOptions(['--path', repo, '--port', '0'], {}, { port: 0 }));
    const port = daemon.port;
    expect((await rawRequest({ port, path: '/status' })).status).toBe(200);
    await daemon.close('test');
    await expect(rawRequest({ port, path: '/status' })).rejects.toThrow();
    expect(readRunState(sousPaths(repo), 'daemon')).toBeUndefined();
    expect((await daemon.context.store.health()).ok).toBe(false);
    // The embedded store reopens cleanly after a graceful stop.
    const again = await startDaemon(parseProcessOptions(['--path', repo, '--port', '0'], {}, { port: 0 }));
    expect((await rawRequest({ port: again.port, path: '/status' })).json.store.ok).toBe(true);
    await again.close('test');
  } finally {
    rmTempDir(repo);
  }
}, 120_000);

test('when native file watching is unavailable the daemon polls, still hot-reloads, and status and doctor say so', async () => {
  const repo = makeGitRepo();
  try {
    const daemon = await startDaemon(parseProcessOptions(['--path', repo, '--port', '0'], { SOUS_WATCH_POLLING: '1' }, { port: 0 }));
    try {
      const port = daemon.port;
      const status = (await rawRequest({ port, path: '/status' })).json;
      expect(status.watch.mode).toBe('polling');
      expect(status.watch.reason).toMatch(/polling/);
      // The reload arrives by polling; how fast is the foundation bench's figure, not this test's
      // (a loaded machine took 1.2 s here: a timed assertion would fail on load, not on behaviour).
      await setConfigValue(sousPaths(repo).config, 'policy.bundle', 'deep_research');
      await until(async () => ((await rawRequest({ port, path: '/status' })).json.policy.bundle === 'deep_research' ? true : undefined), 10_000);
      const doctor = await sous(['doctor', '--path', repo, '--json']);
      const watch = doctor.json.checks.find((c: { name: string }) => c.name === 'file watching');
      expect(watch).toMatchObject({ status: 'warn' });
      expect(watch.detail).toMatch(/polling/);
      const text = await sous(['status', '--path', repo]);
      expect(text.stdout).toMatch(/file watching\s+polling/);
    } finally {
      await daemon.close('test');
    }
  } finally {
    rmTempDir(repo);
  }
}, 120_000);
