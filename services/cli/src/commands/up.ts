import type { Command } from 'commander';
import * as fs from 'node:fs';
import { DEFAULT_DAEMON_PORT, DEFAULT_HOST } from '@sous/protocol';
import { findFreePort, portFree } from '@sous/http';
import { daemonBaseUrl, DaemonClient } from '@sous/runtime';
import { CliError } from '../cli-error';
import { delay, findProcesses, spawnSupervisor, terminate, waitForHealthy } from '../daemon-control';
import { printJson, printLine } from '../output';
import { refuseHugeNonRepository } from '../repo-check';
import { run } from '../run';
import { resolveWorkspace } from '../workspace';
import type { SousPaths } from '@sous/config';
import { initWorkspace } from './init';

/** How long `sous up` waits for a replaced daemon's port to be released. */
const PORT_RELEASE_MS = 10_000;

interface UpOptions { path?: string; port?: string; force?: boolean; json?: boolean }

function parsePort(raw: string): number {
  const port = Number(raw);
  if (!Number.isInteger(port) || port < 1 || port > 65535) throw new CliError(`--port must be an integer between 1 and 65535 (found ${raw})`, 2);
  return port;
}

/** What `sous up` reports (text or --json). */
function report(opts: UpOptions, result: UpResult): void {
  if (opts.json) return printJson({ ...result, cockpit_url: `${result.url}/` });
  const s = result.status as { status?: string; store?: { kind?: string; ok?: boolean }; queue?: { kind?: string; ok?: boolean }; backend?: { reachable?: boolean | null; base_url?: string } };
  if (result.replaced_daemon_pid !== undefined) printLine(`The daemon (pid ${result.replaced_daemon_pid}) had lost its supervisor; it was stopped and a supervised one started.`);
  printLine(result.already_running ? 'Sous is already running.' : 'Sous is up.');
  printLine(`  supervisor pid  ${result.supervisor_pid ?? '-'}`);
  printLine(`  daemon pid      ${result.daemon_pid}`);
  printLine(`  cockpit         ${result.url}/`);
  printLine(`  health          ${s.status ?? 'unknown'} (store ${s.store?.kind} ${s.store?.ok ? 'ok' : 'failing'}, queue ${s.queue?.kind} ${s.queue?.ok ? 'ok' : 'failing'})`);
  const backend = s.backend?.reachable === null || s.backend?.reachable === undefined ? 'checking' : s.backend.reachable ? 'reachable' : 'not reachable (sous doctor)';
  printLine(`  model backend   ${s.backend?.base_url ?? ''} ${backend}`);
}

/** What starting (or finding) the workspace's daemon gives. */
export interface UpResult {
  already_running: boolean;
  supervisor_pid: number | null;
  daemon_pid: number;
  url: string;
  status: Record<string, unknown>;
  /** A daemon whose supervisor had died, stopped before this one started (docs/cli.md, Supervision). */
  replaced_daemon_pid?: number;
}

/**
 * The workspace's daemon, started (detached and supervised) when none runs: initialises `.sous/` on
 * first use. A busy port is an error naming the next free one, or, with `autoPort` (commands a person
 * does not watch, such as `sous mcp`), the next free port is taken.
 */
export async function ensureDaemon(paths: SousPaths, options: { port?: number; force?: boolean; autoPort?: boolean; onInit?: (line: string) => void } = {}): Promise<UpResult> {
  const refusal = refuseHugeNonRepository(paths.root, options.force === true);
  if (refusal) throw new CliError(refusal);

  const running = findProcesses(paths);
  // A supervisor that died (killed, or gave up) left its run file: start again on its port unless
  // --port says otherwise. A clean `sous down` removes it, and the default port applies.
  const leftBehind = running.supervisorAlive ? undefined : running.supervisor?.port;
  let port = options.port ?? leftBehind ?? DEFAULT_DAEMON_PORT;
  let replaced: number | undefined;
  if (running.daemonOrphaned && running.daemon) {
    // Its supervisor died: the daemon is stopping by itself. Wait for that (SIGTERM, killed after
    // STOP_TIMEOUT_MS), then start a supervised pair, on the same port unless --port says otherwise.
    await terminate(running.daemon.pid);
    replaced = running.daemon.pid;
    port = options.port ?? running.daemon.port;
    // A killed process may hold its listening socket a moment longer than its pid.
    const deadline = Date.now() + PORT_RELEASE_MS;
    while (!(await portFree(DEFAULT_HOST, port)) && Date.now() < deadline) await delay(100);
  } else if (running.daemonAlive && running.daemon) {
    const url = daemonBaseUrl(running.daemon.host, running.daemon.port);
    // A stale run file whose pid now belongs to another process does not answer /status.
    const status = await new DaemonClient(url, 3000).get<Record<string, unknown>>('/status').catch(() => undefined);
    if (status) return { already_running: true, supervisor_pid: running.supervisorAlive ? running.supervisor?.pid ?? null : null, daemon_pid: running.daemon.pid, url, status };
  }
  if (running.supervisorAlive && running.supervisor) {
    // A supervisor is between restarts: wait for its daemon instead of starting a second one.
    const { daemon, status } = await waitForHealthy(paths, running.supervisor.pid);
    return { already_running: true, supervisor_pid: running.supervisor.pid, daemon_pid: daemon.pid, url: daemonBaseUrl(daemon.host, daemon.port), status };
  }

  if (!fs.existsSync(paths.config)) {
    const init = await initWorkspace(paths, { interactive: false, force: options.force === true });
    options.onInit?.(`Initialised ${init.state_dir} (tier ${init.tier}, bundle ${init.bundle_id})`);
  }
  if (!(await portFree(DEFAULT_HOST, port))) {
    const next = await findFreePort(DEFAULT_HOST, port + 1);
    if (options.autoPort && next) port = next;
    else throw new CliError(`port ${port} is already in use` + (next ? `; the next free port is ${next}: run sous up --port ${next}` : '; choose another with --port <n>'));
  }
  const supervisorPid = spawnSupervisor(paths, DEFAULT_HOST, port, process.env);
  const { daemon, status } = await waitForHealthy(paths, supervisorPid);
  return { already_running: false, supervisor_pid: supervisorPid, daemon_pid: daemon.pid, url: daemonBaseUrl(daemon.host, daemon.port), status, ...(replaced === undefined ? {} : { replaced_daemon_pid: replaced }) };
}

export function registerUpCommands(program: Command): void {
  program
    .command('up')
    .description('start the daemon (detached and supervised) on the embedded default or DATABASE_URL/REDIS_URL')
    .option('--path <dir>', 'repository to watch (default: nearest .sous/ upward, else the current directory)')
    .option('--port <n>', `daemon port (default ${DEFAULT_DAEMON_PORT})`)
    .option('--force', 'allow a huge directory that is not a git repository')
    .option('--json', 'print PIDs, URL and health as JSON')
    .action(
      run(async (opts: UpOptions) => {
        const paths = resolveWorkspace(opts.path);
        const result = await ensureDaemon(paths, { ...(opts.port === undefined ? {} : { port: parsePort(opts.port) }), force: opts.force === true, ...(opts.json ? {} : { onInit: printLine }) });
        report(opts, result);
      }),
    );

  program
    .command('down')
    .description('stop the daemon and its supervisor (running jobs finish or are cancelled)')
    .option('--path <dir>', 'repository (default: nearest .sous/ upward)')
    .option('--json', 'print the result as JSON')
    .action(
      run(async (opts: { path?: string; json?: boolean }) => {
        const paths = resolveWorkspace(opts.path);
        const p = findProcesses(paths);
        const stopped: number[] = [];
        let killed = false;
        // Stop the supervisor first so it does not restart the daemon; it stops its child.
        if (p.supervisorAlive && p.supervisor) {
          killed = !(await terminate(p.supervisor.pid)) || killed;
          stopped.push(p.supervisor.pid);
        }
        const after = findProcesses(paths);
        if (after.daemonAlive && after.daemon) {
          killed = !(await terminate(after.daemon.pid)) || killed;
          stopped.push(after.daemon.pid);
        }
        for (const f of ['supervisor.json', 'daemon.json']) fs.rmSync(`${paths.run}/${f}`, { force: true });
        if (opts.json) return printJson({ stopped: stopped.length > 0, pids: stopped, killed });
        if (stopped.length === 0) return printLine('Sous is not running.');
        printLine(killed ? `Stopped (pids ${stopped.join(', ')}); a process did not stop in time and was killed.` : `Stopped (pids ${stopped.join(', ')}).`);
      }),
    );
}
