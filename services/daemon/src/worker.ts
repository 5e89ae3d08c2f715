#!/usr/bin/env node
/**
 * Worker-only entry point: `node services/daemon/dist/worker.js` with the daemon's environment
 * (SOUS_PATH, DATABASE_URL, REDIS_URL, SOUS_DB_SCHEMA, SOUS_QUEUE_NAME, SOUS_WORKER_CONCURRENCY…).
 * Runs preparation jobs of the repository's shared queue; see docs/jobs.md, "Scale-out".
 * Exit codes: 0 clean stop, 1 crashed, 2 could not start (one line on stderr says why).
 */
import { parseProcessOptions } from '@sous/runtime';
import { DEFAULT_WORKER_PORT, PRIVATE_UMASK } from '@sous/protocol';
import { startWorker, type RunningWorker } from './worker-process';

async function main(): Promise<void> {
  process.umask(PRIVATE_UMASK);
  let worker: RunningWorker;
  try {
    worker = await startWorker(parseProcessOptions(process.argv.slice(2), process.env, { port: DEFAULT_WORKER_PORT }));
  } catch (err) {
    process.stderr.write(`sous worker: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(2);
  }
  const stop = (reason: string, code = 0): void => {
    void worker.close(reason).then(
      () => process.exit(code),
      () => process.exit(1),
    );
  };
  process.once('SIGTERM', () => stop('SIGTERM'));
  process.once('SIGINT', () => stop('SIGINT'));
  process.on('uncaughtException', (err) => {
    worker.logger.fatal({ error: err.message }, 'uncaught exception; stopping');
    stop('uncaughtException', 1);
  });
  process.on('unhandledRejection', (err) => {
    worker.logger.error({ error: err instanceof Error ? err.message : String(err) }, 'unhandled rejection');
  });
}

void main();
