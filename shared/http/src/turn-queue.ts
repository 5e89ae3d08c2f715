/**
 * Runs synchronous, CPU-bound jobs (index queries) one per event-loop turn, in arrival order.
 *
 * Why: run inline, a burst of queries holds the event loop for their sum. Meanwhile answers that
 * cost a lookup wait behind them, and new connections wait longest of all, since libuv accepts one
 * connection per loop turn (50 clients connecting to a busy process took seconds to be served).
 * Between two jobs the loop polls again: it accepts, reads and answers cache hits, and queues the
 * new queries behind the ones already waiting, so every request waits its turn and no longer.
 */
export class TurnQueue {
  private readonly jobs: Array<() => void> = [];
  private scheduled = false;

  /** Jobs waiting (not counting the one running). */
  get pending(): number {
    return this.jobs.length;
  }

  /** Runs `job` after the jobs queued before it, each in its own event-loop turn. */
  run<T>(job: () => T): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.jobs.push(() => {
        try {
          resolve(job());
        } catch (err) {
          reject(err);
        }
      });
      this.schedule();
    });
  }

  private schedule(): void {
    if (this.scheduled || this.jobs.length === 0) return;
    this.scheduled = true;
    // setImmediate runs after the poll phase: I/O that arrived during the last job is read first.
    setImmediate(() => {
      this.scheduled = false;
      this.jobs.shift()?.();
      this.schedule();
    });
  }
}
