/**
 * A read-only copy of the stored index in another process (context API, proxy): it applies the
 * daemon's stored changes and answers queries from memory, never reading the repository.
 */
import { RepositoryIndex, type ContextResult, type IndexReader, type QueryOptions } from '../indexer';
import { createScopePolicy } from '../scope';
import type { IndexFeed, StoredChanges } from './feed';

/** How often a started replica asks for changes; a save is visible within about this much plus the daemon's own delay. */
export const DEFAULT_SYNC_INTERVAL_MS = 150;

/** What the replica holds, for health and status answers. */
export interface ReplicaStatus {
  /** Null before the daemon first stored the index. */
  state: StoredChanges['state'];
  generation: number;
  files_indexed: number;
  head: string | null;
  error: string | null;
  /** ISO time of the last successful sync, or null. */
  synced_at: string | null;
  /** One line when the last sync failed. */
  sync_error: string | null;
  /** ISO time of the first of the syncs failing in a row (the store unreachable since then), or null. */
  sync_failing_since: string | null;
}

export class IndexReplica {
  private readonly index: RepositoryIndex;
  private generation = 0;
  private head: string | null | undefined = undefined;
  private last: StoredChanges | null = null;
  private syncedAt: Date | null = null;
  private syncError: string | null = null;
  private failingSince: Date | null = null;
  private timer: NodeJS.Timeout | undefined;
  private syncing: Promise<boolean> | null = null;

  constructor(private readonly feed: IndexFeed, root = '/') {
    // The replica never lists or reads files: the policy is unused, the root only labels it.
    this.index = new RepositoryIndex(root, createScopePolicy({ allowedPaths: [], excludedPatterns: [] }));
  }

  /** Pulls and applies changes once; true when something new was applied. Concurrent calls share one pull. */
  sync(): Promise<boolean> {
    if (this.syncing === null) {
      this.syncing = this.pull().finally(() => {
        this.syncing = null;
      });
    }
    return this.syncing;
  }

  /** Syncs now and then every `intervalMs` until `stop`. A failed sync is kept in `status().sync_error` and retried. */
  async start(intervalMs = DEFAULT_SYNC_INTERVAL_MS): Promise<void> {
    await this.sync().catch(() => false);
    this.timer = setInterval(() => void this.sync().catch(() => false), intervalMs);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer !== undefined) clearInterval(this.timer);
    this.timer = undefined;
  }

  query(prompt: string, options: QueryOptions = {}): ContextResult {
    return this.index.query(prompt, options);
  }

  /** Read access to the copy as of the last sync (a preparation job in a process that does not watch). */
  reader(): IndexReader {
    return this.index;
  }

  status(): ReplicaStatus {
    return {
      state: this.last?.state ?? null,
      generation: this.generation,
      files_indexed: this.index.size,
      head: this.last?.head ?? null,
      error: this.last?.error ?? null,
      synced_at: this.syncedAt?.toISOString() ?? null,
      sync_error: this.syncError,
      sync_failing_since: this.failingSince?.toISOString() ?? null,
    };
  }

  private async pull(): Promise<boolean> {
    let applied = false;
    for (;;) {
      let changes: StoredChanges;
      try {
        changes = await this.feed.changesSince(this.generation, this.head);
      } catch (err) {
        this.syncError = err instanceof Error ? err.message.split('\n')[0] ?? 'sync failed' : String(err);
        this.failingSince ??= new Date();
        throw err;
      }
      this.syncError = null;
      this.failingSince = null;
      this.syncedAt = new Date();
      this.last = changes;
      // A generation that went backwards means the store was rebuilt: start over from everything.
      if (changes.generation < this.generation) {
        this.generation = 0;
        this.head = undefined;
        continue;
      }
      const empty = changes.delta.upserted.length === 0 && changes.delta.removed.length === 0 && changes.delta.signals === undefined;
      if (changes.generation === this.generation && empty) return applied;
      await this.index.applyStored(changes.delta);
      this.generation = changes.generation;
      if (changes.delta.signals !== undefined) this.head = changes.delta.signals.head;
      applied = true;
      if (!changes.more) return applied;
    }
  }
}
