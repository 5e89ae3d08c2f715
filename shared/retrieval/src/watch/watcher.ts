/**
 * Watching a repository for the index: saves, creations and deletions in the working tree, and
 * HEAD moving (commit, checkout, reset). Native watches (inotify, one per directory) by default;
 * when the system's watch limit is exhausted (ENOSPC/EMFILE) it falls back to polling and says so.
 * Polling the tree is a periodic re-listing (one `git ls-files` and a stat per file, which the index
 * does anyway), not a stat timer per file: that stays affordable on a 100,000-file repository.
 * It only reads.
 */
import * as path from 'node:path';
import type { ChokidarOptions, FSWatcher } from 'chokidar';
import { runGit } from '../scope/git';
import { ignoredDirectories, ignorePredicate } from './ignored';

/** Events closer together than this are handled as one batch. */
export const DEFAULT_DEBOUNCE_MS = 40;
/** Shortest pause between two re-listings in polling mode; a slow re-listing waits twice its own time. */
export const DEFAULT_POLL_INTERVAL_MS = 500;

export type WatchMode = 'native' | 'polling';

export interface WatcherOptions {
  /** Start in polling mode (network filesystems, containers on some hosts). Default false. */
  polling?: boolean;
  /** Called with repository-relative paths that were added, changed or removed. */
  onFiles(paths: string[]): void;
  /** Called when HEAD or a branch ref may have moved. */
  onHead(): void;
  /** Re-list the repository: events may have been missed (mode switch), or polling mode's tick. */
  onResync(): Promise<void>;
  /** Called when the watcher changes mode or fails; the watcher keeps going where it can. */
  onNotice?(message: string, mode: WatchMode): void;
  debounceMs?: number;
  pollIntervalMs?: number;
}

const WATCH_LIMIT_CODES = new Set(['ENOSPC', 'EMFILE']);

export class RepositoryWatcher {
  private tree: FSWatcher | undefined;
  private git: FSWatcher | undefined;
  private pending = new Set<string>();
  private timer: NodeJS.Timeout | undefined;
  private headTimer: NodeJS.Timeout | undefined;
  private pollTimer: NodeJS.Timeout | undefined;
  private currentMode: WatchMode;
  private closed = false;

  private constructor(readonly root: string, private readonly gitDir: string, private readonly options: WatcherOptions) {
    this.currentMode = options.polling === true ? 'polling' : 'native';
  }

  /** Starts watching `root` and resolves once the initial scan is done (later edits are seen). */
  static async start(root: string, options: WatcherOptions): Promise<RepositoryWatcher> {
    const gitDir = (await runGit(root, ['rev-parse', '--absolute-git-dir'])).trim();
    const watcher = new RepositoryWatcher(root, gitDir, options);
    await watcher.open();
    return watcher;
  }

  get mode(): WatchMode {
    return this.currentMode;
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.timer !== undefined) clearTimeout(this.timer);
    if (this.headTimer !== undefined) clearTimeout(this.headTimer);
    if (this.pollTimer !== undefined) clearTimeout(this.pollTimer);
    await Promise.all([this.tree?.close(), this.git?.close()]);
  }

  private async open(): Promise<void> {
    // chokidar is ESM-only: a dynamic import loads it in Node and in Jest's module loader alike
    // (Jest 29 cannot require() an ES module; Node 22 can).
    const { watch } = await import('chokidar');
    const polling = this.currentMode === 'polling';
    const interval = this.options.pollIntervalMs ?? DEFAULT_POLL_INTERVAL_MS;
    const common: ChokidarOptions = { ignoreInitial: true, persistent: true, ...(polling ? { backend: 'polling', pollingInterval: interval, pollingBinaryInterval: interval } : {}) };
    if (polling) {
      this.tree = undefined;
      this.schedulePoll(this.options.pollIntervalMs ?? DEFAULT_POLL_INTERVAL_MS);
    } else {
      const ignored = ignorePredicate(this.root, await ignoredDirectories(this.root));
      this.tree = watch(this.root, { ...common, ignored: (p: string) => ignored(p) });
      for (const event of ['add', 'change', 'unlink'] as const) this.tree.on(event, (p: string) => this.file(p));
      this.tree.on('error', (err: unknown) => void this.failed(err));
    }
    // HEAD, the reflog (appended on every commit, checkout and reset) and refs cover every way HEAD moves.
    const gitPaths = ['HEAD', 'logs/HEAD', 'packed-refs', 'refs/heads'].map((p) => path.join(this.gitDir, p));
    this.git = watch(gitPaths, { ...common, ignored: (p: string) => p.endsWith('.lock') });
    for (const event of ['add', 'change', 'unlink'] as const) this.git.on(event, () => this.head());
    this.git.on('error', (err: unknown) => void this.failed(err));
    await Promise.all([this.tree === undefined ? undefined : ready(this.tree), ready(this.git)]);
  }

  private schedulePoll(delayMs: number): void {
    this.pollTimer = setTimeout(() => {
      const started = Date.now();
      void this.options
        .onResync()
        .catch(() => undefined)
        .then(() => {
          if (!this.closed) this.schedulePoll(Math.max(this.options.pollIntervalMs ?? DEFAULT_POLL_INTERVAL_MS, 2 * (Date.now() - started)));
        });
    }, delayMs);
  }

  private file(absolute: string): void {
    const rel = path.relative(this.root, absolute).split(path.sep).join('/');
    if (rel === '' || rel.startsWith('../')) return;
    this.pending.add(rel);
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      const batch = [...this.pending];
      this.pending.clear();
      if (!this.closed && batch.length > 0) this.options.onFiles(batch);
    }, this.options.debounceMs ?? DEFAULT_DEBOUNCE_MS);
  }

  private head(): void {
    if (this.headTimer !== undefined) clearTimeout(this.headTimer);
    this.headTimer = setTimeout(() => {
      if (!this.closed) this.options.onHead();
    }, this.options.debounceMs ?? DEFAULT_DEBOUNCE_MS);
  }

  /** Out of native watches: switch to polling once, and tell. Other errors are reported only. */
  private async failed(err: unknown): Promise<void> {
    const code = (err as NodeJS.ErrnoException | undefined)?.code;
    if (this.closed) return;
    if (code !== undefined && WATCH_LIMIT_CODES.has(code) && this.currentMode === 'native') {
      this.currentMode = 'polling';
      this.options.onNotice?.(`native file watching unavailable (${code}: the system's watch limit is reached); re-listing the repository every ${this.options.pollIntervalMs ?? DEFAULT_POLL_INTERVAL_MS} ms or more instead (raise fs.inotify.max_user_watches to go back)`, 'polling');
      await Promise.all([this.tree?.close(), this.git?.close()]);
      // Polling starts with a re-listing, which catches anything saved while switching.
      await this.open();
      return;
    }
    this.options.onNotice?.(`file watching error: ${err instanceof Error ? err.message : String(err)}`, this.currentMode);
  }
}

function ready(watcher: FSWatcher): Promise<void> {
  return new Promise((resolve) => watcher.once('ready', () => resolve()));
}
