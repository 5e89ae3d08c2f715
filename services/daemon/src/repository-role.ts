/**
 * Which daemon watches a repository (docs/jobs.md, "Scale-out"). Embedded (no REDIS_URL) the one
 * daemon is its watcher. In the server topology every daemon of the repository contends for a Redis
 * lease: the holder is the **watcher** (file watcher, index writes, scheduling cycles, the watcher
 * queue); the others are **standby** (they run preparation jobs of the shared queue and serve their
 * HTTP surface from the stored index) and keep contending, so a killed watcher is replaced within the
 * lease time. A watcher that loses its lease stops its writers at once and asks to be restarted.
 */
import { randomBytes } from 'node:crypto';
import { RedisLease, repositoryLeaseKey, runnerIdentity } from '@sous/jobs';
import type { Logger } from '@sous/logging';

export type DaemonRole = 'watcher' | 'standby';

/** What `/status` says about the role (`role`). */
export interface RoleStatus {
  role: DaemonRole;
  /** ISO time this process took its current role. */
  since: string;
  /** The lease (server topology), or null embedded (the only daemon is the watcher). */
  lease: { key: string; ttl_ms: number; owner: string } | null;
  /** Why this process stopped being the watcher (it is restarted as a standby). */
  lost: string | null;
}

export interface RepositoryRole {
  status(): RoleStatus;
  watching(): boolean;
  stop(): Promise<void>;
}

export interface RoleOptions {
  redisUrl?: string;
  /** The shared queue's name: deployments sharing one Redis never share a lease. */
  queueName: string;
  workspaceId: string;
  leaseMs: number;
  logger: Logger;
  /** This process became the watcher: start watching and writing. */
  onWatcher(): void;
  /** It lost the lease: stop acting as watcher now (another process may already be one). */
  onLost(reason: string): void;
}

/** Starts contending (server topology) or becomes the watcher at once (embedded). */
export async function startRepositoryRole(options: RoleOptions): Promise<RepositoryRole> {
  let role: DaemonRole = 'standby';
  let since = new Date().toISOString();
  let lost: string | null = null;
  const become = (next: DaemonRole): void => {
    role = next;
    since = new Date().toISOString();
  };
  if (!options.redisUrl) {
    become('watcher');
    options.onWatcher();
    return { status: () => ({ role, since, lease: null, lost }), watching: () => true, stop: async () => undefined };
  }
  const key = repositoryLeaseKey(`${options.queueName}:${options.workspaceId}`);
  const owner = `${runnerIdentity()}:${randomBytes(4).toString('hex')}`;
  const lease: RedisLease = new RedisLease({
    redisUrl: options.redisUrl,
    key,
    owner,
    ttlMs: options.leaseMs,
    onAcquired: () => {
      become('watcher');
      options.logger.info({ lease: key, ttl_ms: options.leaseMs }, 'repository lease taken: this process is the watcher');
      options.onWatcher();
    },
    onLost: (reason) => {
      lost = reason;
      become('standby');
      options.logger.error({ lease: key, reason }, 'repository lease lost: this process stops watching');
      // Watching cannot be resumed in this process (its index was stopped): stop contending; a restart comes back as standby.
      void lease.stop();
      options.onLost(reason);
    },
    onError: (err) => options.logger.warn({ error: err.message }, 'repository lease problem'),
  });
  await lease.start();
  if (role === 'standby') options.logger.info({ lease: key, holder: await lease.holder() }, 'standby: another process watches this repository');
  return {
    status: () => ({ role, since, lease: { key, ttl_ms: lease.ttlMs, owner }, lost }),
    watching: () => role === 'watcher',
    stop: () => lease.stop(),
  };
}
