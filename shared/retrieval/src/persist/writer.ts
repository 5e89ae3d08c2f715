/** Writing the index to the store: the daemon flushes what changed after every build or update. */
import type { IndexBlobInput, IndexState, RepositoryIndexRepository } from '@sous/store';
import { fingerprintMtime, type IndexDelta, type RepositoryIndex, type StoredFile } from '../indexer';
import { scopeKey } from '../scope';

/** Files and bytes (on disk) per write transaction. */
export const CHUNK_FILES = 200;
export const CHUNK_BYTES = 2 * 1024 * 1024;

/** What one flush wrote. */
export interface FlushResult {
  generation: number;
  /** Paths written or removed (content changes and mtime-only updates alike). */
  paths: string[];
}

/** Flushes one index's changes to the store tables of one workspace. Flushes run one at a time. */
export class IndexWriter {
  private queue: Promise<unknown> = Promise.resolve();
  /** Changes for the next flush: forgotten paths, and changes whose write failed (never dropped). */
  private pending: IndexDelta | null = null;

  constructor(
    private readonly repo: RepositoryIndexRepository,
    private readonly workspaceId: string,
    private readonly index: RepositoryIndex,
  ) {}

  /**
   * Paths the store may hold that the index does not (rows written under another scope, or by the
   * index this one replaces): removed with the next flush.
   */
  forget(paths: readonly string[]): void {
    if (paths.length > 0) this.pending = merge(this.pending, { upserted: [], removed: [...paths] });
  }

  /** Files whose change a failed flush kept for the next one. */
  pendingFiles(): number {
    return this.pending === null ? 0 : this.pending.upserted.length + this.pending.removed.length;
  }

  /** Writes the changes taken from the index, with `state` (and `error` when failed). */
  flush(state: IndexState, error?: string): Promise<FlushResult> {
    const run = this.queue.then(() => this.write(state, error));
    this.queue = run.catch(() => undefined);
    return run;
  }

  private async write(state: IndexState, error?: string): Promise<FlushResult> {
    const delta = merge(this.pending, this.index.takeChanges());
    this.pending = null;
    try {
      return await this.writeDelta(delta, state, error);
    } catch (err) {
      // Kept for the next flush, under anything forgotten meanwhile: never dropped.
      this.pending = merge(delta, this.pending ?? { upserted: [], removed: [] });
      throw err;
    }
  }

  private async writeDelta(delta: IndexDelta, state: IndexState, error?: string): Promise<FlushResult> {
    const stats = this.index.stats();
    // A first build of a large repository is written in bounded transactions (a generation each),
    // so neither PGlite's memory nor a reader's page grows with the repository. Sized by bytes on
    // disk: the texts themselves are read (unpacked) only when their chunk is written.
    const chunks: StoredFile[][] = [];
    let current: StoredFile[] = [];
    let bytes = 0;
    for (const file of delta.upserted) {
      if (current.length >= CHUNK_FILES || bytes >= CHUNK_BYTES) {
        chunks.push(current);
        current = [];
        bytes = 0;
      }
      current.push(file);
      bytes += file.bytes;
    }
    chunks.push(current);
    const common = {
      filesIndexed: stats.files_indexed,
      skipped: stats.skipped as Record<string, number>,
      error: error ?? null,
      // Stored with every write: the scope the texts were read under.
      scopeKey: scopeKey(this.index.policy),
    };
    let generation = 0;
    for (const [i, chunk] of chunks.entries()) {
      const last = i === chunks.length - 1;
      const blobs = new Map<string, IndexBlobInput>();
      for (const f of chunk) {
        if (!blobs.has(f.blobKey)) blobs.set(f.blobKey, { key: f.blobKey, text: f.text, symbols: { definitions: f.definitions, imports: f.imports, ...(f.degraded === undefined ? {} : { degraded: f.degraded }) } });
      }
      generation = await this.repo.write(this.workspaceId, {
        upsert: chunk.map((f) => ({ path: f.path, blobKey: f.blobKey, sha256: f.sha256, language: f.language, bytes: f.bytes, mtimeMs: fingerprintMtime(f.fingerprint) })),
        blobs: [...blobs.values()],
        ...(last ? { remove: delta.removed } : {}),
        // Until the last chunk is in, readers see the index as still being built.
        state: {
          ...common,
          state: last ? state : 'indexing',
          ...(last && delta.signals !== undefined ? { head: delta.signals.head, signals: { recency: delta.signals.recency, coChange: delta.signals.coChange } } : {}),
        },
      });
    }
    return { generation, paths: [...delta.upserted.map((f) => f.path), ...delta.removed] };
  }
}

/** `later` applied over `earlier`, path by path. */
function merge(earlier: IndexDelta | null, later: IndexDelta): IndexDelta {
  if (earlier === null) return later;
  const files = new Map(earlier.upserted.map((f) => [f.path, f] as const));
  const removed = new Set(earlier.removed);
  for (const path of later.removed) {
    files.delete(path);
    removed.add(path);
  }
  for (const f of later.upserted) {
    removed.delete(f.path);
    files.set(f.path, f);
  }
  const signals = later.signals ?? earlier.signals;
  return { upserted: [...files.values()], removed: [...removed], ...(signals === undefined ? {} : { signals }) };
}
