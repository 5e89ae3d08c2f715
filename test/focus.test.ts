/**
 * Auto Focus through real daemons sharing one Sous home: no client → standby with the reason; a real
 * process named like a supported client is seen; one active workspace is selected; two active ones
 * are ambiguous (standby, never a guess) until Sous's own integration names one; a paused workspace
 * is not read at all (strace shows no file of it opened while it is edited); choices survive a
 * restart; manual-only and work-here; bad input.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { CLI, embeddedEnv, freePort, sous } from './support/cli';
import { rawRequest } from './support/http';
import { makeGitRepo, makeTempDir, rmTempDir, writeFile } from './support/tmp';
import { until } from './support/wait';
import { TIER_EFFECTS, type Tier } from '@sous/setup';

interface Row { id: string; root: string; class: string; reason: string; action: string }
interface Focus { workspace: string; this_workspace: Row & { may_read: boolean; may_prepare: boolean }; selected: string | null; mode: string; workspaces: Row[]; clients: { running: Array<{ id: string; pids: number[] }> } }

describe('Auto Focus across daemons', () => {
  const home = makeTempDir('sous-home-');
  // The fake client below lives in binDir; the daemons look for clients only there.
  const binDir = makeTempDir('sous-clients-');
  const env = embeddedEnv({ SOUS_HOME: home, SOUS_TEST_CLIENT_DIR: binDir });
  const repos: string[] = [];
  const ports: number[] = [];
  let client: ChildProcess | undefined;

  const focus = async (i: number): Promise<Focus> => (await rawRequest({ port: ports[i] as number, path: '/focus' })).json as Focus;
  const post = (i: number, p: string, body?: unknown) =>
    rawRequest({ port: ports[i] as number, method: 'POST', path: p, ...(body === undefined ? {} : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }) });

  beforeAll(async () => {
    for (let i = 0; i < 2; i++) {
      const repo = makeGitRepo();
      writeFile(repo, 'src/app.ts', `export const app${i} = ${i};\n`);
      repos.push(repo);
      const port = await freePort();
      ports.push(port);
      expect((await sous(['up', '--path', repo, '--port', String(port), '--json'], { env })).code).toBe(0);
    }
  }, 120_000);

  afterAll(async () => {
    client?.kill('SIGKILL');
    for (const repo of repos) await sous(['down', '--path', repo], { env });
    for (const dir of [...repos, home, binDir]) rmTempDir(dir);
  }, 60_000);

  test('no supported client running: standby, with the reason and what to do, never an error', async () => {
    const f = await focus(0);
    expect(f.clients.running).toEqual([]);
    expect(f.selected).toBeNull();
    expect(f.this_workspace).toMatchObject({ class: 'standby', may_prepare: false, may_read: true });
    expect(f.this_workspace.reason).toMatch(/^Standby: no supported AI client is running/);
    expect(f.this_workspace.action).toMatch(/^Action: /);
    const status = await sous(['focus', 'status', '--path', repos[0] as string], { env });
    expect(status.code).toBe(0);
    expect(status.stdout).toMatch(/not preparing work/);
    expect(status.stdout).toMatch(/Standby: no supported AI client is running/);
    expect(status.stdout).toMatch(/Action: /);
  });

  test('a real process named like a supported client is seen; one active workspace is selected', async () => {
    const exe = path.join(binDir, 'cursor');
    fs.copyFileSync('/bin/sleep', exe);
    client = spawn(exe, ['300'], { stdio: 'ignore' });
    const seen = await until(async () => {
      const f = await focus(0);
      return f.clients.running.some((c) => c.id === 'cursor' && c.pids.includes(client?.pid as number)) ? f : undefined;
    }, 10_000, 200);
    expect(seen.clients.running.map((c) => c.id)).toEqual(['cursor']);
    // Only the first workspace has a recent change: it is the one Sous may prepare for.
    writeFile(repos[0] as string, 'src/app.ts', 'export const app0 = 10;\n');
    const selected = await until(async () => {
      const f = await focus(0);
      return f.selected === f.workspace ? f : undefined;
    }, 15_000, 200);
    expect(selected.this_workspace).toMatchObject({ class: 'selected', may_prepare: true });
    expect((await focus(1)).this_workspace.may_prepare).toBe(false);
  });

  test('two active workspaces: standby for both (never a guess) until an integration of Sous names one', async () => {
    writeFile(repos[1] as string, 'src/app.ts', 'export const app1 = 11;\n');
    const ambiguous = await until(async () => {
      const f = await focus(1);
      return f.selected === null ? f : undefined;
    }, 15_000, 200);
    expect(ambiguous.workspaces.every((w) => w.class === 'standby')).toBe(true);
    expect(ambiguous.this_workspace.reason).toMatch(/^Standby: .*2 workspaces/);
    expect(ambiguous.this_workspace.action).toMatch(/sous focus work-here/);
    // Neither a page of another site (an <img> pointing at /mcp, a no-cors POST) nor a refused
    // request is Sous's integration at work: nothing is selected by them.
    const img = await rawRequest({ port: ports[1] as number, path: '/mcp', headers: { 'sec-fetch-site': 'cross-site', 'sec-fetch-dest': 'image' } });
    expect(img.status).toBe(405);
    const noCors = await rawRequest({ port: ports[1] as number, method: 'POST', path: '/mcp', headers: { origin: 'http://localhost', 'content-type': 'text/plain' }, body: '{}' });
    expect(noCors.json.error.code).toBe('forbidden_origin');
    expect((await post(1, '/v1/context', { prompt: '' })).status).toBe(400);
    expect((await focus(1)).selected).toBeNull();
    // A context request for the second workspace is an integration signal: now it is clear.
    expect((await post(1, '/v1/context', { prompt: 'app1' })).status).toBe(200);
    const chosen = await until(async () => {
      const f = await focus(0);
      return f.selected !== null ? f : undefined;
    }, 15_000, 200);
    expect(chosen.selected).toBe((await focus(1)).workspace);
  });

  test('a paused workspace is not read: no file of it is opened while it is edited', async () => {
    const repo = repos[0] as string;
    const paused = await sous(['focus', 'pause', repo], { env });
    expect(paused.code).toBe(0);
    expect(paused.stdout).toMatch(/Paused: you paused/);
    const pid = Number((await rawRequest({ port: ports[0] as number, path: '/status' })).json.pid);
    const trace = path.join(binDir, 'strace.txt');
    const strace = spawn('strace', ['-f', '-qq', '-e', 'trace=openat,open,stat,newfstatat,statx', '-o', trace, '-p', String(pid)], { stdio: 'ignore' });
    try {
      await until(() => (fs.existsSync(trace) ? true : undefined), 5000);
      await new Promise((r) => setTimeout(r, 500)); // strace attaches to every thread
      for (let i = 0; i < 5; i++) writeFile(repo, `src/edit${i}.ts`, `export const e${i} = ${i};\n`);
      writeFile(repo, 'src/app.ts', 'export const app0 = 20;\n');
      await new Promise((r) => setTimeout(r, 1500)); // longer than the watcher's debounce: a watching daemon would read now
    } finally {
      strace.kill('SIGINT');
      await new Promise((r) => strace.once('exit', r));
    }
    const opened = fs
      .readFileSync(trace, 'utf8')
      .split('\n')
      .filter((line) => line.includes(repo) && !line.includes(`${repo}/.sous`));
    expect(opened).toEqual([]);
    const status = (await rawRequest({ port: ports[0] as number, path: '/status' })).json;
    expect(status.index.suspended).toBe(true);
    expect((await post(0, '/prepare', {})).status).toBe(409);

    // Resumed: it catches up with the edits made while paused.
    expect((await sous(['focus', 'resume', repo], { env })).code).toBe(0);
    await until(async () => {
      const res = await post(0, '/v1/context', { prompt: 'e4' });
      return (res.json.items as Array<{ path: string }>).some((i) => i.path === 'src/edit4.ts') ? true : undefined;
    }, 15_000, 200);
  });

  test('choices survive a restart; a workspace paused at start is not read at all', async () => {
    const repo = repos[1] as string;
    expect((await sous(['focus', 'pin', repo], { env })).code).toBe(0);
    expect((await sous(['focus', 'pause', repo], { env })).code).toBe(0);
    expect((await sous(['down', '--path', repo], { env })).code).toBe(0);
    writeFile(repo, 'src/while-down.ts', 'export const down = 1;\n');
    // One-shot commands respect the pause too: without a daemon they would read the repository.
    const oneShot = await sous(['prepare', '--path', repo], { env });
    expect(oneShot.code).toBe(1);
    expect(oneShot.stderr).toMatch(/is paused: Sous reads nothing there; run sous focus resume/);
    expect((await sous(['up', '--path', repo, '--port', String(ports[1]), '--json'], { env })).code).toBe(0);
    const f = await focus(1);
    expect(f.this_workspace.class).toBe('paused');
    const status = (await rawRequest({ port: ports[1] as number, path: '/status' })).json;
    expect(status.index.reads).toBe(0);
    expect(status.focus).toMatchObject({ class: 'paused', may_read: false });
    expect((await sous(['focus', 'resume', repo], { env })).code).toBe(0);
    // Pinned before the restart: selected again once resumed.
    const back = await until(async () => {
      const g = await focus(1);
      return g.selected === g.workspace ? g : undefined;
    }, 15_000, 200);
    expect(back.this_workspace.reason).toMatch(/^Selected: /);
    expect((await sous(['focus', 'unpin', repo], { env })).code).toBe(0);
  }, 90_000);

  test('manual-only selects nothing on its own; work-here selects that workspace', async () => {
    expect((await sous(['focus', 'mode', 'manual-only'], { env })).code).toBe(0);
    const manual = await until(async () => {
      const f = await focus(0);
      return f.mode === 'manual-only' && f.selected === null ? f : undefined;
    }, 5000, 100);
    expect(manual.this_workspace.reason).toMatch(/manual-only/);
    const here = await sous(['focus', 'work-here', repos[0] as string, '--json'], { env });
    expect(here.code).toBe(0);
    expect(here.json.this_workspace).toMatchObject({ class: 'selected', may_prepare: true });
    expect((await sous(['focus', 'mode', 'auto'], { env })).code).toBe(0);
  });

  test('a request to the separate context process reports the integration for its workspace', async () => {
    const repo = repos[1] as string;
    const port = await freePort();
    const context = spawn(process.execPath, [CLI, 'proxy', '--context-only', '--path', repo, '--port', String(port)], { env, stdio: 'ignore' });
    try {
      await until(async () => ((await rawRequest({ port, method: 'POST', path: '/v1/context', headers: { 'content-type': 'application/json' }, body: '{"prompt":"app1"}' }).catch(() => undefined))?.status === 200 ? true : undefined), 30_000, 200);
      const id = (await focus(1)).workspace;
      const report = JSON.parse(fs.readFileSync(path.join(home, 'activity', `${id}.context.json`), 'utf8')) as { root: string; last_integration: string };
      expect(report.root).toBe(repo);
      expect(Date.now() - Date.parse(report.last_integration)).toBeLessThan(60_000);
    } finally {
      context.kill('SIGTERM');
    }
  });

  test('resources: the model backend, compute limits and devices, read-only', async () => {
    const res = await rawRequest({ port: ports[0] as number, path: '/resources' });
    expect(res.status).toBe(200);
    expect(res.json.backend).toMatchObject({ base_url: expect.stringMatching(/^http/), model: expect.any(String) });
    expect(res.json.hardware.tier).toMatch(/^(light|capable|high_performance|unknown)$/);
    // `sous up` ran init, which wrote the probed tier's cycle bound (docs/setup.md#tiers).
    expect(res.json.compute).toMatchObject({ idle_only: true, cpu_fraction: expect.any(Number), cycle_concurrency: expect.any(Number), max_cycle_seconds: TIER_EFFECTS[res.json.hardware.tier as Tier].max_cycle_seconds });
    expect(res.json.embedding).toMatchObject({ device: 'cpu' });
    expect(JSON.stringify(res.json)).not.toMatch(/"api_key"\s*:/);
    const cli = await sous(['resources', 'status', '--path', repos[0] as string], { env });
    expect(cli.code).toBe(0);
    expect(cli.stdout).toMatch(/^model backend /m);
    expect(cli.stdout).toMatch(/^compute .*cores/m);
    expect(cli.stdout).toMatch(/^hardware .*tier/m);
  });

  test('bad input: unknown workspace 404 / one CLI line, bad mode 400 / exit 2', async () => {
    const unknown = await post(0, '/focus/workspaces/ws-000000000000/pause');
    expect(unknown.status).toBe(404);
    expect(unknown.json.error).toMatchObject({ code: 'not_found', where: 'params.id' });
    const mode = await post(0, '/focus/mode', { mode: 'sometimes' });
    expect(mode.status).toBe(400);
    expect(mode.json.error.where).toBe('body.mode');
    const outside = makeTempDir('sous-unwired-');
    try {
      const cli = await sous(['focus', 'pause', outside], { env });
      expect(cli.code).toBe(2);
      expect(cli.stderr.trim().split('\n')).toHaveLength(1);
      expect(cli.stderr).toMatch(/is not a wired workspace/);
    } finally {
      rmTempDir(outside);
    }
    const badMode = await sous(['focus', 'mode', 'sometimes'], { env });
    expect(badMode.code).toBe(2);
    expect(badMode.stderr).toMatch(/mode must be one of auto, manual-only/);
  });
});
