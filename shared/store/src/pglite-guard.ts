/**
 * The embedded store's guard against a full disk or an unwritable data directory.
 *
 * PGlite runs PostgreSQL inside this process, synchronously. After a write that fails for lack of
 * disk (seen: a WAL segment that could not be created, SQLSTATE 53100) its next query of any kind
 * spins forever and blocks the event loop: the daemon stops answering HTTP. So the guard:
 *  - checks the free space of the data directory's disk (at most once a second) and refuses work
 *    below `minFreeBytes` before PGlite runs into the wall (reads may go on: they write nothing);
 *  - after any query fails with an outage-class error (disk full, permission, I/O) sends that
 *    instance nothing more, not even ROLLBACK, and marks the store unavailable;
 *  - while unavailable, answers at once with `store_unavailable` (the reason and since when), and on
 *    a later call (backoff 1 s doubling to 30 s) probes the directory and, once it is writable
 *    again, opens a fresh instance on it (PostgreSQL's crash recovery replays the WAL).
 * Every call goes through one queue, which is what PGlite's own transaction() gave before: the
 * guard runs BEGIN/COMMIT itself so that it can skip the ROLLBACK.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { PGlite, QueryOptions, Results, Transaction } from '@electric-sql/pglite';
import { StoreError, firstLine, outageReason } from './errors';

/** Below this much free space on the data directory's disk the embedded store pauses (a WAL segment is 16 MiB). */
export const DEFAULT_MIN_FREE_BYTES = 32 * 1024 * 1024;
/** How often, at most, free space is measured while the store is healthy. */
const DISK_CHECK_MS = 1000;
const RETRY_FIRST_MS = 1000;
const RETRY_MAX_MS = 30_000;

/** Why the store is out of service, since when. */
export interface StoreOutage {
  reason: string;
  since: string;
}

export interface GuardSettings {
  dataDir: string;
  /** Opens a fresh instance on the data directory (after a failed one was abandoned). */
  reopen(): Promise<PGlite>;
  /** Default DEFAULT_MIN_FREE_BYTES; 0 turns the free-space check off. */
  minFreeBytes?: number;
}

/** The part of PGlite that drizzle calls (`query`, `transaction`). */
export interface GuardedClient {
  query<T>(query: string, params?: unknown[], options?: QueryOptions): Promise<Results<T>>;
  transaction<T>(callback: (tx: Transaction) => Promise<T>): Promise<T>;
}

export class PgliteGuard implements GuardedClient {
  private pg: PGlite | null;
  /** Set when the instance failed a write: it is never called again. */
  private abandoned = false;
  private outage: { reason: string; since: Date } | null = null;
  private retryAt = 0;
  private retryMs = RETRY_FIRST_MS;
  private checkedAt = 0;
  private queue: Promise<unknown> = Promise.resolve();
  private readonly minFree: number;

  constructor(
    pg: PGlite,
    private readonly settings: GuardSettings,
  ) {
    this.pg = pg;
    this.minFree = settings.minFreeBytes ?? DEFAULT_MIN_FREE_BYTES;
  }

  /** Why the store is out of service, or null. */
  status(): StoreOutage | null {
    return this.outage === null ? null : { reason: this.outage.reason, since: this.outage.since.toISOString() };
  }

  query<T>(query: string, params?: unknown[], options?: QueryOptions): Promise<Results<T>> {
    return this.exclusive(async () => {
      const pg = await this.usable(/^\s*select\b/i.test(query));
      return this.call(pg, () => pg.query<T>(query, params, options));
    });
  }

  transaction<T>(callback: (tx: Transaction) => Promise<T>): Promise<T> {
    return this.exclusive(async () => {
      const pg = await this.usable(false);
      await this.call(pg, () => pg.exec('BEGIN'));
      let closed = false;
      const open = () => {
        if (closed) throw new Error('Transaction is closed');
      };
      const tx = {
        query: <R>(q: string, p?: unknown[], o?: QueryOptions) => (open(), this.call(pg, () => pg.query<R>(q, p, o))),
        exec: (q: string, o?: QueryOptions) => (open(), this.call(pg, () => pg.exec(q, o))),
        rollback: async () => {
          open();
          await this.call(pg, () => pg.exec('ROLLBACK'));
          closed = true;
        },
        get closed() {
          return closed;
        },
      } as unknown as Transaction;
      try {
        const result = await callback(tx);
        if (!closed) {
          closed = true;
          const [done] = await this.call(pg, () => pg.exec('COMMIT'));
          if (done?.command === 'ROLLBACK') throw new Error('the transaction was aborted and rolled back');
        }
        return result;
      } catch (err) {
        // An abandoned instance gets nothing, not even ROLLBACK: that call is the one that would spin.
        if (!closed && !this.abandoned) {
          closed = true;
          await this.call(pg, () => pg.exec('ROLLBACK')).catch(() => undefined);
        }
        throw err;
      }
    });
  }

  /** Runs a trivial query through the guard: rejects with the outage while there is one (reads allowed or not). */
  ping(): Promise<void> {
    return this.exclusive(async () => {
      const pg = await this.usable(false);
      await this.call(pg, () => pg.query('SELECT 1'));
    });
  }

  /**
   * Closes the instance (a checkpoint flushes the data directory), unless the store is out of
   * service: a checkpoint on a full or unwritable disk is the very write that may spin, so the
   * instance is left as a crash would leave it, and the next open replays the log.
   */
  async close(): Promise<void> {
    await this.queue.catch(() => undefined);
    const pg = this.pg;
    this.pg = null;
    if (pg !== null && this.outage === null && !this.abandoned && !pg.closed) await pg.close();
  }

  private exclusive<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.queue.then(fn);
    this.queue = run.catch(() => undefined);
    return run;
  }

  /** The instance to use now, or the outage as a StoreError. `read`: a query that writes nothing. */
  private async usable(read: boolean): Promise<PGlite> {
    if (this.outage === null && Date.now() - this.checkedAt >= DISK_CHECK_MS) {
      this.checkedAt = Date.now();
      const low = await this.lowDisk();
      if (low !== undefined) this.fail(low, false);
    }
    if (this.outage !== null && Date.now() >= this.retryAt) await this.recover();
    if (this.pg === null) throw this.unavailable();
    if (this.outage !== null && !(read && !this.abandoned)) throw this.unavailable();
    return this.pg;
  }

  /** Runs one PGlite call; an outage-class failure abandons the instance. */
  private async call<T>(pg: PGlite, fn: () => Promise<T>): Promise<T> {
    if (pg !== this.pg) throw this.unavailable();
    try {
      return await fn();
    } catch (err) {
      const reason = outageReason(err);
      if (reason !== undefined) this.fail(reason, true);
      throw err;
    }
  }

  private fail(reason: string, abandon: boolean): void {
    if (abandon) {
      // Dropped, never closed (closing runs a checkpoint: the spin); its memory goes with the last reference.
      this.abandoned = true;
      this.pg = null;
    }
    if (this.outage === null) {
      this.outage = { reason, since: new Date() };
      this.retryMs = RETRY_FIRST_MS;
    } else this.outage.reason = reason;
    this.retryAt = Date.now() + this.retryMs;
  }

  /** Clears the outage once the directory takes writes again (a fresh instance if the old one was abandoned). */
  private async recover(): Promise<void> {
    const outage = this.outage;
    if (outage === null) return;
    const problem = (await this.lowDisk()) ?? this.unwritable();
    if (problem === undefined && this.abandoned) {
      try {
        this.pg = await this.settings.reopen();
        this.abandoned = false;
      } catch (err) {
        this.pg = null;
        outage.reason = `cannot reopen the embedded database (${firstLine(err)})`;
        return this.backoff();
      }
    }
    if (problem !== undefined) {
      outage.reason = problem;
      return this.backoff();
    }
    this.outage = null;
    this.checkedAt = Date.now();
  }

  private backoff(): void {
    this.retryMs = Math.min(this.retryMs * 2, RETRY_MAX_MS);
    this.retryAt = Date.now() + this.retryMs;
  }

  /** Why free space is too low, or undefined. */
  private async lowDisk(): Promise<string | undefined> {
    if (this.minFree <= 0) return undefined;
    try {
      const s = await fs.promises.statfs(this.settings.dataDir);
      const free = s.bavail * s.bsize;
      return free < this.minFree ? `disk full (${mib(free)} free on the disk of ${this.settings.dataDir}, the embedded store needs ${mib(this.minFree)})` : undefined;
    } catch (err) {
      return `cannot read the data directory ${this.settings.dataDir} (${firstLine(err)})`;
    }
  }

  /** Why a file cannot be written in the data directory and its WAL folder, or undefined. */
  private unwritable(): string | undefined {
    for (const dir of [this.settings.dataDir, path.join(this.settings.dataDir, 'pg_wal')]) {
      const probe = path.join(dir, `.sous-probe-${process.pid}`);
      try {
        fs.writeFileSync(probe, Buffer.alloc(8192));
        fs.unlinkSync(probe);
      } catch (err) {
        return `data directory not writable (${firstLine(err)})`;
      }
    }
    return undefined;
  }

  private unavailable(): StoreError {
    const outage = this.status();
    return new StoreError(
      'store_unavailable',
      `the embedded store in ${this.settings.dataDir} is unavailable since ${outage?.since ?? 'now'}: ${outage?.reason ?? 'closed'}; free disk space or fix the directory's permissions, Sous retries by itself`,
    );
  }
}

function mib(bytes: number): string {
  return `${Math.floor(bytes / (1024 * 1024))} MiB`;
}
