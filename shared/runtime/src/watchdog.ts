/**
 * Keeps one child process running: restarts it after a crash with exponential backoff, and kills
 * (then restarts) one that stops answering its health URL. The daemon's supervisor (`sous up`) and
 * the container roles (deploy/sous-entrypoint: proxy, context, worker) both run on it, because Docker
 * restarts a container whose main process exits but never one that is merely unhealthy.
 *
 * A child that exits 2 refused to start (busy port, locked store, invalid config): restarting would
 * not help, so the watchdog gives up. After `maxFastCrashes` crashes in a row that each lived less
 * than `stableMs` it gives up too, rather than spin.
 */
import type { ChildProcess } from 'node:child_process';

/** Restart delays after consecutive fast crashes; the last one repeats. */
export const WATCHDOG_BACKOFF_MS: readonly number[] = [500, 1000, 2000, 4000, 8000, 16000, 30000];
/** A child that lived this long was stable: the next crash starts the backoff afresh. */
export const WATCHDOG_STABLE_MS = 60_000;
/** Fast crashes in a row before giving up. */
export const WATCHDOG_MAX_FAST_CRASHES = 8;
/** Default hang limit: far above any legitimate pause (the first write to an embedded store). */
export const WATCHDOG_HUNG_MS = 180_000;
/** How long a stopping child gets after SIGTERM before SIGKILL. */
export const WATCHDOG_STOP_TIMEOUT_MS = 20_000;

/** What the watchdog reports, for logs and run-state files. */
export interface WatchdogEvents {
  started?(child: ChildProcess, restarts: number): void;
  /** The first answer of this child to a health probe. */
  answered?(child: ChildProcess): void;
  /** The child did not answer for `seconds` and is being killed (`answered`: it had answered before). */
  hung?(child: ChildProcess, info: { seconds: number; answered: boolean }): void;
  exited?(child: ChildProcess, info: { code: number | null; signal: NodeJS.Signals | null; livedMs: number; stopping: boolean }): void;
  restarting?(info: { delayMs: number; restarts: number }): void;
  /** The watchdog stopped trying; `refused`: the child exited 2. */
  gaveUp?(info: { reason: string; refused: boolean; restarts: number }): void;
}

export interface WatchdogOptions {
  /** Starts one child process (called again for every restart). */
  spawn: () => ChildProcess;
  /** Probed with GET; any HTTP answer counts as alive. Undefined: restart on exit only. */
  healthUrl?: string | (() => string | undefined);
  /** Kill a child that answered before and then did not answer for this long. Default WATCHDOG_HUNG_MS. */
  hungMs?: number;
  /** Before its first answer a child gets at least this long (starting can take a while). Default max(hungMs, 120 s). */
  startGraceMs?: number;
  events?: WatchdogEvents;
}

export interface Watchdog {
  /** The running child, if any. */
  child(): ChildProcess | undefined;
  /** How many times the child was restarted. */
  restarts(): number;
  /** SIGTERM to the child (SIGKILL after WATCHDOG_STOP_TIMEOUT_MS); resolves once it exited. No restart follows. */
  stop(): Promise<void>;
  /** Resolves when the watchdog gave up (never after stop()). */
  readonly gaveUp: Promise<{ reason: string; refused: boolean }>;
}

/** The hang limit from SOUS_SUPERVISOR_HUNG_MS (milliseconds), or the default. */
export function hungMsFromEnv(env: NodeJS.ProcessEnv = process.env): number {
  const ms = Number(env.SOUS_SUPERVISOR_HUNG_MS);
  return ms > 0 ? ms : WATCHDOG_HUNG_MS;
}

/** Starts the child and keeps it running until stop() or giving up. */
export function superviseChild(options: WatchdogOptions): Watchdog {
  const hungMs = options.hungMs ?? WATCHDOG_HUNG_MS;
  const startGraceMs = options.startGraceMs ?? Math.max(hungMs, 120_000);
  const probeEveryMs = Math.min(15_000, Math.max(250, Math.floor(hungMs / 4)));
  const events = options.events ?? {};
  let current: ChildProcess | undefined;
  let stopping = false;
  let fastCrashes = 0;
  let restarts = 0;
  let restartTimer: NodeJS.Timeout | undefined;
  let resolveGaveUp: (v: { reason: string; refused: boolean }) => void = () => undefined;
  const gaveUp = new Promise<{ reason: string; refused: boolean }>((resolve) => {
    resolveGaveUp = resolve;
  });

  const giveUp = (reason: string, refused: boolean): void => {
    if (stopping) return;
    stopping = true;
    events.gaveUp?.({ reason, refused, restarts });
    resolveGaveUp({ reason, refused });
  };

  const start = (): void => {
    const started = Date.now();
    let proc: ChildProcess;
    try {
      proc = options.spawn();
    } catch (err) {
      return giveUp(`could not start the process: ${err instanceof Error ? err.message : String(err)}`, false);
    }
    current = proc;
    proc.on('error', (err) => {
      if (proc.pid === undefined) giveUp(`could not start the process: ${err.message}`, false);
    });
    events.started?.(proc, restarts);
    let lastAnswer = Date.now();
    let answered = false;
    let killed = false; // probes in flight may fail again before the kill shows as an exit
    const probe = setInterval(() => {
      const url = typeof options.healthUrl === 'function' ? options.healthUrl() : options.healthUrl;
      if (url === undefined || stopping) return;
      fetch(url, { signal: AbortSignal.timeout(probeEveryMs) }).then(
        (res) => {
          void res.body?.cancel();
          lastAnswer = Date.now();
          if (answered) return;
          answered = true;
          events.answered?.(proc);
        },
        () => {
          const limit = answered ? hungMs : startGraceMs;
          if (Date.now() - lastAnswer < limit || stopping || killed || proc.exitCode !== null || proc.signalCode !== null) return;
          killed = true;
          events.hung?.(proc, { seconds: Math.round(limit / 1000), answered });
          proc.kill('SIGKILL');
        },
      );
    }, probeEveryMs);
    proc.once('exit', (code, signal) => {
      clearInterval(probe);
      current = undefined;
      const livedMs = Date.now() - started;
      events.exited?.(proc, { code, signal, livedMs, stopping });
      if (stopping) return;
      if (code === 2) return giveUp('the process refused to start (exit code 2)', true);
      fastCrashes = livedMs < WATCHDOG_STABLE_MS ? fastCrashes + 1 : 1;
      if (fastCrashes > WATCHDOG_MAX_FAST_CRASHES) return giveUp(`the process crashed ${fastCrashes} times in a row, each within ${WATCHDOG_STABLE_MS / 1000} s of starting`, false);
      const delayMs = WATCHDOG_BACKOFF_MS[Math.min(fastCrashes - 1, WATCHDOG_BACKOFF_MS.length - 1)] ?? 30_000;
      restarts += 1;
      events.restarting?.({ delayMs, restarts });
      restartTimer = setTimeout(() => {
        restartTimer = undefined;
        if (!stopping) start();
      }, delayMs);
    });
  };

  start();
  return {
    child: () => current,
    restarts: () => restarts,
    gaveUp,
    stop: () => {
      stopping = true;
      if (restartTimer) clearTimeout(restartTimer);
      const proc = current;
      if (!proc || proc.exitCode !== null || proc.signalCode !== null) return Promise.resolve();
      return new Promise<void>((resolve) => {
        proc.once('exit', () => resolve());
        proc.kill('SIGTERM');
        setTimeout(() => proc.kill('SIGKILL'), WATCHDOG_STOP_TIMEOUT_MS).unref();
      });
    },
  };
}
