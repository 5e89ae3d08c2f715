/**
 * Reading the stored index: the changes a reader has not seen yet, as an `IndexDelta` it can apply.
 * The store feed reads the tables directly (PostgreSQL, or the daemon's own PGlite); the daemon
 * serves the same answer over HTTP to processes that cannot open an embedded store.
 */
import type { IndexFileRow, IndexState, RepositoryIndexRepository } from '@sous/store';
import type { DegradeReason, Language } from '../scope';
import type { SymbolDefinition, SymbolImport } from '../symbols';
import type { IndexDelta, StoredFile, StoredSignals } from '../indexer';


/** What changed after the generation a reader holds. */
export interface StoredChanges {
  /** The generation this answer brings the reader to; 0 while nothing is stored. */
  generation: number;
  /** Null before the daemon first wrote the index. */
  state: IndexState | null;
  files_indexed: number;
  head: string | null;
  /** One line when state is failed. */
  error: string | null;
  /** The privacy scope the stored texts were read under (see `scopeKey`). */
  scope_key: string | null;
  /** More changes wait after `generation`: ask again from there. */
  more: boolean;
  delta: IndexDelta;
}

/**
 * Files one answer carries at most (whole generations, so a page may hold a little more): about one
 * writer chunk, so serving a page (rows, texts and their JSON at once) stays a few MB of the
 * daemon's memory.
 */
export const DEFAULT_PAGE_FILES = 200;

/** A source of stored index changes. */
export interface IndexFeed {
  /**
   * Changes after `generation` (0 = everything), one page of whole generations at a time (`more`
   * says to ask again); signals only when HEAD differs from `knownHead`.
   */
  changesSince(generation: number, knownHead?: string | null): Promise<StoredChanges>;
}

interface StoredSymbols {
  definitions?: SymbolDefinition[];
  imports?: SymbolImport[];
  degraded?: DegradeReason;
}

const fingerprintOf = (row: IndexFileRow): string | null =>
  row.bytes === null || row.mtimeMs === null ? null : `${row.bytes}:${row.mtimeMs}`;

/** The feed over the store's index tables of one workspace. */
export function storeIndexFeed(repo: RepositoryIndexRepository, workspaceId: string, pageFiles = DEFAULT_PAGE_FILES): IndexFeed {
  return {
    async changesSince(since, knownHead) {
      // State first: rows committed after it are re-read next time, never missed.
      const state = await repo.stateSummary(workspaceId);
      if (state === undefined) return { generation: 0, state: null, files_indexed: 0, head: null, error: null, scope_key: null, more: false, delta: { upserted: [], removed: [] } };
      // Page by whole generations (each write is one), so a reader never applies half a write.
      let upTo = state.generation;
      if (state.generation > since) {
        let files = 0;
        for (const g of await repo.generationSizes(workspaceId, since)) {
          files += g.files;
          upTo = g.generation;
          if (files >= pageFiles) break;
        }
        upTo = files >= pageFiles ? upTo : state.generation;
      }
      const rows = state.generation > since ? await repo.filesSince(workspaceId, since, upTo) : [];
      const live = rows.filter((r) => !r.removed && r.blobKey !== null);
      const blobs = new Map((await repo.blobs(workspaceId, [...new Set(live.map((r) => r.blobKey as string))])).map((b) => [b.key, b]));
      const upserted: StoredFile[] = [];
      const removed: string[] = rows.filter((r) => r.removed).map((r) => r.path);
      for (const row of live) {
        const blob = blobs.get(row.blobKey as string);
        // A blob compacted away between the two reads: the file is re-sent with its next write.
        if (blob === undefined) continue;
        const symbols = blob.symbols as StoredSymbols;
        upserted.push({
          path: row.path,
          blobKey: row.blobKey as string,
          sha256: row.sha256 as string,
          language: row.language as Language,
          bytes: row.bytes ?? 0,
          fingerprint: fingerprintOf(row),
          text: blob.text,
          definitions: symbols.definitions ?? [],
          imports: symbols.imports ?? [],
          ...(symbols.degraded === undefined ? {} : { degraded: symbols.degraded }),
        });
      }
      const delta: IndexDelta = { upserted, removed };
      if (knownHead === undefined || knownHead !== state.head || since === 0) {
        const signals = ((await repo.signals(workspaceId)) ?? {}) as Partial<StoredSignals>;
        delta.signals = { head: state.head, recency: signals.recency ?? {}, coChange: signals.coChange ?? {} };
      }
      return { generation: upTo, state: state.state, files_indexed: state.filesIndexed, head: state.head, error: state.error, scope_key: state.scopeKey, more: upTo < state.generation, delta };
    },
  };
}
