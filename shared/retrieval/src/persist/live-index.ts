/**
 * The daemon's index: restored from the store, brought up to date with the repository (reading only
 * what moved while the daemon was down), kept fresh by the watcher, and written back after every
 * change so the context API and proxy see it. Records `file_change` and `commit` signals (spec 2.4).
 */
import type { IndexState, Store } from '@sous/store';
import { buildRepositoryIndex, RepositoryIndex, type ContextResult, type IndexReader, type QueryOptions } from '../indexer';
import { headCommit, sameRedaction, scopeKey, type ScopePolicy } from '../scope';
import { RepositoryWatcher, type WatchMode } from '../watch';
import { storeIndexFeed, type IndexFeed } from './feed';
import { SaveRetry, type UnsavedChanges } from './save-retry';
import { IndexWriter, type FlushResult } from './writer';

/** A batch of saves larger than this is handled as one re-listing (a checkout, a formatter run). */
export const MAX_FILE_BATCH = 64;
/** Paths named in one `file_change` signal; the count says how many there were. */
const SIGNAL_PATHS = 50;

export interface LiveIndexOptions {
  root: string;
  policy: ScopePolicy;
  /** With `chunkEmbeddings`, vectors of files dropped by a scope change (all, when the redaction changed) go too. */
  store: Pick<Store, 'repositoryIndex' | 'signals'> & Partial<Pick<Store, 'chunkEmbeddings'>>;
  workspaceId: string;
  /** Watch the repository; `polling` forces polling mode. Default: watch natively. */
  watch?: false | { polling?: boolean };
  /** One-line notices for the log (watch mode switches, failed updates). Never file contents. */
  onNotice?(message: string): void;
  /** Progress of the initial catch-up, in files. */
  onProgress?(done: number, total: number): void;
  /**
   * Told after each recorded invalidation signal, once the change is applied and stored: the paths
   * that changed (all of them, not only the 50 a signal names) or the HEAD move. The preparation
   * engine marks cards stale and schedules a cycle from it.
   */
  onSignal?(signal: IndexSignal): void;
}

/** An invalidation signal as the index records it (spec 2.4). */
export type IndexSignal =
  | { kind: 'file_change'; paths: string[]; generation: number }
  | { kind: 'commit'; head: string | null; previous: string | null; generation: number };

/** What `/status` says about the index. */
export interface LiveIndexStatus {
  state: IndexState;
  files_indexed: number;
  generation: number;
  head: string | null;
  watch: WatchMode | 'off';
  /** ISO time of the last applied change, or null. */
  updated_at: string | null;
  /** Reads from disk since start (a restart with nothing changed reads nothing). */
  reads: number;
  /** Paused (Auto Focus): the repository is neither watched nor read. */
  suspended: boolean;
  /** While a catch-up or rebuild runs: files handled of those listed. */
  progress: { done: number; total: number } | null;
  error: string | null;
  /**
   * Changes the store has not taken yet (it refused the last save: PostgreSQL down, disk full),
   * retried with backoff; null when everything is stored. `generation` is the last stored one.
   */
  unsaved: UnsavedChanges | null;
}

/**
 * What the index could not take whole: listed files not indexed and indexed files held in a degraded
 * form, each counted by reason (`IndexStats`). `sous status` and `sous doctor` show it.
 */
export interface IndexCoverage {
  skipped: Record<string, number>;
  degraded: Record<string, number>;
}

export class LiveIndex {
  private index: RepositoryIndex;
  private writer: IndexWriter;
  private watcher: RepositoryWatcher | undefined;
  /** Bumped by every watch start, suspend and stop: a watcher that finishes starting in an older round is closed. */
  private watchRound = 0;
  private state: IndexState = 'indexing';
  private error: string | null = null;
  private generation = 0;
  private head: string | null = null;
  private updatedAt: Date | null = null;
  private work: Promise<unknown> = Promise.resolve();
  private stopped = false;
  /** Paused by Auto Focus: no watching, no reads, queued updates dropped until `resume`. */
  private suspended = false;
  private progress: { done: number; total: number } | null = null;
  /** Signals of changes applied in memory whose save (or signal record) has not gone through yet. */
  private unsignalled: { paths: Set<string>; previousHead?: string | null } = { paths: new Set() };
  private readonly retry = new SaveRetry(() => void this.serial(() => this.save(this.state)));
  readonly feed: IndexFeed;

  constructor(private readonly options: LiveIndexOptions) {
    this.index = new RepositoryIndex(options.root, options.policy);
    this.writer = new IndexWriter(options.store.repositoryIndex, options.workspaceId, this.index);
    this.feed = storeIndexFeed(options.store.repositoryIndex, options.workspaceId);
  }

  /**
   * Restores the stored index, catches up with the repository and starts watching. Resolves when
   * the index is ready; rejects (and stores state `failed`) when the repository cannot be read.
   */
  async start(): Promise<void> {
    try {
      let stored = await this.feed.changesSince(0);
      const previousHead = stored.head;
      // Texts stored under another scope (allowed paths, exclusions, redaction changed while the
      // daemon was down) are not trusted: everything is read again and the old rows are replaced.
      const sameScope = stored.scope_key === scopeKey(this.options.policy);
      const redactionKept = sameRedaction(stored.scope_key, this.options.policy);
      const stale: string[] = [];
      for (;;) {
        if (sameScope) await this.index.applyStored(stored.delta);
        else stale.push(...stored.delta.upserted.map((f) => f.path));
        if (!stored.more) break;
        stored = await this.feed.changesSince(stored.generation, previousHead);
      }
      // The old rows go before anything is read: a reader never meets a text of the old scope
      // again, nor does a restart cut short here (the new scope is stored with the removal).
      this.writer.forget(stale);
      await this.save('indexing');
      if (stale.length > 0) await this.dropOldContent(redactionKept ? [] : stale);
      // Watch first, so a save during the catch-up is not lost between listing and watching.
      await this.watch();
      await this.serial(async () => {
        await this.index.refresh((done, total) => {
          this.progress = { done, total };
          this.options.onProgress?.(done, total);
        });
        this.progress = null;
        this.head = this.index.stats().head;
        await this.save('ready', stored.state !== null && this.head !== previousHead ? { previousHead } : {});
        await this.dropVectors(stale.filter((path) => !this.index.has(path)));
      });
    } catch (err) {
      this.state = 'failed';
      this.error = err instanceof Error ? err.message.split('\n')[0] ?? 'index failed' : String(err);
      await this.writer.flush('failed', this.error).catch(() => undefined);
      throw err;
    }
  }

  /** Ranks files for a prompt from the in-memory index. */
  query(prompt: string, options: QueryOptions = {}): ContextResult {
    return this.index.query(prompt, options);
  }

  /** Read access to the current index (a rebuild swaps it; ask again rather than keep it). */
  reader(): IndexReader {
    return this.index;
  }

  /** Skipped and degraded files by reason (walks the index: for /status, not for every query). */
  coverage(): IndexCoverage {
    const { skipped, degraded } = this.index.stats();
    return { skipped: skipped as Record<string, number>, degraded: degraded as Record<string, number> };
  }

  status(): LiveIndexStatus {
    return {
      state: this.state,
      files_indexed: this.index.size,
      generation: this.generation,
      head: this.head,
      watch: this.watcher?.mode ?? 'off',
      updated_at: this.updatedAt?.toISOString() ?? null,
      reads: this.index.stats().reads,
      progress: this.progress,
      error: this.error,
      suspended: this.suspended,
      // Files whose rows or whose signal the store has not taken (a save can fail between the two).
      unsaved: this.retry.status(Math.max(this.writer.pendingFiles(), this.unsignalled.paths.size)),
    };
  }

  /** Waits until every queued update is applied and stored (tests, shutdown). */
  async settled(): Promise<void> {
    let current;
    do {
      current = this.work;
      await current;
    } while (current !== this.work);
  }

  /**
   * A fresh index under a new privacy policy (allowed paths, exclusions or redaction changed): every
   * file is read again so nothing outside the new scope or unredacted survives; the store follows.
   */
  rebuild(policy: ScopePolicy): Promise<void> {
    return this.serial(async () => {
      this.state = 'indexing';
      const next = await buildRepositoryIndex(this.options.root, policy, { onProgress: (done, total) => (this.progress = { done, total }) });
      this.progress = null;
      const writer = new IndexWriter(this.options.store.repositoryIndex, this.options.workspaceId, next);
      // The new index reports every file it holds as added; the ones it dropped are removed.
      const old = this.index.paths();
      const dropped = old.filter((path) => !next.has(path));
      writer.forget(dropped);
      const redactionKept = sameRedaction(scopeKey(this.index.policy), policy);
      // Whatever the old writer could not save is in the new index (every file read again).
      this.index = next;
      this.writer = writer;
      await this.save('ready');
      await this.dropOldContent(redactionKept ? dropped : old);
    });
  }

  /**
   * After a scope change: contents no file points at any more (texts read under the old scope) are
   * deleted from the store, and so are the vectors of `paths` (embedded from those texts).
   */
  private async dropOldContent(paths: readonly string[]): Promise<void> {
    await this.options.store.repositoryIndex.compact(this.options.workspaceId);
    await this.dropVectors(paths);
  }

  private async dropVectors(paths: readonly string[]): Promise<void> {
    if (paths.length > 0) await this.options.store.chunkEmbeddings?.removePaths(this.options.workspaceId, paths);
  }

  /**
   * Stops watching and reading the repository (a paused workspace, spec 1 rule 6): the watcher is
   * closed, updates already queued are dropped, the index keeps answering from what it holds.
   */
  async suspend(): Promise<void> {
    this.suspended = true;
    this.watchRound++;
    this.retry.cancel();
    const watcher = this.watcher;
    this.watcher = undefined;
    await watcher?.close();
    await this.settled().catch(() => undefined);
  }

  /** Watches again and catches up with whatever changed while suspended. */
  async resume(): Promise<void> {
    if (!this.suspended || this.stopped) return;
    this.suspended = false;
    await this.watch();
    await this.serial(() => this.resync());
    // Changes the store refused before the pause are tried again now.
    if (this.retry.pending()) await this.serial(() => this.save(this.state));
  }

  private async watch(): Promise<void> {
    if (this.options.watch === false || this.suspended || this.stopped) return;
    const round = ++this.watchRound;
    const watcher = await RepositoryWatcher.start(this.options.root, {
      polling: this.options.watch?.polling === true,
      onFiles: (paths) => this.serial(() => this.filesChanged(paths)),
      onHead: () => this.serial(() => this.headMoved()),
      onResync: () => this.serial(() => this.resync()),
      onNotice: (message) => this.options.onNotice?.(message),
    });
    // Stopped, suspended or superseded (a pause and a resume) while it was starting: nobody else
    // holds this watcher, and its open watches would keep the process alive.
    if (round !== this.watchRound) await watcher.close();
    else this.watcher = watcher;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.watchRound++;
    this.retry.cancel();
    await this.watcher?.close();
    await this.settled().catch(() => undefined);
  }

  private serial(fn: () => Promise<void>): Promise<void> {
    const run = this.work.then(() => (this.stopped || this.suspended ? undefined : fn()));
    this.work = run.catch((err: unknown) => this.options.onNotice?.(`index update failed: ${err instanceof Error ? err.message.split('\n')[0] : String(err)}`));
    return run;
  }

  private async filesChanged(paths: string[]): Promise<void> {
    if (paths.length > MAX_FILE_BATCH) return this.resync();
    const changed: string[] = [];
    for (const path of paths) {
      const change = await this.index.updateFile(path).catch(() => 'unchanged' as const);
      if (change !== 'unchanged') changed.push(path);
    }
    if (changed.length === 0) return;
    await this.save('ready', { paths: changed });
  }

  private async headMoved(): Promise<void> {
    const now = await headCommit(this.options.root);
    if (now === this.head) return;
    await this.resync();
  }

  /** Re-lists the repository (HEAD moved, polling tick, missed events); writes and signals only what changed. */
  private async resync(): Promise<void> {
    const previous = this.head;
    const result = await this.index.refresh();
    this.head = this.index.stats().head;
    const moved = this.head !== previous;
    const files = result.added + result.changed + result.removed;
    if (files === 0 && !moved) return;
    await this.save('ready', moved ? { previousHead: previous } : { written: true });
  }

  /**
   * Stores the index's changes with `state`, then records the signals of everything applied since
   * the last save that went through. When the store refuses (PostgreSQL down, disk full), the
   * changes stay in the writer and the signals here, and the save is retried with backoff; the
   * in-memory index keeps answering. `paths`: files this change touched; `written`: the paths the
   * flush writes are the change (a re-listing); `previousHead`: HEAD moved from there.
   */
  private async save(state: IndexState, change: { paths?: string[]; written?: boolean; previousHead?: string | null } = {}): Promise<void> {
    for (const path of change.paths ?? []) this.unsignalled.paths.add(path);
    if (change.previousHead !== undefined && !('previousHead' in this.unsignalled)) this.unsignalled.previousHead = change.previousHead;
    try {
      const flushed = await this.flush(state);
      // `ready` once the store holds it: a reader of the store (the context process, a test) that
      // waits for it then finds the rows.
      this.state = state;
      if (change.written) for (const path of flushed.paths) this.unsignalled.paths.add(path);
      const pending = this.unsignalled;
      if ('previousHead' in pending) await this.commitSignal(pending.previousHead ?? null);
      else if (pending.paths.size > 0) await this.fileChangeSignal([...pending.paths], flushed.generation);
      this.unsignalled = { paths: new Set() };
    } catch (err) {
      // The index in memory is `state` all the same; `status().unsaved` says the store is behind.
      this.state = state;
      const error = err instanceof Error ? err.message.split('\n')[0] ?? 'save failed' : String(err);
      if (this.retry.failed(error)) this.options.onNotice?.(`index changes not saved, retrying: ${error}`);
      return;
    }
    const outageMs = this.retry.succeeded();
    if (outageMs !== null) this.options.onNotice?.(`index changes saved again after ${Math.round(outageMs / 1000)} s`);
  }

  private async fileChangeSignal(paths: string[], generation: number): Promise<void> {
    await this.options.store.signals.append({
      kind: 'file_change',
      workspaceId: this.options.workspaceId,
      payload: { paths: paths.slice(0, SIGNAL_PATHS), count: paths.length, generation },
    });
    this.options.onSignal?.({ kind: 'file_change', paths, generation });
  }

  private async commitSignal(previous: string | null): Promise<void> {
    await this.options.store.signals.append({
      kind: 'commit',
      workspaceId: this.options.workspaceId,
      payload: { head: this.head, previous, generation: this.generation },
    });
    this.options.onSignal?.({ kind: 'commit', head: this.head, previous, generation: this.generation });
  }

  private async flush(state: IndexState): Promise<FlushResult> {
    const result = await this.writer.flush(state);
    this.error = null;
    this.generation = result.generation;
    this.updatedAt = new Date();
    return result;
  }
}
