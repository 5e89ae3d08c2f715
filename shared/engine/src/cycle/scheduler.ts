/**
 * When cycles run: signals (saves, HEAD moves, a warm request) are merged and, after a short quiet
 * period, become one queued cycle; while a cycle is queued or running, new signals wait and are
 * merged into the next one. A deferred cycle (system busy) is asked again later.
 */
import type { CycleTrigger, CycleTriggerKind } from '../work/types';

/** Quiet period after the last signal before a cycle is queued (a save storm becomes one cycle). */
export const DEFAULT_DEBOUNCE_MS = 2000;
/** How long a cycle deferred for CPU load waits before it is asked again. */
export const DEFAULT_RETRY_MS = 60_000;
/** Paths one cycle is told about; more than this and the trigger names none (the frontier uses recent activity). */
const MAX_TRIGGER_PATHS = 500;

/** Which of two triggers names the cycle: an explicit request over a commit over a save. */
const RANK: Record<CycleTriggerKind, number> = { deep_run: 6, warm: 5, goal: 4, commit: 3, uncommitted: 2, file_change: 1, start: 0 };

export interface SchedulerOptions {
  /** Queues one cycle; the scheduler calls `cycleEnded` when the daemon sees it finish. */
  enqueue(trigger: CycleTrigger): Promise<void>;
  debounceMs?: number;
  retryMs?: number;
  onError?(error: Error): void;
}

export class CycleScheduler {
  private pending: CycleTrigger | undefined;
  private timer: NodeJS.Timeout | undefined;
  private inFlight = false;
  private closed = false;

  constructor(private readonly options: SchedulerOptions) {}

  /** Asks for a cycle; merged with any pending request. */
  request(trigger: CycleTrigger, options: { immediate?: boolean } = {}): void {
    if (this.closed) return;
    this.pending = merge(this.pending, trigger);
    this.arm(options.immediate ? 0 : (this.options.debounceMs ?? DEFAULT_DEBOUNCE_MS));
  }

  /** The queued cycle ended (any outcome); a request that came meanwhile is queued now. */
  cycleEnded(): void {
    this.inFlight = false;
    if (this.pending !== undefined) this.arm(this.options.debounceMs ?? DEFAULT_DEBOUNCE_MS);
  }

  /** The cycle was deferred: ask again later with the same trigger. */
  retryLater(trigger: CycleTrigger): void {
    this.inFlight = false;
    if (this.closed) return;
    this.pending = merge(this.pending, trigger);
    this.arm(this.options.retryMs ?? DEFAULT_RETRY_MS);
  }

  close(): void {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
  }

  private arm(ms: number): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => this.fire(), ms);
    this.timer.unref();
  }

  private fire(): void {
    this.timer = undefined;
    if (this.closed || this.inFlight || this.pending === undefined) return;
    const trigger = this.pending;
    this.pending = undefined;
    this.inFlight = true;
    this.options.enqueue(trigger).catch((err: unknown) => {
      this.inFlight = false;
      this.options.onError?.(err instanceof Error ? err : new Error(String(err)));
    });
  }
}

function merge(a: CycleTrigger | undefined, b: CycleTrigger): CycleTrigger {
  if (a === undefined) return { kind: b.kind, ...(b.paths ? { paths: [...b.paths] } : {}) };
  const kind = RANK[b.kind] > RANK[a.kind] ? b.kind : a.kind;
  const paths = [...new Set([...(a.paths ?? []), ...(b.paths ?? [])])];
  return paths.length > 0 && paths.length <= MAX_TRIGGER_PATHS ? { kind, paths } : { kind };
}
