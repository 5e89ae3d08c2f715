import type { SousPaths } from '@sous/config';
import { DaemonClient, DaemonUnreachableError, daemonBaseUrl } from '@sous/runtime';
import { CliError } from './cli-error';
import { delay, findProcesses } from './daemon-control';

/** How long a command waits for a restarting daemon to answer again (backoff, then reopening the store). */
export const RESTART_WAIT_MS = 120_000;
/** Restarts a command rides out before it gives up (a daemon in a crash loop is not waited on forever). */
export const MAX_RESTARTS = 3;
const POLL_MS = 250;

export interface DaemonSessionOptions {
  /** Told once per restart that the command is waiting (the CLI prints it on stderr). */
  onWait?: (line: string) => void;
  /** Default RESTART_WAIT_MS. */
  waitMs?: number;
  /** Per-request timeout of the clients it makes. Default 30 s. */
  timeoutMs?: number;
}

/**
 * Talks to a workspace's daemon across restarts: a request that finds no daemon answering waits
 * for the supervisor to bring one back (bounded, saying so once), then is sent again to it. When
 * nothing will restart it (no supervisor: `sous down`, a supervisor that gave up or was killed) it
 * fails at once with a line saying why. `restarts` counts the restarts seen, so a caller can tell
 * that work it queued before one may have been lost with the old daemon.
 */
export class DaemonSession {
  restarts = 0;

  constructor(
    private readonly paths: SousPaths,
    private client: DaemonClient | undefined,
    private readonly options: DaemonSessionOptions = {},
  ) {}

  /**
   * A session on the running daemon, or on the one a live supervisor is (re)starting; undefined
   * when no daemon runs and none is coming.
   */
  static async open(paths: SousPaths, options: DaemonSessionOptions = {}): Promise<DaemonSession | undefined> {
    const p = findProcesses(paths);
    if (p.daemonAlive && p.daemon && !p.daemonOrphaned) return new DaemonSession(paths, new DaemonClient(daemonBaseUrl(p.daemon.host, p.daemon.port), options.timeoutMs ?? 30_000), options);
    if (!p.supervisorAlive) return undefined;
    const session = new DaemonSession(paths, undefined, options);
    await session.waitForDaemon('the daemon is starting');
    return session;
  }

  /** Runs `request` against the daemon, sending it again after a restart. */
  async call<T>(request: (client: DaemonClient) => Promise<T>): Promise<T> {
    for (;;) {
      if (this.client) {
        try {
          return await request(this.client);
        } catch (err) {
          if (!(err instanceof DaemonUnreachableError)) throw err;
          this.restarts += 1;
          if (this.restarts > MAX_RESTARTS) throw new CliError(`the daemon stopped answering ${this.restarts} times; see sous logs --service supervisor --path ${this.paths.root}`);
          this.client = undefined;
        }
      }
      await this.waitForDaemon('the daemon stopped answering (restarting?)');
    }
  }

  private async waitForDaemon(why: string): Promise<void> {
    const waitMs = this.options.waitMs ?? RESTART_WAIT_MS;
    let told = false;
    const deadline = Date.now() + waitMs;
    while (Date.now() < deadline) {
      const p = findProcesses(this.paths);
      if (!p.supervisorAlive) {
        if (p.supervisor?.state === 'gave_up') throw new CliError(`the daemon stopped and its supervisor gave up: ${p.supervisor.last_error ?? 'see sous logs --service supervisor'}; start it with sous up --path ${this.paths.root}`);
        if (!p.daemonAlive || p.daemonOrphaned) throw new CliError(`the daemon stopped and no supervisor restarts it; start it with sous up --path ${this.paths.root}`);
      }
      // The supervisor's current daemon (or, with no supervisor, one that was never supervised).
      const current = p.supervisorAlive ? p.supervisor?.daemon_pid === p.daemon?.pid : true;
      if (p.daemonAlive && p.daemon && !p.daemonOrphaned && current) {
        const client = new DaemonClient(daemonBaseUrl(p.daemon.host, p.daemon.port), this.options.timeoutMs ?? 30_000);
        const answered = await client.get('/status').then(() => true, () => false);
        if (answered) {
          this.client = client;
          return;
        }
      }
      if (!told) {
        this.options.onWait?.(`${why}; waiting up to ${Math.round(waitMs / 1000)} s for the supervisor to bring it back`);
        told = true;
      }
      await delay(POLL_MS);
    }
    throw new CliError(`the daemon did not come back within ${Math.round(waitMs / 1000)} s; see sous logs --service supervisor --path ${this.paths.root}`);
  }
}
