/**
 * Entry of one context worker (forked by context-workers.ts): a whole context server on the port the
 * workers share. It tells the primary when it serves or why it cannot, and stops when told, on
 * SIGTERM/SIGINT, or (node:cluster does this) when the primary is gone.
 */
import { startContextServer } from './context-surface';
import { CONTEXT_WORKER_START_ENV, type PrimaryMessage, type WorkerMessage, type WorkerStart } from './context-workers';
import type { RunningSurface } from './surface';

function tell(message: WorkerMessage): Promise<void> {
  return new Promise((resolve) => {
    if (!process.send) return resolve();
    process.send(message, undefined, {}, () => resolve());
  });
}

async function main(): Promise<void> {
  const start = JSON.parse(process.env[CONTEXT_WORKER_START_ENV] ?? 'null') as WorkerStart | null;
  if (start === null || !process.send) {
    process.stderr.write(`sous context worker: started without ${CONTEXT_WORKER_START_ENV}; it is started by the context process\n`);
    process.exit(2);
  }
  let surface: RunningSurface | undefined;
  let stopping = false;
  // Told to stop while still syncing: nothing serves yet, so leaving is all there is to do.
  const stop = () => {
    if (stopping) return;
    stopping = true;
    if (surface === undefined) process.exit(0);
    void surface.close().then(() => process.exit(0));
  };
  process.on('message', (msg: PrimaryMessage) => {
    if (msg?.sous === 'stop') stop();
  });
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
  try {
    surface = await startContextServer(start.name, start.options);
  } catch (err) {
    await tell({ sous: 'failed', message: err instanceof Error ? err.message : String(err) });
    process.exit(2);
  }
  if (stopping) {
    await surface.close();
    process.exit(0);
  }
  await tell({ sous: 'ready', port: surface.port });
}

void main();
