#!/usr/bin/env node
/**
 * Supervisor entry point, started detached by `sous up`: runs the daemon as a child process and
 * restarts it after a crash with exponential backoff. Same flags as the daemon.
 *
 * A daemon that stops answering `/status` for SOUS_SUPERVISOR_HUNG_MS (default 3 minutes: far above
 * any legitimate pause, such as the first write to the embedded store) is killed and restarted like
 * a crashed one: a hung daemon is worse than a restarted one. Until its first answer a starting daemon
 * gets at least START_GRACE_MS (creating the embedded store alone takes seconds), so a short
 * SOUS_SUPERVISOR_HUNG_MS cannot kill every start.
 *
 * A daemon that exits 2 refused to start (busy port, locked store, invalid config): restarting
 * would not help, so the supervisor records the reason and stops. After MAX_FAST_CRASHES crashes in
 * a row that each lived less than STABLE_MS it gives up too, rather than spin.
 *
 * The daemon gets an IPC channel and SOUS_SUPERVISOR_PID: when this process dies (even by SIGKILL)
 * the channel closes and the daemon stops by itself (src/supervision.ts).
 *
 * `.sous/logs/supervisor.log` records what the supervisor did (start, each daemon start and exit with
 * its code or signal, hung kills, restarts, give-up, stop) as structured lines. It never copies the
 * daemon's stderr (a crash message could quote what the daemon was reading): that stays in
 * daemon.stderr.log.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { createLogger } from '@sous/logging';
import { parseProcessOptions, pidAlive, processPaths, readRunState, removeRunState, writeRunState, type SupervisorRunState } from '@sous/runtime';
import { DEFAULT_DAEMON_PORT, PRIVATE_FILE_MODE, PRIVATE_UMASK, ensurePrivateDir } from '@sous/protocol';
import { DAEMON_NODE_FLAGS, daemonEnv } from './memory-settings';
import { SUPERVISOR_PID_ENV } from './supervision';

const BACKOFF_MS = [500, 1000, 2000, 4000, 8000, 16000, 30000];
const STABLE_MS = 60_000;
const MAX_FAST_CRASHES = 8;
const STOP_TIMEOUT_MS = 20_000;
const HUNG_MS = Number(process.env.SOUS_SUPERVISOR_HUNG_MS) > 0 ? Number(process.env.SOUS_SUPERVISOR_HUNG_MS) : 180_000;
const START_GRACE_MS = Math.max(HUNG_MS, 120_000);
const PROBE_EVERY_MS = Math.min(15_000, Math.max(250, Math.floor(HUNG_MS / 4)));

process.umask(PRIVATE_UMASK);
const args = process.argv.slice(2);
const options = parseProcessOptions(args, process.env, { port: DEFAULT_DAEMON_PORT });
const paths = processPaths(options);
ensurePrivateDir(paths.logs);
const stderrLog = path.join(paths.logs, 'daemon.stderr.log');
const log = createLogger({ name: 'supervisor', file: path.join(paths.logs, 'supervisor.log'), level: options.logLevel });

let child: ChildProcess | undefined;
let stopping = false;
let fastCrashes = 0;
const state: SupervisorRunState = {
  pid: process.pid,
  daemon_pid: null,
  host: options.host,
  port: options.port,
  started_at: new Date().toISOString(),
  restarts: 0,
  state: 'running',
};

function save(): void {
  writeRunState(paths, 'supervisor', state);
}

function startChild(): void {
  const started = Date.now();
  let lastLine = '';
  const proc = spawn(process.execPath, [...DAEMON_NODE_FLAGS, path.join(__dirname, 'main.js'), ...args], {
    stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
    env: { ...daemonEnv(process.env), [SUPERVISOR_PID_ENV]: String(process.pid) },
  });
  // Nothing is sent over the channel: it exists so the daemon notices when this process is gone.
  proc.on('error', (err) => {
    log.error({ error: err.message }, 'daemon process error');
    if (proc.pid === undefined) giveUp(`could not start the daemon process: ${err.message}`);
  });
  child = proc;
  state.daemon_pid = proc.pid ?? null;
  log.info({ daemon_pid: proc.pid ?? null, restarts: state.restarts }, 'daemon process started');
  state.daemon_answered_at = null;
  state.state = 'running';
  save();
  const errOut = fs.createWriteStream(stderrLog, { flags: 'a', mode: PRIVATE_FILE_MODE });
  proc.stderr?.on('data', (chunk: Buffer) => {
    errOut.write(chunk);
    const lines = chunk.toString('utf8').trim().split('\n');
    lastLine = lines[lines.length - 1] ?? lastLine;
  });
  // Liveness: the time of the last /status answer (or of the start); past HUNG_MS without one (past
  // START_GRACE_MS before the first), kill.
  let lastAnswer = Date.now();
  let answered = false;
  const probe = setInterval(() => {
    if (options.port === 0) return;
    fetch(`http://${options.host === '0.0.0.0' ? '127.0.0.1' : options.host}:${options.port}/status`, { signal: AbortSignal.timeout(PROBE_EVERY_MS) }).then(
      () => {
        lastAnswer = Date.now();
        if (answered) return;
        answered = true;
        state.daemon_answered_at = new Date(lastAnswer).toISOString();
        save();
      },
      () => {
        const limit = answered ? HUNG_MS : START_GRACE_MS;
        if (Date.now() - lastAnswer < limit || stopping) return;
        const seconds = Math.round(limit / 1000);
        errOut.write(`sous supervisor: the daemon did not answer /status for ${seconds} s${answered ? '' : ' after starting'}; restarting it\n`);
        log.warn({ daemon_pid: proc.pid ?? null, seconds, answered }, 'the daemon did not answer /status; killing it');
        lastLine = answered ? `the daemon stopped answering for ${seconds} s and was restarted` : `the daemon did not answer within ${seconds} s of starting and was restarted`;
        proc.kill('SIGKILL');
      },
    );
  }, PROBE_EVERY_MS);
  proc.once('exit', (code, signal) => {
    clearInterval(probe);
    errOut.end();
    child = undefined;
    state.daemon_pid = null;
    state.daemon_answered_at = null;
    state.last_exit = { code, signal, at: new Date().toISOString() };
    if (lastLine) state.last_error = lastLine.replace(/^sous daemon: /, '');
    const lived = Date.now() - started;
    log.info({ daemon_pid: proc.pid ?? null, code, signal, lived_ms: lived }, 'daemon exited');
    if (stopping) return;
    if (code === 2) return giveUp('the daemon refused to start (exit code 2; its reason is in run/supervisor.json and daemon.stderr.log)');
    fastCrashes = lived < STABLE_MS ? fastCrashes + 1 : 1;
    if (fastCrashes > MAX_FAST_CRASHES) return giveUp(`the daemon crashed ${fastCrashes} times in a row, each within ${STABLE_MS / 1000} s of starting`);
    const delay = BACKOFF_MS[Math.min(fastCrashes - 1, BACKOFF_MS.length - 1)] ?? 30000;
    state.restarts += 1;
    state.state = 'restarting';
    save();
    log.info({ delay_ms: delay, restarts: state.restarts }, 'restarting the daemon');
    setTimeout(() => {
      if (!stopping) startChild();
    }, delay);
  });
}

function giveUp(reason: string): void {
  state.state = 'gave_up';
  save();
  log.error({ reason, restarts: state.restarts }, 'gave up; run sous up to start the daemon again');
  process.exit(1);
}

function stop(signal: string): void {
  if (stopping) return;
  stopping = true;
  log.info({ signal }, 'stopping the daemon');
  const proc = child;
  const finish = () => {
    removeRunState(paths, 'supervisor', process.pid);
    log.info('supervisor stopped');
    process.exit(0);
  };
  if (!proc) return finish();
  proc.once('exit', finish);
  proc.kill('SIGTERM');
  setTimeout(() => proc.kill('SIGKILL'), STOP_TIMEOUT_MS).unref();
}

/** A supervisor that died without stopping (SIGKILL, OOM) left its run file behind: say so once. */
function notePredecessor(): void {
  const previous = readRunState(paths, 'supervisor');
  if (!previous || previous.pid === process.pid || pidAlive(previous.pid) || previous.state === 'gave_up') return;
  log.warn({ previous_pid: previous.pid, previous_daemon_pid: previous.daemon_pid }, 'the previous supervisor ended without stopping (killed?); its daemon stops by itself');
}

process.on('SIGTERM', () => stop('SIGTERM'));
process.on('SIGINT', () => stop('SIGINT'));
process.on('SIGHUP', () => undefined); // detached from the terminal that ran `sous up`
notePredecessor();
log.info({ pid: process.pid, host: options.host, port: options.port, workspace: paths.root }, 'supervisor started');
startChild();
