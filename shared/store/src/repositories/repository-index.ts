import { and, asc, eq, getTableColumns, gt, inArray, lte, sql } from 'drizzle-orm';
import type { StoreDb } from '../db';
import { indexBlobs, indexFiles, indexState, type IndexBlobRow, type IndexFileRow, type IndexState, type IndexStateRow } from '../schema/repository-index';
import { attempt } from './attempt';

/** Rows per INSERT: well under PostgreSQL's 65,535 bind parameters, small enough for PGlite's memory. */
const BATCH_ROWS = 250;

/** One indexed file as the writer hands it over. */
export interface IndexFileInput {
  path: string;
  blobKey: string;
  sha256: string;
  language: string;
  bytes: number;
  mtimeMs: number | null;
}

/** One distinct content; written once per workspace (a known key is left as is). */
export interface IndexBlobInput {
  key: string;
  text: string;
  symbols: Record<string, unknown>;
}

/** Index-wide facts written with a batch of changes. */
export interface IndexStateInput {
  state: IndexState;
  head?: string | null;
  signals?: Record<string, unknown>;
  filesIndexed?: number;
  skipped?: Record<string, number>;
  error?: string | null;
  scopeKey?: string;
}

/** One write: files upserted, paths removed, blobs added, state replaced; all or nothing. */
export interface IndexChanges {
  upsert?: readonly IndexFileInput[];
  remove?: readonly string[];
  blobs?: readonly IndexBlobInput[];
  state: IndexStateInput;
}

/** The repository index tables (see schema/repository-index.ts): one writer, many readers. */
export interface RepositoryIndexRepository {
  /** The workspace's index state, or undefined before the first write. */
  state(workspaceId: string): Promise<IndexStateRow | undefined>;
  /**
   * The state without its signals (recency and co-change of every path, hundreds of KB on a large
   * repository): what a reader polls several times a second, fetching `signals` only when HEAD moved.
   */
  stateSummary(workspaceId: string): Promise<Omit<IndexStateRow, 'signals'> | undefined>;
  /** The stored signals alone, or undefined before the first write. */
  signals(workspaceId: string): Promise<Record<string, unknown> | undefined>;
  /** Applies one batch in a transaction and returns the new generation. */
  write(workspaceId: string, changes: IndexChanges): Promise<number>;
  /**
   * File rows (tombstones included) written after `generation` and, with `upTo`, at or before it;
   * `generation` 0 = live rows only.
   */
  filesSince(workspaceId: string, generation: number, upTo?: number): Promise<IndexFileRow[]>;
  /** How many file rows each generation after `generation` wrote, oldest first (for paging). */
  generationSizes(workspaceId: string, generation: number): Promise<{ generation: number; files: number }[]>;
  /** Blobs by key; unknown keys are left out. */
  blobs(workspaceId: string, keys: readonly string[]): Promise<IndexBlobRow[]>;
  /**
   * Deletes blobs no live file points at; returns how many went. Tombstones stay: a reader that
   * last synced long ago must still see the removal.
   */
  compact(workspaceId: string): Promise<number>;
}

function chunks<T>(items: readonly T[], size = BATCH_ROWS): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

export function createRepositoryIndexRepository(db: StoreDb): RepositoryIndexRepository {
  return {
    state: (workspaceId) =>
      attempt('reading the index state', async () => {
        const [row] = await db.select().from(indexState).where(eq(indexState.workspaceId, workspaceId));
        return row;
      }),

    stateSummary: (workspaceId) =>
      attempt('reading the index state', async () => {
        const { signals: _signals, ...columns } = getTableColumns(indexState);
        const [row] = await db.select(columns).from(indexState).where(eq(indexState.workspaceId, workspaceId));
        return row;
      }),

    signals: (workspaceId) =>
      attempt('reading the index signals', async () => {
        const [row] = await db.select({ signals: indexState.signals }).from(indexState).where(eq(indexState.workspaceId, workspaceId));
        return row?.signals;
      }),

    write: (workspaceId, changes) =>
      attempt('writing the repository index', () =>
        db.transaction(async (tx) => {
          const s = changes.state;
          const stateValues = {
            state: s.state,
            ...(s.head !== undefined ? { head: s.head } : {}),
            ...(s.signals !== undefined ? { signals: s.signals } : {}),
            ...(s.filesIndexed !== undefined ? { filesIndexed: s.filesIndexed } : {}),
            ...(s.skipped !== undefined ? { skipped: s.skipped } : {}),
            error: s.error ?? null,
            ...(s.scopeKey !== undefined ? { scopeKey: s.scopeKey } : {}),
          };
          // The upsert takes the row lock, so concurrent writers get distinct generations.
          const [row] = await tx
            .insert(indexState)
            .values({ workspaceId, signals: {}, skipped: {}, ...stateValues, generation: 1 })
            .onConflictDoUpdate({ target: indexState.workspaceId, set: { ...stateValues, generation: sql`${indexState.generation} + 1`, updatedAt: sql`now()` } })
            .returning({ generation: indexState.generation });
          const generation = row!.generation;
          for (const batch of chunks(changes.blobs ?? [])) {
            await tx.insert(indexBlobs).values(batch.map((b) => ({ workspaceId, ...b }))).onConflictDoNothing();
          }
          for (const batch of chunks(changes.upsert ?? [])) {
            await tx
              .insert(indexFiles)
              .values(batch.map((f) => ({ workspaceId, ...f, removed: false, generation })))
              .onConflictDoUpdate({
                target: [indexFiles.workspaceId, indexFiles.path],
                set: {
                  blobKey: sql`excluded.blob_key`,
                  sha256: sql`excluded.sha256`,
                  language: sql`excluded.language`,
                  bytes: sql`excluded.bytes`,
                  mtimeMs: sql`excluded.mtime_ms`,
                  removed: false,
                  generation,
                  updatedAt: sql`now()`,
                },
              });
          }
          for (const batch of chunks(changes.remove ?? [])) {
            await tx
              .update(indexFiles)
              .set({ removed: true, blobKey: null, sha256: null, language: null, bytes: null, mtimeMs: null, generation, updatedAt: sql`now()` })
              .where(and(eq(indexFiles.workspaceId, workspaceId), inArray(indexFiles.path, batch)));
          }
          return generation;
        }),
      ),

    filesSince: (workspaceId, generation, upTo) =>
      attempt('reading index changes', () => {
        const conditions = [eq(indexFiles.workspaceId, workspaceId), gt(indexFiles.generation, generation)];
        if (generation <= 0) conditions.push(eq(indexFiles.removed, false));
        if (upTo !== undefined) conditions.push(lte(indexFiles.generation, upTo));
        return db.select().from(indexFiles).where(and(...conditions));
      }),

    generationSizes: (workspaceId, generation) =>
      attempt('reading index changes', async () => {
        const rows = await db
          .select({ generation: indexFiles.generation, files: sql<number>`count(*)::int` })
          .from(indexFiles)
          .where(and(eq(indexFiles.workspaceId, workspaceId), gt(indexFiles.generation, generation)))
          .groupBy(indexFiles.generation)
          .orderBy(asc(indexFiles.generation));
        return rows.map((r) => ({ generation: Number(r.generation), files: Number(r.files) }));
      }),

    blobs: (workspaceId, keys) =>
      attempt('reading index contents', async () => {
        const out: IndexBlobRow[] = [];
        for (const batch of chunks(keys, 1000)) {
          out.push(...(await db.select().from(indexBlobs).where(and(eq(indexBlobs.workspaceId, workspaceId), inArray(indexBlobs.key, batch)))));
        }
        return out;
      }),

    compact: (workspaceId) =>
      attempt('compacting the repository index', async () => {
        const gone = await db
          .delete(indexBlobs)
          .where(
            and(
              eq(indexBlobs.workspaceId, workspaceId),
              sql`NOT EXISTS (SELECT 1 FROM ${indexFiles} f WHERE f.workspace_id = ${indexBlobs.workspaceId} AND f.blob_key = ${indexBlobs.key})`,
            ),
          )
          .returning({ key: indexBlobs.key });
        return gone.length;
      }),
  };
}
