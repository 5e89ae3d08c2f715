import { Redis } from 'ioredis';
import { JobError, errorMessage } from './errors';
import { redactUrl } from './support';

/** Which job a connection does; the worker's must wait forever on blocking commands, as BullMQ requires. */
export type ConnectionRole = 'queue' | 'worker' | 'subscriber';

/**
 * The Redis connections of one queue. Every connection gets an 'error' listener (ioredis emits 'error' on
 * each failed reconnect and an unheard one would crash the process); errors are reported once per distinct
 * message, with the URL's password redacted, and kept for health().
 */
export class RedisLink {
  /** The URL as safe to show. */
  readonly where: string;
  private readonly connections: Redis[] = [];
  private lastMessage: string | undefined;

  constructor(
    private readonly url: string,
    private readonly onError: (error: Error) => void,
  ) {
    this.where = redactUrl(url);
  }

  /** A new connection for `role`. */
  connect(role: ConnectionRole): Redis {
    const redis = new Redis(this.url, {
      // Callers (enqueue, list, cancel, start) should fail fast and say why; the worker must not.
      maxRetriesPerRequest: role === 'worker' ? null : 1,
      connectionName: `sous-jobs-${role}`,
      // disconnect() of a never-connected client arms a timer for its already-dead socket; keep it short
      // so closing the queue does not hold the process open for ioredis' default 2 s.
      disconnectTimeout: 100,
    });
    redis.on('error', (err: unknown) => this.report(err));
    redis.on('ready', () => {
      this.lastMessage = undefined;
    });
    this.connections.push(redis);
    return redis;
  }

  /**
   * Resolves once `redis` is connected, or rejects after `ms`. BullMQ waits for a connection without a
   * limit; callers of the queue get a clear error instead of a hang.
   */
  async ready(redis: Redis, ms: number): Promise<void> {
    if (redis.status === 'ready') return;
    let timer: NodeJS.Timeout | undefined;
    let onReady: (() => void) | undefined;
    try {
      await new Promise<void>((resolve, reject) => {
        onReady = resolve;
        redis.once('ready', onReady);
        timer = setTimeout(() => reject(new Error(`not connected within ${ms} ms`)), ms);
      });
    } finally {
      if (timer) clearTimeout(timer);
      if (onReady) redis.off('ready', onReady);
    }
  }

  /** Records a connection error (also used for BullMQ's own 'error' events). */
  report(err: unknown): void {
    const message = `Redis at ${this.where}: ${this.clean(errorMessage(err))}`;
    if (message === this.lastMessage) return;
    this.lastMessage = message;
    this.onError(new Error(message));
  }

  /** The last connection error, if the link has not recovered since. */
  get lastError(): string | undefined {
    return this.lastMessage;
  }

  /** A JobError for a failed Redis call, naming the URL and what to do (JobErrors pass through). */
  unavailable(action: string, err: unknown): JobError {
    if (err instanceof JobError) return err;
    const cause = this.lastMessage ?? `Redis at ${this.where}: ${this.clean(errorMessage(err))}`;
    return new JobError('unavailable', `cannot ${action}: ${cause}; start Redis or check REDIS_URL`);
  }

  /** Closes every connection (quit politely, then force if Redis does not answer). */
  async close(): Promise<void> {
    await Promise.all(
      this.connections.splice(0).map(async (redis) => {
        if (redis.status === 'end') return;
        try {
          if (redis.status === 'ready') await redis.quit();
          else redis.disconnect();
        } catch {
          // quit failed because the connection was already going away; disconnect is what we wanted anyway.
          redis.disconnect();
        }
      }),
    );
  }

  /** Never echo the raw URL (ioredis messages may contain it). */
  private clean(message: string): string {
    return message.replace(/^Error: /, '').split(this.url).join(this.where);
  }
}
