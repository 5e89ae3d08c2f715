import { sql } from 'drizzle-orm';
import { check, index, integer, pgTable, primaryKey, real, text } from 'drizzle-orm/pg-core';
import { tstz } from './columns';
import { workspaces } from './workspaces';

/**
 * Chunk embeddings of the repository index (the optional semantic stage of retrieval,
 * docs/retrieval-semantic.md). One row per chunk of one file's indexed (redacted) text, per
 * embedding model. The text itself is not stored here: it is in `index_blobs`, and the lines say
 * which part of it a vector stands for.
 *
 * Vectors are `real[]` on every backend, so one schema and one migration serve PGlite and
 * PostgreSQL with or without pgvector. Where the `vector` extension is installed (migration 0003
 * enables it when the server offers it), similarity is computed in SQL by casting the array
 * (`embedding::vector`); elsewhere it is computed in process.
 */
export const chunkEmbeddings = pgTable(
  'chunk_embeddings',
  {
    workspaceId: text('workspace_id').notNull().references(() => workspaces.id, { onDelete: 'cascade' }),
    /** Embedding model the vector came from (`exploration.embedding_model`). */
    model: text('model').notNull(),
    /** Repository-relative POSIX path. */
    path: text('path').notNull(),
    /** 0-based position of the chunk in the file. */
    chunk: integer('chunk').notNull(),
    /**
     * What the chunks were cut from: a hash of the file's content, its redaction and the chunking
     * parameters. A file whose key is unchanged is not embedded again.
     */
    contentKey: text('content_key').notNull(),
    /** 1-based inclusive lines of the indexed text. */
    startLine: integer('start_line').notNull(),
    endLine: integer('end_line').notNull(),
    dims: integer('dims').notNull(),
    embedding: real('embedding').array().notNull(),
    createdAt: tstz('created_at').notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ columns: [t.workspaceId, t.model, t.path, t.chunk] }),
    index('chunk_embeddings_path_idx').on(t.workspaceId, t.path),
    check('chunk_embeddings_dims_check', sql`${t.dims} > 0 AND cardinality(${t.embedding}) = ${t.dims}`),
    check('chunk_embeddings_lines_check', sql`${t.startLine} >= 1 AND ${t.endLine} >= ${t.startLine}`),
  ],
);

export type ChunkEmbeddingRow = typeof chunkEmbeddings.$inferSelect;
