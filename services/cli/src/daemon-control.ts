import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { SousPaths } from '@sous/config';
import { PRIVATE_FILE_MODE, ensurePrivateDir } from '@sous/protocol';
import { DaemonClient, daemonBaseUrl, pidAlive, readRunState, type DaemonRunState, type SupervisorRunState } from '@sous/runtime';
import { CliError } from './cli-error';

/** How long `sous up` waits for the daemon to report healthy (a first PGlite initdb takes ~5 s). */
export const START_TIMEOUT_MS = 60_000;
/** How long `sous down` waits for a graceful stop before killing. */
export const STOP_TIMEOUT_MS = 30_000;
const POLL_MS = 150;
/** How long `terminate` waits for a SIGKILLed process to be gone. */
const KILL_WAIT_MS = 5_000;

/** The processes of a workspace's daemon, as far as the run-state files and liveness say. */
export interface DaemonProcesses {
  supervisor?: SupervisorRunState;
  daemon?: DaemonRunState;
  supervisorAlive: boolean;
  daemonAlive: boolean;
  /**
   * The daemon runs but the supervisor that started it is gone (killed): it is stopping by itself, or
   * (a daemon of an older build) would run on with nothing to restart it. A daemon started directly
   * (a container) was never supervised and is not orphaned.
   */
  daemonOrphaned: boolean;
}

export function findProcesses(paths: SousPaths): DaemonProcesses {
  const supervisor = readRunState(paths, 'supervisor');
  const daemon = readRunState(paths, 'daemon');
  const supervisorAlive = pidAlive(supervisor?.pid);
  const daemonAlive = pidAlive(daemon?.pid);
  const ownSupervisorGone = typeof daemon?.supervisor_pid === 'number' && !pidAlive(daemon.supervisor_pid);
  const leftBySupervisor = supervisor !== undefined && !supervisorAlive && supervisor.daemon_pid === daemon?.pid;
  const result: DaemonProcesses = { supervisorAlive, daemonAlive, daemonOrphaned: daemonAlive && (ownSupervisorGone || leftBySupervisor) };
  if (supervisor) result.supervisor = supervisor;
  if (daemon) result.daemon = daemon;
  return result;
}

/** A client for the workspace's running daemon, or undefined when none runs. */
export function clientFor(paths: SousPaths, timeoutMs?: number): DaemonClient | undefined {
  const { daemon, daemonAlive } = findProcesses(paths);
  if (!daemon || !daemonAlive) return undefined;
  return new DaemonClient(daemonBaseUrl(daemon.host, daemon.port), timeoutMs);
}

/** Like clientFor, but a missing daemon is a one-line error telling the user to start it. */
export function requireClient(paths: SousPaths): DaemonClient {
  const client = clientFor(paths);
  if (!client) throw new CliError(`no daemon runs for ${paths.root}; start it with: sous up --path ${paths.root}`, 3);
  return client;
}

function supervisorEntry(): string {
  return path.join(path.dirname(require.resolve('@sous/daemon/package.json')), 'dist', 'supervisor.js');
}

/** Starts the supervisor detached from this terminal; it starts and restarts the daemon. */
export function spawnSupervisor(paths: SousPaths, host: string, port: number, env: NodeJS.ProcessEnv): number {
  const entry = supervisorEntry();
  if (!fs.existsSync(entry)) throw new CliError(`daemon build not found at ${entry}; run npm run build`);
  ensurePrivateDir(paths.logs);
  const out = fs.openSync(path.join(paths.logs, 'supervisor.log'), 'a', PRIVATE_FILE_MODE);
  const args = [entry, '--path', paths.root, '--host', host, '--port', String(port)];
  if (paths.dir !== path.join(paths.root, '.sous')) args.push('--state-dir', paths.dir);
  const child = spawn(process.execPath, args, { detached: true, stdio: ['ignore', out, out], env, cwd: paths.root });
  child.unref();
  fs.closeSync(out);
  if (!child.pid) throw new CliError('could not start the daemon supervisor');
  return child.pid;
}

/** Waits until the daemon started by `supervisorPid` answers /status, or says why it could not. */
export async function waitForHealthy(paths: SousPaths, supervisorPid: number, timeoutMs = START_TIMEOUT_MS): Promise<{ daemon: DaemonRunState; status: Record<string, unknown> }> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const { supervisor, daemon, daemonAlive } = findProcesses(paths);
    if (supervisor?.pid === supervisorPid && supervisor.state === 'gave_up') {
      throw new CliError(`the daemon could not start: ${supervisor.last_error ?? 'see sous logs'}`);
    }
    if (!pidAlive(supervisorPid)) {
      const reason = supervisor?.pid === supervisorPid ? supervisor.last_error : undefined;
      throw new CliError(`the daemon could not start: ${reason ?? `see ${path.join(paths.logs, 'supervisor.log')}`}`);
    }
    if (daemon && daemonAlive && supervisor?.daemon_pid === daemon.pid) {
      try {
        const status = await new DaemonClient(daemonBaseUrl(daemon.host, daemon.port), 2000).get<Record<string, unknown>>('/status');
        return { daemon, status };
      } catch {
        // listening soon
      }
    }
    await delay(POLL_MS);
  }
  throw new CliError(`the daemon did not become healthy within ${timeoutMs / 1000} s; see sous logs --path ${paths.root}`);
}

/** Sends SIGTERM and waits for the process to exit; kills it after the timeout. Returns false if it had to kill. */
export async function terminate(pid: number, timeoutMs = STOP_TIMEOUT_MS): Promise<boolean> {
  try {
    process.kill(pid, 'SIGTERM');
  } catch {
    return true;
  }
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (!pidAlive(pid)) return true;
    await delay(POLL_MS);
  }
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    // exited meanwhile
  }
  // SIGKILL is delivered asynchronously: wait (briefly) until the process, and its port, are gone.
  const killDeadline = Date.now() + KILL_WAIT_MS;
  while (pidAlive(pid) && Date.now() < killDeadline) await delay(POLL_MS / 3);
  return false;
}

export function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
