import { bigint, boolean, check, doublePrecision, index, integer, jsonb, pgTable, primaryKey, text } from 'drizzle-orm/pg-core';
import { oneOf, tstz } from './columns';
import { workspaces } from './workspaces';

/**
 * The repository index (retrieval): the daemon writes, the context API and proxy read. Files point
 * at content-addressed blobs, so a branch switch back and forth stores nothing twice. Every write
 * bumps the workspace's generation; readers ask for rows newer than the generation they hold.
 */

/** Lifecycle of a workspace's index, as `/status` reports it. */
export const INDEX_STATES = ['indexing', 'ready', 'failed'] as const;
export type IndexState = (typeof INDEX_STATES)[number];

/** One distinct content (sha256 + language): its redacted text and parsed symbols. */
export const indexBlobs = pgTable(
  'index_blobs',
  {
    workspaceId: text('workspace_id').notNull().references(() => workspaces.id, { onDelete: 'cascade' }),
    /** `<sha256>:<language>`. */
    key: text('key').notNull(),
    /** Redacted text (privacy.redact_patterns applied before it is stored). */
    text: text('text').notNull(),
    /** Definitions and import sources (`FileSymbols` without references). */
    symbols: jsonb('symbols').$type<Record<string, unknown>>().notNull(),
    createdAt: tstz('created_at').notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.workspaceId, t.key] })],
);

/** One indexed path; removed paths stay as tombstones so readers see the removal. */
export const indexFiles = pgTable(
  'index_files',
  {
    workspaceId: text('workspace_id').notNull().references(() => workspaces.id, { onDelete: 'cascade' }),
    path: text('path').notNull(),
    /** Null on a tombstone. */
    blobKey: text('blob_key'),
    sha256: text('sha256'),
    language: text('language'),
    bytes: integer('bytes'),
    /** mtime when read, so a restart re-reads only files whose size or mtime moved. */
    mtimeMs: doublePrecision('mtime_ms'),
    removed: boolean('removed').notNull().default(false),
    generation: bigint('generation', { mode: 'number' }).notNull(),
    updatedAt: tstz('updated_at').notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.workspaceId, t.path] }), index('index_files_generation_idx').on(t.workspaceId, t.generation)],
);

/** Per workspace: generation counter, git signals, counters and state. */
export const indexState = pgTable(
  'index_state',
  {
    workspaceId: text('workspace_id').primaryKey().references(() => workspaces.id, { onDelete: 'cascade' }),
    state: text('state').$type<IndexState>().notNull(),
    generation: bigint('generation', { mode: 'number' }).notNull().default(0),
    head: text('head'),
    /** Recency per path and co-change neighbours, as the ranking uses them. */
    signals: jsonb('signals').$type<Record<string, unknown>>().notNull(),
    filesIndexed: integer('files_indexed').notNull().default(0),
    /** Listed files not indexed, counted by reason. */
    skipped: jsonb('skipped').$type<Record<string, number>>().notNull(),
    /** One line when state is failed. */
    error: text('error'),
    /** Fingerprint of the privacy scope the stored texts were read under; another scope re-reads everything. */
    scopeKey: text('scope_key'),
    updatedAt: tstz('updated_at').notNull().defaultNow(),
  },
  (t) => [check('index_state_state_check', oneOf(t.state, INDEX_STATES))],
);

export type IndexBlobRow = typeof indexBlobs.$inferSelect;
export type IndexFileRow = typeof indexFiles.$inferSelect;
export type IndexStateRow = typeof indexState.$inferSelect;
