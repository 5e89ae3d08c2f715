/**
 * Supervision survives the supervisor's own death (docs/cli.md, "Supervision"): a daemon whose
 * supervisor is killed stops by itself, `sous up` then starts a supervised pair (also while the old
 * daemon is still stopping), and `.sous/logs/supervisor.log` tells what happened without any file
 * contents.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { pidAlive } from '@sous/runtime';
import { embeddedEnv, freePort, sous } from './support/cli';
import { makeGitRepo, rmTempDir, writeFile } from './support/tmp';
import { until } from './support/wait';

interface LogLine { msg: string; level: number; [field: string]: unknown }

function supervisorLog(repo: string): LogLine[] {
  const file = path.join(repo, '.sous', 'logs', 'supervisor.log');
  if (!fs.existsSync(file)) return [];
  return fs.readFileSync(file, 'utf8').split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as LogLine);
}

async function up(repo: string, env: NodeJS.ProcessEnv, port?: number) {
  const res = await sous(['up', '--path', repo, ...(port === undefined ? [] : ['--port', String(port)]), '--json'], { env });
  expect(res.stderr).toBe('');
  expect(res.code).toBe(0);
  return res.json as { already_running: boolean; supervisor_pid: number | null; daemon_pid: number; url: string; replaced_daemon_pid?: number };
}

describe('the daemon of a killed supervisor', () => {
  let repo: string;
  let env: NodeJS.ProcessEnv;
  let port: number;

  beforeAll(async () => {
    repo = makeGitRepo();
    writeFile(repo, 'src/secret_sauce.ts', 'export const recipe = "CONTENT-THAT-NEVER-REACHES-A-LOG";\n');
    env = embeddedEnv();
    port = await freePort();
  });

  afterAll(async () => {
    await sous(['down', '--path', repo], { env });
    rmTempDir(repo);
  }, 60_000);

  test('stops by itself; sous up afterwards starts a supervised daemon on the same port', async () => {
    const first = await up(repo, env, port);
    expect(first.already_running).toBe(false);
    process.kill(first.supervisor_pid as number, 'SIGKILL');

    // The documented behaviour: the daemon notices and stops cleanly (its run file removed).
    await until(() => (pidAlive(first.daemon_pid) ? undefined : true), 60_000, 100);
    expect(fs.existsSync(path.join(repo, '.sous', 'run', 'daemon.json'))).toBe(false);
    expect(fs.readFileSync(path.join(repo, '.sous', 'logs', 'daemon.log'), 'utf8')).toMatch(/the supervisor is gone; stopping/);

    const second = await up(repo, env); // no --port: the port it ran on
    expect(second.already_running).toBe(false);
    expect(second.url).toBe(`http://127.0.0.1:${port}`);
    expect(pidAlive(second.supervisor_pid)).toBe(true);
    expect(second.daemon_pid).not.toBe(first.daemon_pid);
    const ps = (await sous(['ps', '--path', repo, '--json'], { env })).json;
    expect(ps.processes.map((p: { role: string; pid: number; state: string }) => [p.role, p.pid, p.state])).toEqual([
      ['supervisor', second.supervisor_pid, 'running'],
      ['daemon', second.daemon_pid, 'running'],
    ]);

    const lines = supervisorLog(repo);
    const messages = lines.map((l) => l.msg);
    expect(messages.filter((m) => m === 'supervisor started')).toHaveLength(2);
    expect(lines.find((l) => l.msg === 'daemon process started' && l.daemon_pid === first.daemon_pid)).toBeDefined();
    expect(lines.find((l) => l.msg === 'the previous supervisor ended without stopping (killed?); its daemon stops by itself')).toMatchObject({ previous_pid: first.supervisor_pid });
  }, 180_000);

  test('sous up replaces a daemon that outlived its supervisor instead of calling it running', async () => {
    const running = await up(repo, env, port); // (already running after the previous test)
    const [supervisorPid, daemonPid] = [running.supervisor_pid as number, running.daemon_pid];
    // A daemon that cannot act on its supervisor's death (stuck, or from a build before this rule):
    // `sous up` must not call it running; it stops it (SIGTERM, SIGKILL after 30 s) and starts a pair.
    process.kill(daemonPid, 'SIGSTOP');
    process.kill(supervisorPid, 'SIGKILL');
    const ps = (await sous(['ps', '--path', repo, '--json'], { env })).json;
    expect(ps.processes[1]).toMatchObject({ pid: daemonPid, state: 'orphaned' });
    const next = await up(repo, env);
    expect(next.already_running).toBe(false);
    expect(next.replaced_daemon_pid).toBe(daemonPid);
    expect(pidAlive(daemonPid)).toBe(false);
    expect(pidAlive(next.supervisor_pid)).toBe(true);
    expect(next.daemon_pid).not.toBe(daemonPid);
    expect(next.url).toBe(`http://127.0.0.1:${port}`);
  }, 180_000);

  test('the supervisor log records a crash, the restart and a give-up, and never file contents', async () => {
    const [, daemonPid] = ((await sous(['ps', '--path', repo, '--json'], { env })).json.processes as Array<{ pid: number }>).map((p) => p.pid) as [number, number];
    process.kill(daemonPid, 'SIGKILL');
    await until(() => (supervisorLog(repo).some((l) => l.msg === 'restarting the daemon') ? true : undefined), 30_000, 100);
    expect(supervisorLog(repo).find((l) => l.msg === 'daemon exited' && l.daemon_pid === daemonPid)).toMatchObject({ code: null, signal: 'SIGKILL' });
    const restarted = await until(async () => {
      const d = (await sous(['ps', '--path', repo, '--json'], { env })).json.processes[1] as { pid: number | null };
      return d.pid !== null && d.pid !== daemonPid ? d.pid : undefined;
    }, 60_000, 200);

    // A config the daemon refuses at start: the next restart exits 2 and the supervisor gives up.
    fs.writeFileSync(path.join(repo, '.sous', 'config.toml'), '[compute]\ncpu_fraction = 7\n');
    process.kill(restarted, 'SIGKILL');
    await until(() => (supervisorLog(repo).some((l) => l.msg === 'gave up; run sous up to start the daemon again') ? true : undefined), 60_000, 100);
    expect(supervisorLog(repo).filter((l) => l.msg === 'daemon exited').pop()).toMatchObject({ code: 2, signal: null });

    const text = fs.readFileSync(path.join(repo, '.sous', 'logs', 'supervisor.log'), 'utf8');
    expect(text).not.toContain('CONTENT-THAT-NEVER-REACHES-A-LOG');
    expect(text).not.toContain('export const answer');
    expect(text).not.toContain('cpu_fraction = 7');
  }, 180_000);
});
