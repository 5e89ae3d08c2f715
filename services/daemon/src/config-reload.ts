import { getConfigValue } from '@sous/config';
import type { DaemonContext } from './daemon';

/** How long a config write's answer waits for the config watcher to hot-reload the written file. */
export const RELOAD_WAIT_MS = 5_000;

/**
 * True once the daemon's live config holds every written value (the watcher reloaded the file), false
 * after RELOAD_WAIT_MS. Writers answer after the one reload path took it, so a caller's next read sees it.
 */
export async function waitForReload(ctx: DaemonContext, written: ReadonlyArray<{ key: string; to: unknown }>): Promise<boolean> {
  const deadline = Date.now() + RELOAD_WAIT_MS;
  const live = (): boolean => written.every((s) => JSON.stringify(getConfigValue(ctx.config(), s.key)) === JSON.stringify(s.to));
  while (!live()) {
    if (Date.now() >= deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  return true;
}
