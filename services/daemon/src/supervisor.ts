#!/usr/bin/env node
/**
 * Supervisor entry point, started detached by `sous up`: runs the daemon as a child process and
 * restarts it after a crash with exponential backoff. Same flags as the daemon.
 *
 * A daemon that stops answering `/status` for SOUS_SUPERVISOR_HUNG_MS (default 3 minutes: far above
 * any legitimate pause, such as the first write to the embedded store) is killed and restarted like
 * a crashed one: a hung daemon is worse than a restarted one. Until its first answer a starting daemon
 * gets at least two minutes (creating the embedded store alone takes seconds), so a short
 * SOUS_SUPERVISOR_HUNG_MS cannot kill every start.
 *
 * A daemon that exits 2 refused to start (busy port, locked store, invalid config): restarting
 * would not help, so the supervisor records the reason and stops. After eight crashes in a row that
 * each lived less than a minute it gives up too, rather than spin. The restart loop and the hang
 * probe are @sous/runtime's watchdog (shared with the container roles); this file adds the run
 * state, the logs and the IPC channel.
 *
 * The daemon gets an IPC channel and SOUS_SUPERVISOR_PID: when this process dies (even by SIGKILL)
 * the channel closes and the daemon stops by itself (src/supervision.ts).
 *
 * `.sous/logs/supervisor.log` records what the supervisor did (start, each daemon start and exit with
 * its code or signal, hung kills, restarts, give-up, stop) as structured lines. It never copies the
 * daemon's stderr (a crash message could quote what the daemon was reading): that stays in
 * daemon.stderr.log.
 */
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { createLogger } from '@sous/logging';
import { hungMsFromEnv, parseProcessOptions, pidAlive, processPaths, readRunState, removeRunState, superviseChild, writeRunState, type SupervisorRunState } from '@sous/runtime';
import { DEFAULT_DAEMON_PORT, PRIVATE_FILE_MODE, PRIVATE_UMASK, ensurePrivateDir } from '@sous/protocol';
import { DAEMON_NODE_FLAGS, daemonEnv } from './memory-settings';
import { SUPERVISOR_PID_ENV } from './supervision';

process.umask(PRIVATE_UMASK);
const args = process.argv.slice(2);
const options = parseProcessOptions(args, process.env, { port: DEFAULT_DAEMON_PORT });
const paths = processPaths(options);
ensurePrivateDir(paths.logs);
const stderrLog = path.join(paths.logs, 'daemon.stderr.log');
const log = createLogger({ name: 'supervisor', file: path.join(paths.logs, 'supervisor.log'), level: options.logLevel });

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

// The current daemon's stderr file stream and its last line (the reason shown by `sous status`).
let errOut: fs.WriteStream | undefined;
let lastLine = '';

/** Starts one daemon process: its stderr goes to daemon.stderr.log, its last line is kept. */
function spawnDaemon() {
  lastLine = '';
  const proc = spawn(process.execPath, [...DAEMON_NODE_FLAGS, path.join(__dirname, 'main.js'), ...args], {
    stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
    env: { ...daemonEnv(process.env), [SUPERVISOR_PID_ENV]: String(process.pid) },
  });
  // Nothing is sent over the channel: it exists so the daemon notices when this process is gone.
  proc.on('error', (err) => log.error({ error: err.message }, 'daemon process error'));
  const out = fs.createWriteStream(stderrLog, { flags: 'a', mode: PRIVATE_FILE_MODE });
  errOut = out;
  proc.stderr?.on('data', (chunk: Buffer) => {
    out.write(chunk);
    const lines = chunk.toString('utf8').trim().split('\n');
    lastLine = lines[lines.length - 1] ?? lastLine;
  });
  proc.once('exit', () => out.end());
  return proc;
}

// Liveness: past the hang limit without an answer to /status (past the start grace before the
// first), the watchdog kills the daemon and it is restarted like a crashed one.
const startWatchdog = () => superviseChild({
  spawn: spawnDaemon,
  healthUrl: options.port === 0 ? undefined : `http://${options.host === '0.0.0.0' ? '127.0.0.1' : options.host}:${options.port}/status`,
  hungMs: hungMsFromEnv(),
  events: {
    started(proc, restarts) {
      state.daemon_pid = proc.pid ?? null;
      state.daemon_answered_at = null;
      state.state = 'running';
      log.info({ daemon_pid: proc.pid ?? null, restarts }, 'daemon process started');
      save();
    },
    answered() {
      state.daemon_answered_at = new Date().toISOString();
      save();
    },
    hung(proc, { seconds, answered }) {
      errOut?.write(`sous supervisor: the daemon did not answer /status for ${seconds} s${answered ? '' : ' after starting'}; restarting it\n`);
      log.warn({ daemon_pid: proc.pid ?? null, seconds, answered }, 'the daemon did not answer /status; killing it');
      lastLine = answered ? `the daemon stopped answering for ${seconds} s and was restarted` : `the daemon did not answer within ${seconds} s of starting and was restarted`;
    },
    exited(proc, { code, signal, livedMs }) {
      state.daemon_pid = null;
      state.daemon_answered_at = null;
      state.last_exit = { code, signal, at: new Date().toISOString() };
      if (lastLine) state.last_error = lastLine.replace(/^sous daemon: /, '');
      log.info({ daemon_pid: proc.pid ?? null, code, signal, lived_ms: livedMs }, 'daemon exited');
    },
    restarting({ delayMs, restarts }) {
      state.restarts = restarts;
      state.state = 'restarting';
      save();
      log.info({ delay_ms: delayMs, restarts }, 'restarting the daemon');
    },
    gaveUp({ reason, refused }) {
      state.state = 'gave_up';
      save();
      const why = refused ? 'the daemon refused to start (exit code 2; its reason is in run/supervisor.json and daemon.stderr.log)' : reason.replace(/^the process/, 'the daemon');
      log.error({ reason: why, restarts: state.restarts }, 'gave up; run sous up to start the daemon again');
      process.exit(1);
    },
  },
});

let watchdog: ReturnType<typeof superviseChild> | undefined;
let stopping = false;
function stop(signal: string): void {
  if (stopping) return;
  stopping = true;
  log.info({ signal }, 'stopping the daemon');
  void (watchdog?.stop() ?? Promise.resolve()).then(() => {
    removeRunState(paths, 'supervisor', process.pid);
    log.info('supervisor stopped');
    process.exit(0);
  });
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
watchdog = startWatchdog();
