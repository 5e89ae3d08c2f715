#!/usr/bin/env node
/**
 * Daemon entry point: `node services/daemon/dist/main.js --path <repo> [--host] [--port] [--state-dir]`.
 * Usually started by the supervisor that `sous up` launches; containers run it directly.
 * Exit codes: 0 clean stop (also when its supervisor is gone), 2 could not start (one line on
 * stderr says why).
 */
import { parseProcessOptions } from '@sous/runtime';
import { DEFAULT_DAEMON_PORT, PRIVATE_UMASK } from '@sous/protocol';
import { startDaemon, type RunningDaemon } from './daemon';
import { onSupervisorGone, supervisorPid } from './supervision';

async function main(): Promise<void> {
  process.umask(PRIVATE_UMASK);
  const supervisor = supervisorPid();
  // Registered before the (slow) start: a supervisor killed meanwhile is acted on once started.
  let orphaned = false;
  let stopForOrphan: (() => void) | undefined;
  let stopForLease: (() => void) | undefined;
  onSupervisorGone(() => {
    orphaned = true;
    stopForOrphan?.();
  });
  let daemon: RunningDaemon;
  try {
    // A stop asked for over HTTP ends the supervisor (which then stops the daemon and does not restart it).
    const requestStop = (): void => {
      if (supervisor !== undefined) process.kill(supervisor, 'SIGTERM');
      else process.kill(process.pid, 'SIGTERM');
    };
    // A watcher that lost its lease exits non-zero: the supervisor (or the container) starts it again as a standby.
    const onWatcherLost = (): void => stopForLease?.();
    daemon = await startDaemon(parseProcessOptions(process.argv.slice(2), process.env, { port: DEFAULT_DAEMON_PORT }), supervisor === undefined ? { requestStop, onWatcherLost } : { supervisorPid: supervisor, requestStop, onWatcherLost });
  } catch (err) {
    process.stderr.write(`sous daemon: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(2);
  }
  // A crash exits non-zero so the supervisor restarts the daemon; a requested stop exits 0.
  const stop = (reason: string, code = 0) => {
    void daemon.close(reason).then(
      () => process.exit(code),
      () => process.exit(1),
    );
  };
  stopForOrphan = () => {
    daemon.context.logger.warn({ supervisor_pid: supervisor }, 'the supervisor is gone; stopping (sous up starts a supervised daemon again)');
    stop('supervisor gone');
  };
  if (orphaned) stopForOrphan();
  stopForLease = () => stop('repository lease lost', 1);
  process.once('SIGTERM', () => stop('SIGTERM'));
  process.once('SIGINT', () => stop('SIGINT'));
  process.on('uncaughtException', (err) => {
    daemon.context.logger.fatal({ error: err.message }, 'uncaught exception; stopping');
    stop('uncaughtException', 1);
  });
  process.on('unhandledRejection', (err) => {
    daemon.context.logger.error({ error: err instanceof Error ? err.message : String(err) }, 'unhandled rejection');
  });
}

void main();
