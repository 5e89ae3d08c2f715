import * as fs from 'node:fs';
import * as path from 'node:path';
import type { SousPaths } from '@sous/config';
import { PRIVATE_FILE_MODE, ensurePrivateDir, processAlive } from '@sous/protocol';

/** Written by the daemon once it listens; removed on clean shutdown. */
export interface DaemonRunState {
  pid: number;
  host: string;
  port: number;
  started_at: string;
  version: string;
  workspace: string;
  /**
   * The supervisor that started this daemon, or null when it was started directly (a container).
   * A supervised daemon stops when its supervisor dies; `sous up` replaces one still stopping.
   */
  supervisor_pid?: number | null;
}

/** Written by the supervisor that `sous up` starts; removed when it stops. */
export interface SupervisorRunState {
  pid: number;
  daemon_pid: number | null;
  host: string;
  port: number;
  started_at: string;
  restarts: number;
  /** `running`, `restarting` (waiting out a backoff), or `gave_up` after repeated fast crashes. */
  state: 'running' | 'restarting' | 'gave_up';
  last_exit?: { code: number | null; signal: string | null; at: string };
  last_error?: string;
  /**
   * When the supervisor's own probe first got an answer from the current daemon: from then on a
   * silence longer than SOUS_SUPERVISOR_HUNG_MS restarts it (before, the longer start grace applies).
   */
  daemon_answered_at?: string | null;
}

export type RunFile = 'daemon' | 'supervisor';

export function runFilePath(paths: SousPaths, which: RunFile): string {
  return path.join(paths.run, `${which}.json`);
}

/** Writes a run-state file atomically (temp + rename), so readers never see half a file. */
export function writeRunState(paths: SousPaths, which: RunFile, state: DaemonRunState | SupervisorRunState): void {
  ensurePrivateDir(paths.run);
  const file = runFilePath(paths, which);
  const tmp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, JSON.stringify(state, null, 2) + '\n', { mode: PRIVATE_FILE_MODE });
  fs.renameSync(tmp, file);
}

export function readRunState(paths: SousPaths, which: 'daemon'): DaemonRunState | undefined;
export function readRunState(paths: SousPaths, which: 'supervisor'): SupervisorRunState | undefined;
export function readRunState(paths: SousPaths, which: RunFile): DaemonRunState | SupervisorRunState | undefined {
  try {
    return JSON.parse(fs.readFileSync(runFilePath(paths, which), 'utf8')) as DaemonRunState | SupervisorRunState;
  } catch {
    return undefined;
  }
}

/** Removes a run-state file if it still belongs to `pid` (a restarted process may own it by now). */
export function removeRunState(paths: SousPaths, which: RunFile, pid: number): void {
  const file = runFilePath(paths, which);
  try {
    const current = JSON.parse(fs.readFileSync(file, 'utf8')) as { pid?: number };
    if (current.pid === pid) fs.rmSync(file, { force: true });
  } catch {
    // already gone
  }
}

/** True when a process with this pid exists and has not exited; a zombie counts as exited (`processAlive`). */
export function pidAlive(pid: number | null | undefined): boolean {
  return processAlive(pid);
}
