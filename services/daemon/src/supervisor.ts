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
 */
import { spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { parseProcessOptions, processPaths, removeRunState, writeRunState, type SupervisorRunState } from '@sous/runtime';
import { DEFAULT_DAEMON_PORT, PRIVATE_FILE_MODE, PRIVATE_UMASK, ensurePrivateDir } from '@sous/protocol';
import { DAEMON_NODE_FLAGS, daemonEnv } from './memory-settings';

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
  const proc = spawn(process.execPath, [...DAEMON_NODE_FLAGS, path.join(__dirname, 'main.js'), ...args], { stdio: ['ignore', 'ignore', 'pipe'], env: daemonEnv(process.env) });
  child = proc;
  state.daemon_pid = proc.pid ?? null;
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
    if (stopping) return;
    if (code === 2) return giveUp();
    fastCrashes = Date.now() - started < STABLE_MS ? fastCrashes + 1 : 1;
    if (fastCrashes > MAX_FAST_CRASHES) return giveUp();
    const delay = BACKOFF_MS[Math.min(fastCrashes - 1, BACKOFF_MS.length - 1)] ?? 30000;
    state.restarts += 1;
    state.state = 'restarting';
    save();
    setTimeout(() => {
      if (!stopping) startChild();
    }, delay);
  });
}

function giveUp(): void {
  state.state = 'gave_up';
  save();
  process.exit(1);
}

function stop(): void {
  if (stopping) return;
  stopping = true;
  const proc = child;
  const finish = () => {
    removeRunState(paths, 'supervisor', process.pid);
    process.exit(0);
  };
  if (!proc) return finish();
  proc.once('exit', finish);
  proc.kill('SIGTERM');
  setTimeout(() => proc.kill('SIGKILL'), STOP_TIMEOUT_MS).unref();
}

process.on('SIGTERM', stop);
process.on('SIGINT', stop);
process.on('SIGHUP', () => undefined); // detached from the terminal that ran `sous up`
startChild();
