/**
 * The CLI lifecycle as a user runs it: init, up (detached, supervised), status, ps, logs, doctor,
 * crash recovery, a busy port, down — against a real git repository on the embedded default.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { pidAlive } from '@sous/runtime';
import { loadConfig } from '@sous/config';
import { TIER_EFFECTS, type Tier } from '@sous/setup';
import { spawn } from 'node:child_process';
import { CLI, embeddedEnv, freePort, gitSnapshot, sous } from './support/cli';
import { startFakeBackend, type FakeBackend } from './support/fake-backend';
import { until } from './support/wait';
import { makeGitRepo, makeTempDir, rmTempDir } from './support/tmp';


describe('sous lifecycle on the embedded default', () => {
  let repo: string;
  let port: number;
  let before: { porcelain: string; head: string };
  let backend: FakeBackend;

  beforeAll(async () => {
    repo = makeGitRepo();
    before = gitSnapshot(repo);
    port = await freePort();
    backend = await startFakeBackend({ models: ['llama3.2:1b'] });
  });

  afterAll(async () => {
    await sous(['down', '--path', repo]);
    await backend.close();
    rmTempDir(repo);
  });

  test('init creates .sous/ ignored by its own .gitignore and applies the recommended bundle', async () => {
    const res = await sous(['init', '--path', repo, '--non-interactive', '--json']);
    expect(res.stderr).toBe('');
    expect(res.code).toBe(0);
    expect(res.json).toMatchObject({ created: true, applied: true, git_repository: true });
    expect(['unknown', 'light', 'capable', 'high_performance']).toContain(res.json.tier);
    expect(res.json.trail.length).toBeGreaterThan(0);
    expect(fs.readFileSync(path.join(repo, '.sous', '.gitignore'), 'utf8').trim()).toBe('*');
    expect(fs.readFileSync(path.join(repo, '.sous', 'config.toml'), 'utf8')).toContain(`bundle = "${res.json.bundle_id}"`);
    // A new config also gets the probed tier's settings (docs/setup.md#tiers).
    expect(loadConfig(path.join(repo, '.sous', 'config.toml')).compute.max_cycle_seconds).toBe(TIER_EFFECTS[res.json.tier as Tier].max_cycle_seconds);
    expect(gitSnapshot(repo)).toEqual(before);
  });

  test('up starts a supervised daemon detached and reports PIDs, cockpit URL and health', async () => {
    const res = await sous(['up', '--path', repo, '--port', String(port), '--json']);
    expect(res.stderr).toBe('');
    expect(res.code).toBe(0);
    expect(res.json).toMatchObject({ already_running: false, url: `http://127.0.0.1:${port}`, cockpit_url: `http://127.0.0.1:${port}/` });
    expect(pidAlive(res.json.supervisor_pid)).toBe(true);
    expect(pidAlive(res.json.daemon_pid)).toBe(true);
    expect(res.json.status).toMatchObject({ status: 'ok', store: { kind: 'pglite', ok: true }, queue: { kind: 'in-process', ok: true } });
  });

  test('status, ps and show describe the running daemon; up again is idempotent', async () => {
    const status = await sous(['status', '--path', repo, '--json']);
    expect(status.code).toBe(0);
    expect(status.json).toMatchObject({ running: true, status: 'ok', port });
    const text = await sous(['status', '--path', repo]);
    expect(text.stdout).toMatch(/store\s+pglite ok/);
    const ps = await sous(['ps', '--path', repo, '--json']);
    expect(ps.json.processes.map((p: { role: string; state: string }) => [p.role, p.state])).toEqual([['supervisor', 'running'], ['daemon', 'running']]);
    const again = await sous(['up', '--path', repo, '--port', String(port), '--json']);
    expect(again.code).toBe(0);
    expect(again.json.already_running).toBe(true);
    expect(again.json.daemon_pid).toBe(status.json.pid);
    const show = await sous(['show', '--path', repo, '--json']);
    expect(show.json.daemon).toMatchObject({ running: true, url: `http://127.0.0.1:${port}` });
  });

  test('a second workspace on the same port gets the next free port and how to pin it', async () => {
    const other = makeGitRepo();
    try {
      const res = await sous(['up', '--path', other, '--port', String(port)]);
      expect(res.code).not.toBe(0);
      const lines = res.stderr.trim().split('\n');
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(new RegExp(`^sous: port ${port} is already in use; the next free port is \\d+: run sous up --port \\d+$`));
    } finally {
      rmTempDir(other);
    }
  });

  test('doctor reports an unreachable model backend, then a configured model the runtime lacks', async () => {
    const first = await sous(['doctor', '--path', repo, '--json'], { env: embeddedEnv() });
    const set = await sous(['config', 'set', 'backend.base_url', 'http://127.0.0.1:1/v1', '--path', repo]);
    expect(set.code).toBe(0);
    const down = await sous(['doctor', '--path', repo, '--json']);
    const backendCheck = down.json.checks.find((c: { name: string }) => c.name === 'model backend');
    expect(backendCheck).toMatchObject({ status: 'warn' });
    expect(backendCheck.detail).toMatch(/cannot connect|no answer/);
    expect(backendCheck.hint).toBeTruthy();
    expect(first.json.checks.find((c: { name: string }) => c.name === 'daemon').status).toBe('ok');

    expect((await sous(['config', 'set', 'backend.base_url', backend.baseUrl, '--path', repo])).code).toBe(0);
    const missing = await sous(['doctor', '--path', repo, '--json']);
    const model = missing.json.checks.find((c: { name: string }) => c.name === 'model');
    expect(model.status).toBe('warn');
    expect(model.detail).toMatch(/not in the runtime's model list \(it has: llama3\.2:1b\)/);
    expect(backend.requests).toContain('GET /v1/models');
  });

  test('after a crash the supervisor restarts the daemon', async () => {
    const first = (await sous(['ps', '--path', repo, '--json'])).json.processes[1].pid as number;
    process.kill(first, 'SIGKILL');
    const status = await until(async () => {
      const s = await sous(['status', '--path', repo, '--json']);
      return s.code === 0 && s.json.pid !== first && s.json.status === 'ok' ? s.json : undefined;
    }, 60_000);
    expect(pidAlive(status.pid)).toBe(true);
    expect((await sous(['ps', '--path', repo, '--json'])).json.processes[0].restarts).toBeGreaterThanOrEqual(1);
  });

  test('logs shows structured lines and never file contents', async () => {
    const res = await sous(['logs', '--path', repo, '--lines', '200']);
    expect(res.code).toBe(0);
    expect(res.stdout).toMatch(/INFO\s+daemon started/);
    expect(res.stdout).not.toContain('export const answer');
  });

  test('logs -f follows new lines as the daemon writes them', async () => {
    const child = spawn(process.execPath, [CLI, 'logs', '-f', '--lines', '1', '--path', repo], { env: embeddedEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
    try {
      await until(() => (out.length > 0 ? true : undefined), 10_000); // the last line: it is reading
      const before = out.split('\n').filter(Boolean).length;
      const set = await sous(['config', 'set', 'compute.max_cycle_seconds', '240', '--path', repo]);
      expect(set.stderr).toBe('');
      await until(() => (out.includes('config reloaded') ? true : undefined), 10_000);
      expect(before).toBe(1);
    } finally {
      child.kill('SIGTERM');
    }
  });

  test('down stops everything; status then exits 3 and the repository is untouched', async () => {
    const pids = (await sous(['ps', '--path', repo, '--json'])).json.processes.map((p: { pid: number }) => p.pid);
    const res = await sous(['down', '--path', repo, '--json']);
    expect(res.code).toBe(0);
    expect(res.json.stopped).toBe(true);
    for (const pid of pids) expect(pidAlive(pid)).toBe(false);
    const status = await sous(['status', '--path', repo]);
    expect(status.code).toBe(3);
    expect(status.stdout).toMatch(/not running/);
    expect((await sous(['down', '--path', repo])).stdout).toMatch(/not running/);
    expect(gitSnapshot(repo)).toEqual(before);
    const log = fs.readFileSync(path.join(repo, '.sous', 'logs', 'daemon.log'), 'utf8');
    expect(log).toContain('daemon stopped');
  });
});

describe('sous refuses bad starts with one clear line', () => {
  test('a huge directory that is not a git repository needs --force', async () => {
    const dir = makeTempDir('sous-huge-');
    try {
      for (let d = 0; d < 21; d++) {
        const sub = path.join(dir, `d${d}`);
        fs.mkdirSync(sub);
        for (let f = 0; f < 1000; f++) fs.writeFileSync(path.join(sub, `f${f}.txt`), '');
      }
      const res = await sous(['up', '--path', dir]);
      expect(res.code).not.toBe(0);
      expect(res.stderr.trim().split('\n')).toHaveLength(1);
      expect(res.stderr).toMatch(/not a git repository and holds more than 20000 files.*--force/);
      expect(fs.existsSync(path.join(dir, '.sous'))).toBe(false);
      const forced = await sous(['init', '--path', dir, '--force', '--non-interactive', '--json']);
      expect(forced.code).toBe(0);
      expect(forced.json.git_repository).toBe(false);
    } finally {
      rmTempDir(dir);
    }
  });

  test('a missing path, a bad port and an unknown command', async () => {
    const missing = await sous(['up', '--path', '/nonexistent/sous-nowhere']);
    expect(missing.code).not.toBe(0);
    expect(missing.stderr).toBe('sous: path /nonexistent/sous-nowhere does not exist\n');
    const badPort = await sous(['up', '--path', '.', '--port', 'eighty']);
    expect(badPort.code).toBe(2);
    expect(badPort.stderr).toMatch(/^sous: --port must be an integer between 1 and 65535 \(found eighty\)\n$/);
    expect((await sous(['frobnicate'])).code).not.toBe(0);
  });

  test('status without a daemon exits 3 with a hint', async () => {
    const repo = makeGitRepo();
    try {
      const res = await sous(['status', '--path', repo, '--json']);
      expect(res.code).toBe(3);
      expect(res.json).toEqual({ running: false, workspace: repo });
    } finally {
      rmTempDir(repo);
    }
  });

  test('doctor never suggests a glob the scope already has: a file named with a newline is inside src/**', async () => {
    const repo = makeGitRepo();
    try {
      fs.writeFileSync(path.join(repo, 'src', 'a\nb.py'), 'def odd_name():\n    return 1\n');
      expect((await sous(['init', '--path', repo, '--non-interactive'])).code).toBe(0);
      const scope = (await sous(['doctor', '--path', repo, '--json'])).json.checks.find((c: { name: string }) => c.name === 'scope');
      expect(scope).toEqual({ name: 'scope', status: 'ok', detail: '2 of 3 files in privacy.allowed_paths (src/**, docs/**)' });
    } finally {
      rmTempDir(repo);
    }
  });

  test('doctor reports code the privacy scope leaves out and suggests globs, never widening it itself', async () => {
    const repo = makeGitRepo();
    try {
      // Code added after init: init sets the scope to where the code is (docs/cli.md, init), doctor only reports.
      expect((await sous(['init', '--path', repo, '--non-interactive'])).code).toBe(0);
      fs.mkdirSync(path.join(repo, 'lib'));
      fs.writeFileSync(path.join(repo, 'lib', 'util.py'), 'def helper():\n    return 1\n');
      fs.writeFileSync(path.join(repo, 'main.go'), 'package main\n');
      const configBefore = fs.readFileSync(path.join(repo, '.sous', 'config.toml'), 'utf8');
      const first = (await sous(['doctor', '--path', repo, '--json'])).json.checks.find((c: { name: string }) => c.name === 'scope');
      expect(first.status).toBe('warn');
      expect(first.detail).toMatch(/2 code files are left out/);
      expect(fs.readFileSync(path.join(repo, '.sous', 'config.toml'), 'utf8')).toBe(configBefore);
      const command = /sous config set privacy\.allowed_paths '(.*)'$/.exec(first.hint)?.[1];
      expect(JSON.parse(command as string)).toEqual(['src/**', 'docs/**', 'lib/**', '*.go']);
      expect((await sous(['config', 'set', 'privacy.allowed_paths', command as string, '--path', repo])).code).toBe(0);
      const after = (await sous(['doctor', '--path', repo, '--json'])).json.checks.find((c: { name: string }) => c.name === 'scope');
      expect(after.status).toBe('ok');
    } finally {
      rmTempDir(repo);
    }
  });
});
