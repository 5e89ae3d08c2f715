/**
 * `sous prepare` rides out a daemon restart: the daemon dies (SIGKILL) while the CLI's request is
 * in flight, the supervisor brings it back, and the CLI waits for it (saying so once on stderr),
 * sends the request again and prints the cycle's cards instead of failing on the first refused
 * connection.
 */
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import { CLI, embeddedEnv, freePort, sous } from './support/cli';
import { rawRequest } from './support/http';
import { git, makeGitRepo, rmTempDir, writeFile } from './support/tmp';
import { until } from './support/wait';

/** Whether process `pid` holds an established TCP connection to `port` on this machine (Linux /proc). */
function connectedTo(pid: number, port: number): boolean {
  let inodes: Set<string>;
  try {
    inodes = new Set(fs.readdirSync(`/proc/${pid}/fd`).map((fd) => {
      try {
        return /^socket:\[(\d+)\]$/.exec(fs.readlinkSync(`/proc/${pid}/fd/${fd}`))?.[1] ?? '';
      } catch {
        return '';
      }
    }));
  } catch {
    return false;
  }
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    const rows = fs.existsSync(table) ? fs.readFileSync(table, 'utf8').split('\n').slice(1) : [];
    for (const row of rows) {
      const f = row.trim().split(/\s+/);
      const remotePort = parseInt((f[2] ?? '').split(':')[1] ?? '', 16);
      if (remotePort === port && f[3] === '01' && inodes.has(f[9] ?? '-')) return true;
    }
  }
  return false;
}

test('a daemon killed while sous prepare waits on it is waited for, and the cycle still answers', async () => {
  const repo = makeGitRepo();
  const env = embeddedEnv();
  let stopped: number | undefined;
  try {
    // A guide that still links src/config.ts after a commit moved it: the move's patch (a virtual_diff card).
    writeFile(repo, 'src/config.ts', 'export function parseConfig(text: string): Record<string, string> {\n  return JSON.parse(text);\n}\n');
    writeFile(repo, 'docs/guide.md', '# Guide\n\nRead the settings with [the parser](../src/config.ts) before starting.\n');
    git(repo, ['add', '-A']);
    git(repo, ['commit', '-q', '-m', 'config and guide']);
    git(repo, ['mv', 'src/config.ts', 'src/settings.ts']);
    git(repo, ['commit', '-q', '-m', 'Move the parser to src/settings.ts']);
    const port = await freePort();
    const up = await sous(['up', '--path', repo, '--port', String(port), '--json'], { env });
    expect(up.code).toBe(0);
    await until(async () => ((await rawRequest({ port, path: '/status' })).json?.index?.state === 'ready' ? true : undefined), 60_000, 100);

    // Freeze the daemon so the CLI's request is provably in flight when it dies.
    const daemonPid = up.json.daemon_pid as number;
    process.kill(daemonPid, 'SIGSTOP');
    stopped = daemonPid;
    const child = spawn(process.execPath, [CLI, 'prepare', '--path', repo, '--json'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const exited = new Promise<number | null>((resolve) => child.once('close', resolve));
    await until(() => (connectedTo(child.pid as number, port) ? true : undefined), 30_000, 50);
    process.kill(daemonPid, 'SIGKILL');
    stopped = undefined;

    expect(await exited).toBe(0);
    expect(stderr).toMatch(/^sous: the daemon stopped answering \(restarting\?\); waiting up to 120 s for the supervisor to bring it back\n/);
    const out = JSON.parse(stdout) as { cycle: { answered_by: string }; items: Array<{ kind: string; evidence: Array<{ path: string }> }> };
    expect(out.cycle.answered_by).toBe('daemon');
    expect(out.items.find((i) => i.kind === 'virtual_diff')?.evidence[0]?.path).toBe('docs/guide.md');
    const ps = (await sous(['ps', '--path', repo, '--json'], { env })).json;
    expect(ps.processes[1].pid).not.toBe(daemonPid);
    expect(ps.processes[0].restarts).toBeGreaterThanOrEqual(1);
  } finally {
    if (stopped !== undefined) process.kill(stopped, 'SIGKILL');
    await sous(['down', '--path', repo], { env });
    rmTempDir(repo);
  }
}, 240_000);
