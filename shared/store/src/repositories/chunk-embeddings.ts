import { and, asc, eq, gt, inArray, ne, or, sql } from 'drizzle-orm';
import type { StoreDb } from '../db';
import { chunkEmbeddings } from '../schema/chunk-embeddings';
import { attempt } from './attempt';

/**
 * Rows per INSERT. A row carries a whole vector (384 to 1,536 numbers as one array parameter), so
 * batches are smaller than the index's: PGlite parses every value in one memory.
 */
const INSERT_ROWS = 100;
/** Vectors read per page when similarity is computed in process or vectors are loaded. */
export const VECTOR_PAGE_ROWS = 500;

/** One chunk's vector as the embedder hands it over. */
export interface ChunkVectorInput {
  startLine: number;
  endLine: number;
  embedding: readonly number[];
}

/** Every chunk of one file under one model; replaces what the file had. */
export interface ChunkFileInput {
  path: string;
  /** See `chunkEmbeddings.contentKey`. */
  contentKey: string;
  chunks: readonly ChunkVectorInput[];
}

/** A file with stored chunks: what the planner compares against the index. */
export interface EmbeddedFile {
  path: string;
  contentKey: string;
  chunks: number;
}

/** One stored chunk with its vector. */
export interface StoredChunkVector {
  path: string;
  chunk: number;
  startLine: number;
  endLine: number;
  embedding: number[];
}

/** One chunk found by similarity. */
export interface ChunkHit {
  path: string;
  startLine: number;
  endLine: number;
  /** Cosine similarity, -1..1. */
  similarity: number;
}

/** How similarity is computed on this store, and why. */
export interface VectorSupport {
  kind: 'pgvector' | 'array';
  /** One line for `/status`: the extension's version, or why it is not used. */
  detail: string;
}

/** Chunk embeddings of the semantic stage (schema/chunk-embeddings.ts). One writer, the daemon. */
export interface ChunkEmbeddingRepository {
  /** pgvector when the extension is enabled on this database (checked once), arrays otherwise. */
  vectorSupport(): Promise<VectorSupport>;
  /** Files with chunks under `model`, with their content key and chunk count, by path. */
  files(workspaceId: string, model: string): Promise<EmbeddedFile[]>;
  /** Replaces the chunks of each file under `model` in one transaction (a file with no chunks is cleared). */
  replaceFiles(workspaceId: string, model: string, files: readonly ChunkFileInput[]): Promise<void>;
  /** Drops every chunk of these paths, under every model; returns the rows removed. */
  removePaths(workspaceId: string, paths: readonly string[]): Promise<number>;
  /** Drops chunks of every other model (the configured model changed); returns the rows removed. */
  removeOtherModels(workspaceId: string, model: string): Promise<number>;
  /** Stored vectors of `model` in (path, chunk) order, a page at a time after `after`. */
  vectors(workspaceId: string, model: string, page?: { after?: { path: string; chunk: number }; limit?: number }): Promise<StoredChunkVector[]>;
  /** The `limit` chunks of `model` most similar to `vector` (cosine), best first; vectors of another length are ignored. */
  nearest(workspaceId: string, model: string, vector: readonly number[], limit: number): Promise<ChunkHit[]>;
  /** Files and chunks stored under `model`, and the vectors' length (null when none). */
  summary(workspaceId: string, model: string): Promise<{ files: number; chunks: number; dims: number | null }>;
}

/** Rows of a raw query (`db.execute`): node-postgres and PGlite both answer `{ rows }`. */
function rowsOf<T>(result: unknown): T[] {
  return (result as { rows?: T[] }).rows ?? [];
}

/** Where the vector type lives when pgvector is enabled, or null. */
type Pgvector = { schema: string; version: string } | null;

export function createChunkEmbeddingRepository(db: StoreDb, kind: 'postgres' | 'pglite'): ChunkEmbeddingRepository {
  let support: Promise<{ pgvector: Pgvector; detail: string }> | undefined;
  const detect = (): Promise<{ pgvector: Pgvector; detail: string }> =>
    (support ??= (async () => {
      if (kind === 'pglite') return { pgvector: null, detail: 'embedded PGlite has no pgvector: similarity is computed in process over real[] vectors' };
      const [row] = rowsOf<{ schema: string; version: string }>(
        await db.execute(sql`SELECT n.nspname AS schema, e.extversion AS version FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace WHERE e.extname = 'vector'`),
      );
      if (row) return { pgvector: { schema: row.schema, version: row.version }, detail: `pgvector ${row.version}: similarity is computed in PostgreSQL` };
      const available = rowsOf(await db.execute(sql`SELECT 1 FROM pg_available_extensions WHERE name = 'vector'`));
      return {
        pgvector: null,
        detail: available.length
          ? 'pgvector is installed but not enabled (CREATE EXTENSION vector needs a privileged role): similarity is computed in process'
          : 'pgvector is not installed on this PostgreSQL: similarity is computed in process over real[] vectors',
      };
    })().catch((err: unknown) => {
      support = undefined; // a failed check is asked again next time
      throw err;
    }));

  const forModel = (workspaceId: string, model: string) => and(eq(chunkEmbeddings.workspaceId, workspaceId), eq(chunkEmbeddings.model, model));

  const vectors: ChunkEmbeddingRepository['vectors'] = (workspaceId, model, page = {}) =>
    attempt('reading chunk embeddings', async () => {
      const after = page.after;
      const rows = await db
        .select({ path: chunkEmbeddings.path, chunk: chunkEmbeddings.chunk, startLine: chunkEmbeddings.startLine, endLine: chunkEmbeddings.endLine, embedding: chunkEmbeddings.embedding })
        .from(chunkEmbeddings)
        .where(
          after === undefined
            ? forModel(workspaceId, model)
            : and(forModel(workspaceId, model), or(gt(chunkEmbeddings.path, after.path), and(eq(chunkEmbeddings.path, after.path), gt(chunkEmbeddings.chunk, after.chunk)))),
        )
        .orderBy(asc(chunkEmbeddings.path), asc(chunkEmbeddings.chunk))
        .limit(page.limit ?? VECTOR_PAGE_ROWS);
      return rows.map((r) => ({ ...r, embedding: r.embedding.map(Number) }));
    });

  return {
    vectorSupport: () =>
      attempt('checking for pgvector', async () => {
        const s = await detect();
        return { kind: s.pgvector ? 'pgvector' : 'array', detail: s.detail };
      }),

    files: (workspaceId, model) =>
      attempt('reading chunk embeddings', async () => {
        const rows = await db
          .select({ path: chunkEmbeddings.path, contentKey: sql<string>`min(${chunkEmbeddings.contentKey})`, chunks: sql<number>`count(*)::int` })
          .from(chunkEmbeddings)
          .where(forModel(workspaceId, model))
          .groupBy(chunkEmbeddings.path)
          .orderBy(asc(chunkEmbeddings.path));
        return rows.map((r) => ({ path: r.path, contentKey: r.contentKey, chunks: Number(r.chunks) }));
      }),

    replaceFiles: (workspaceId, model, files) =>
      attempt('writing chunk embeddings', () =>
        db.transaction(async (tx) => {
          const paths = files.map((f) => f.path);
          for (let i = 0; i < paths.length; i += 1000) {
            await tx.delete(chunkEmbeddings).where(and(forModel(workspaceId, model), inArray(chunkEmbeddings.path, paths.slice(i, i + 1000))));
          }
          const rows = files.flatMap((f) =>
            f.chunks.map((c, chunk) => ({
              workspaceId,
              model,
              path: f.path,
              chunk,
              contentKey: f.contentKey,
              startLine: c.startLine,
              endLine: c.endLine,
              dims: c.embedding.length,
              embedding: [...c.embedding],
            })),
          );
          for (let i = 0; i < rows.length; i += INSERT_ROWS) await tx.insert(chunkEmbeddings).values(rows.slice(i, i + INSERT_ROWS));
        }),
      ),

    removePaths: (workspaceId, paths) =>
      attempt('removing chunk embeddings', async () => {
        let removed = 0;
        for (let i = 0; i < paths.length; i += 1000) {
          const gone = await db
            .delete(chunkEmbeddings)
            .where(and(eq(chunkEmbeddings.workspaceId, workspaceId), inArray(chunkEmbeddings.path, paths.slice(i, i + 1000))))
            .returning({ path: chunkEmbeddings.path });
          removed += gone.length;
        }
        return removed;
      }),

    removeOtherModels: (workspaceId, model) =>
      attempt('removing chunk embeddings', async () => {
        const gone = await db
          .delete(chunkEmbeddings)
          .where(and(eq(chunkEmbeddings.workspaceId, workspaceId), ne(chunkEmbeddings.model, model)))
          .returning({ path: chunkEmbeddings.path });
        return gone.length;
      }),

    vectors,

    nearest: (workspaceId, model, vector, limit) =>
      attempt('searching chunk embeddings', async () => {
        if (vector.length === 0 || limit <= 0) return [];
        const { pgvector } = await detect();
        if (pgvector) return nearestInSql(db, pgvector.schema, workspaceId, model, vector, limit);
        return nearestInProcess((after) => vectors(workspaceId, model, after ? { after } : {}), vector, limit);
      }),

    summary: (workspaceId, model) =>
      attempt('reading chunk embeddings', async () => {
        const [row] = await db
          .select({ files: sql<number>`count(DISTINCT ${chunkEmbeddings.path})::int`, chunks: sql<number>`count(*)::int`, dims: sql<number | null>`max(${chunkEmbeddings.dims})` })
          .from(chunkEmbeddings)
          .where(forModel(workspaceId, model));
        return { files: Number(row?.files ?? 0), chunks: Number(row?.chunks ?? 0), dims: row?.dims === null || row?.dims === undefined ? null : Number(row.dims) };
      }),
  };
}

/** pgvector's cosine distance (`<=>`) over the cast arrays; the type and operator named in their schema. */
async function nearestInSql(db: StoreDb, schema: string, workspaceId: string, model: string, vector: readonly number[], limit: number): Promise<ChunkHit[]> {
  const ns = `"${schema.replace(/"/g, '""')}"`;
  const type = sql.raw(`${ns}.vector`);
  // The query goes over as real[] and is cast like the stored arrays (pgvector casts real[] to vector).
  const distance = sql`(${chunkEmbeddings.embedding}::${type} OPERATOR(${sql.raw(`${ns}.<=>`)}) ${`{${vector.join(',')}}`}::real[]::${type})`;
  const rows = await db
    .select({ path: chunkEmbeddings.path, startLine: chunkEmbeddings.startLine, endLine: chunkEmbeddings.endLine, distance: sql<number>`${distance}` })
    .from(chunkEmbeddings)
    .where(and(eq(chunkEmbeddings.workspaceId, workspaceId), eq(chunkEmbeddings.model, model), eq(chunkEmbeddings.dims, vector.length)))
    .orderBy(distance)
    .limit(limit);
  return rows.map((r) => ({ path: r.path, startLine: r.startLine, endLine: r.endLine, similarity: 1 - Number(r.distance) }));
}

/** Cosine over every stored vector of the model, a page at a time; a few thousand chunks take milliseconds. */
async function nearestInProcess(
  page: (after?: { path: string; chunk: number }) => Promise<StoredChunkVector[]>,
  vector: readonly number[],
  limit: number,
): Promise<ChunkHit[]> {
  const queryNorm = Math.hypot(...vector);
  const hits: ChunkHit[] = [];
  let after: { path: string; chunk: number } | undefined;
  for (;;) {
    const rows = await page(after);
    for (const row of rows) {
      if (row.embedding.length !== vector.length) continue;
      let dot = 0;
      let norm = 0;
      for (let i = 0; i < vector.length; i++) {
        const v = row.embedding[i] as number;
        dot += v * (vector[i] as number);
        norm += v * v;
      }
      const similarity = queryNorm === 0 || norm === 0 ? 0 : dot / (queryNorm * Math.sqrt(norm));
      hits.push({ path: row.path, startLine: row.startLine, endLine: row.endLine, similarity });
    }
    const last = rows.at(-1);
    if (last === undefined || rows.length < VECTOR_PAGE_ROWS) break;
    after = { path: last.path, chunk: last.chunk };
  }
  return hits.sort((a, b) => b.similarity - a.similarity || a.path.localeCompare(b.path) || a.startLine - b.startLine).slice(0, limit);
}
