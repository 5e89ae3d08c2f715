#!/usr/bin/env node
/**
 * The watchdog as a process, for containers (deploy/sous-entrypoint):
 *
 *   node shared/runtime/dist/watchdog-main.js [--health <url>] -- <command> [args...]
 *
 * Runs the command with this process's stdio and environment, restarts it after a crash, and kills
 * and restarts it when `--health` stops answering for SOUS_SUPERVISOR_HUNG_MS (default 3 minutes).
 * SIGTERM/SIGINT stop the child and then this process (exit 0). Giving up exits 1, or 2 when the
 * child refused to start (exit 2): the container's restart policy takes over from there. What it
 * does is reported as one line each on stderr (pids, codes, never the child's output).
 */
import { spawn } from 'node:child_process';
import { hungMsFromEnv, superviseChild } from './watchdog';

const USAGE = 'usage: watchdog-main.js [--health <url>] -- <command> [args...]';

function fail(message: string): never {
  process.stderr.write(`sous watchdog: ${message}\n`);
  process.exit(2);
}

const argv = process.argv.slice(2);
const dashes = argv.indexOf('--');
if (dashes < 0 || dashes === argv.length - 1) fail(USAGE);
const own = argv.slice(0, dashes);
const [command = '', ...args] = argv.slice(dashes + 1);
let healthUrl: string | undefined;
for (let i = 0; i < own.length; i += 1) {
  if (own[i] === '--health' && own[i + 1] !== undefined) {
    healthUrl = own[(i += 1)];
    try {
      new URL(healthUrl ?? '');
    } catch {
      fail(`--health is not a URL: ${healthUrl}`);
    }
  } else fail(`unknown option ${own[i]}; ${USAGE}`);
}

const say = (line: string): void => void process.stderr.write(`sous watchdog: ${line}\n`);
const name = args.find((a) => !a.startsWith('-')) ?? command;
const dog = superviseChild({
  spawn: () => spawn(command, args, { stdio: 'inherit', env: process.env }),
  ...(healthUrl !== undefined ? { healthUrl } : {}),
  hungMs: hungMsFromEnv(),
  events: {
    started: (child, restarts) => say(`started ${name} (pid ${child.pid ?? '?'}${restarts ? `, restart ${restarts}` : ''})`),
    hung: (child, { seconds, answered }) => say(`${name} (pid ${child.pid ?? '?'}) did not answer ${healthUrl} for ${seconds} s${answered ? '' : ' after starting'}; killing it`),
    exited: (child, { code, signal, stopping }) => {
      if (!stopping) say(`${name} (pid ${child.pid ?? '?'}) exited (${signal ?? `code ${code}`})`);
    },
    restarting: ({ delayMs }) => say(`restarting ${name} in ${delayMs} ms`),
    gaveUp: ({ reason }) => say(`gave up: ${reason}`),
  },
});

void dog.gaveUp.then(({ refused }) => process.exit(refused ? 2 : 1));
const stop = (): void => void dog.stop().then(() => process.exit(0));
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
