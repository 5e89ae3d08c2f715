/**
 * A lease in Redis: at most one owner holds a key at a time, for `ttlMs` after its last renewal.
 * Used so exactly one daemon per repository watches it and writes what is derived from it
 * (docs/jobs.md, "Scale-out"). Taken with `SET key owner NX PX ttl`, renewed every ttl/3 with a
 * compare-and-PEXPIRE, released with a compare-and-DEL, so no one ever extends or deletes a lease
 * someone else holds.
 */
import { Redis } from 'ioredis';
import { errorMessage } from './errors';
import { redactUrl } from './support';

/** Lease time when SOUS_LEASE_MS is unset: a killed holder's repository is taken over within this. */
export const DEFAULT_LEASE_MS = 15_000;
/** Shortest lease accepted (renewals every ttl/3 must fit between Redis round trips). */
export const MIN_LEASE_MS = 1_000;

const RENEW = `if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('pexpire', KEYS[1], ARGV[2]) else return 0 end`;
const RELEASE = `if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else return 0 end`;

export interface LeaseOptions {
  redisUrl: string;
  /** The Redis key, e.g. `sous:lease:<workspace>` (see `repositoryLeaseKey`). */
  key: string;
  /** Who we are, e.g. `host:pid:random`; only this value renews or releases the lease. */
  owner: string;
  /** Lease time in ms. Default DEFAULT_LEASE_MS. */
  ttlMs?: number;
  /** We hold the lease now (called once per acquisition). */
  onAcquired?: () => void;
  /**
   * We no longer hold it: another owner has it, or Redis did not confirm a renewal before the lease
   * could have expired. The holder must stop acting on the lease at once.
   */
  onLost?: (reason: string) => void;
  /** Redis trouble while contending (reported once per distinct message; URL redacted). */
  onError?: (error: Error) => void;
}

/** The lease key of one repository (workspace id or a hash of its path). */
export function repositoryLeaseKey(workspace: string): string {
  return `sous:lease:${workspace}`;
}

/** SOUS_LEASE_MS as a lease time (default when unset); throws one line when it is not a whole number ≥ 1000. */
export function leaseMsFromEnv(value: string | undefined): number {
  if (value === undefined || value === '') return DEFAULT_LEASE_MS;
  const ms = Number(value);
  if (!Number.isInteger(ms) || ms < MIN_LEASE_MS) throw new Error(`SOUS_LEASE_MS must be a whole number of milliseconds ≥ ${MIN_LEASE_MS}, got '${value}'`);
  return ms;
}

/**
 * Contends for one lease until `stop`: tries to take it every ttl/3 while someone else holds it,
 * renews it every ttl/3 while we do. Losing it (a renewal finds another owner, or none succeeded for
 * a whole lease time) calls `onLost`; contention continues, so it may be taken again later.
 */
export class RedisLease {
  readonly ttlMs: number;
  private readonly redis: Redis;
  private timer: NodeJS.Timeout | undefined;
  private expiry: NodeJS.Timeout | undefined;
  private holding = false;
  private stopped = false;
  private ticking: Promise<void> | undefined;
  private lastError: string | undefined;

  constructor(private readonly options: LeaseOptions) {
    this.ttlMs = options.ttlMs ?? DEFAULT_LEASE_MS;
    if (!Number.isInteger(this.ttlMs) || this.ttlMs < MIN_LEASE_MS) throw new Error(`lease time must be a whole number of ms ≥ ${MIN_LEASE_MS}, got ${this.ttlMs}`);
    // Fail fast while Redis is away: a queued command answered late would say nothing about now.
    this.redis = new Redis(options.redisUrl, { maxRetriesPerRequest: 0, enableOfflineQueue: false, connectionName: 'sous-lease', disconnectTimeout: 100, lazyConnect: true, commandTimeout: Math.max(100, Math.floor(this.ttlMs / 3)) });
    this.redis.on('error', (err: unknown) => this.report(err));
  }

  /** Whether we hold the lease (as far as the last renewal within the lease time says). */
  held(): boolean {
    return this.holding;
  }

  /** Begins contending; resolves after the first attempt (so `held()` is meaningful at once). */
  async start(): Promise<void> {
    if (this.timer || this.stopped) return;
    await this.redis.connect().catch((err: unknown) => this.report(err));
    await this.tick();
    this.timer = setInterval(() => void this.tick(), Math.max(100, Math.floor(this.ttlMs / 3)));
    this.timer.unref();
  }

  /** The current holder's owner value, or null (none, or Redis unreachable). */
  async holder(): Promise<string | null> {
    try {
      return await this.redis.get(this.options.key);
    } catch {
      return null;
    }
  }

  /** Stops contending and releases the lease if we hold it (never someone else's). */
  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    await this.ticking;
    if (this.expiry) clearTimeout(this.expiry);
    if (this.holding) {
      this.holding = false;
      await this.redis.eval(RELEASE, 1, this.options.key, this.options.owner).catch((err: unknown) => this.report(err));
    }
    if (this.redis.status === 'ready') await this.redis.quit().catch(() => this.redis.disconnect());
    else this.redis.disconnect();
  }

  private tick(): Promise<void> {
    this.ticking ??= this.attempt().finally(() => {
      this.ticking = undefined;
    });
    return this.ticking;
  }

  private async attempt(): Promise<void> {
    if (this.stopped) return;
    // The lease runs from when we asked, not when Redis answered: our deadline is never later than Redis's.
    const asked = Date.now();
    try {
      if (this.holding) {
        const renewed = await this.redis.eval(RENEW, 1, this.options.key, this.options.owner, String(this.ttlMs));
        if (this.stopped || !this.holding) return;
        if (renewed === 1) this.confirmed(asked);
        else this.lose('another process holds the lease now');
      } else {
        const taken = await this.redis.set(this.options.key, this.options.owner, 'PX', this.ttlMs, 'NX');
        if (this.stopped || taken !== 'OK') return;
        this.holding = true;
        this.confirmed(asked);
        this.options.onAcquired?.();
      }
      this.lastError = undefined;
    } catch (err) {
      // A failed renewal is not yet a loss: the lease holds until its time runs out (the expiry timer).
      this.report(err);
    }
  }

  /** Redis confirmed the lease as of `asked`: we may act until asked + ttl. */
  private confirmed(asked: number): void {
    if (this.expiry) clearTimeout(this.expiry);
    this.expiry = setTimeout(() => this.lose(`no renewal confirmed by Redis within the lease time (${this.ttlMs} ms)`), Math.max(0, asked + this.ttlMs - Date.now()));
    this.expiry.unref();
  }

  private lose(reason: string): void {
    if (!this.holding) return;
    this.holding = false;
    if (this.expiry) clearTimeout(this.expiry);
    this.options.onLost?.(reason);
  }

  private report(err: unknown): void {
    const message = `lease ${this.options.key} on Redis at ${redactUrl(this.options.redisUrl)}: ${errorMessage(err).split(this.options.redisUrl).join(redactUrl(this.options.redisUrl))}`;
    if (message === this.lastError) return;
    this.lastError = message;
    this.options.onError?.(new Error(message));
  }
}
