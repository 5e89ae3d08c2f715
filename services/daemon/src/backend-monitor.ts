import { probeBackend, type BackendProbe } from '@sous/backend';
import type { SousConfig } from '@sous/config';

/** How often the daemon re-asks the model backend whether it answers (ms). */
export const BACKEND_RECHECK_MS = 5 * 60 * 1000;

/**
 * Keeps the last known reachability of the configured model backend, checked in the background
 * (at start, after every config change, and every BACKEND_RECHECK_MS), so `/status` never waits on
 * a model runtime.
 */
export class BackendMonitor {
  private last: BackendProbe | undefined;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;

  constructor(private readonly config: () => SousConfig) {}

  start(): void {
    void this.check();
    this.timer = setInterval(() => void this.check(), BACKEND_RECHECK_MS);
    this.timer.unref();
  }

  /** Re-checks now (config changed); concurrent calls share one probe. */
  check(): Promise<void> {
    if (!this.running) {
      const b = this.config().backend;
      this.running = probeBackend({ name: b.name, baseUrl: b.base_url, model: b.model, apiKeyEnv: b.api_key_env })
        .then((probe) => {
          this.last = probe;
        })
        .finally(() => {
          this.running = undefined;
        });
    }
    return this.running;
  }

  /** The last probe, or undefined before the first one finished. */
  latest(): BackendProbe | undefined {
    return this.last;
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
  }
}
