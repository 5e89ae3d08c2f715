import { sql } from 'drizzle-orm';
import { check, doublePrecision, index, integer, jsonb, pgTable, text } from 'drizzle-orm/pg-core';
import { idColumn, oneOf, timestamps, tstz } from './columns';
import { workspaces } from './workspaces';

/** Kinds of Prepared Work (spec 1). */
export const WORK_PRODUCT_KINDS = [
  'review_note',
  'bug_hypothesis',
  'docs_drift',
  'virtual_diff',
  'research_brief',
  'prediction_draft',
] as const;
export type WorkProductKind = (typeof WORK_PRODUCT_KINDS)[number];

/** Work-product states (spec 3.1); only `ready` items reach the feed. */
export const WORK_PRODUCT_STATES = ['candidate', 'hidden', 'stale', 'superseded', 'ready'] as const;
export type WorkProductState = (typeof WORK_PRODUCT_STATES)[number];

/** A Prepared Work card (spec 2.1, 2.2, 3.1). Virtual-diff fields (targets, snapshot, patch) live in `details`. */
export const workProducts = pgTable(
  'work_products',
  {
    id: idColumn(),
    workspaceId: text('workspace_id')
      .notNull()
      .references(() => workspaces.id, { onDelete: 'cascade' }),
    kind: text('kind').$type<WorkProductKind>().notNull(),
    state: text('state').$type<WorkProductState>().notNull().default('candidate'),
    title: text('title').notNull(),
    summary: text('summary').notNull().default(''),
    /** What the card hands over (markdown or patch); the only place card text is kept. */
    body: text('body').notNull().default(''),
    /** Why now, and why this angle won. */
    rationale: text('rationale').notNull().default(''),
    details: jsonb('details').$type<Record<string, unknown>>().notNull().default({}),
    /** The detector that found it (`docs_drift.removed_name`, …); feedback is counted per detector. */
    detector: text('detector').notNull().default(''),
    /** Detector, target and claim in one key: the same claim on the same target supersedes, never duplicates. */
    claimKey: text('claim_key'),
    /** Score when last landed or kept, 0..1 (diagnostic). */
    score: doublePrecision('score'),
    /** Why the card went stale or was superseded (one line). */
    stateReason: text('state_reason'),
    ...timestamps(),
  },
  (t) => [
    check('work_products_kind_check', oneOf(t.kind, WORK_PRODUCT_KINDS)),
    check('work_products_state_check', oneOf(t.state, WORK_PRODUCT_STATES)),
    index('work_products_workspace_state_idx').on(t.workspaceId, t.state),
    index('work_products_claim_idx').on(t.workspaceId, t.claimKey),
  ],
);

/**
 * One piece of evidence behind a card: a file path, an optional line range, the content hash and
 * commit it was read at. Never the file's contents.
 */
export const evidence = pgTable(
  'evidence',
  {
    id: idColumn(),
    workProductId: text('work_product_id')
      .notNull()
      .references(() => workProducts.id, { onDelete: 'cascade' }),
    /** Order within the card, from 0. */
    position: integer('position').notNull().default(0),
    /** Path relative to the workspace root. */
    path: text('path').notNull(),
    lineStart: integer('line_start'),
    lineEnd: integer('line_end'),
    /** sha256 hex of the file (or range) content when it was read. */
    contentHash: text('content_hash'),
    commit: text('commit'),
    /** A short note on what this evidence shows (not an excerpt). */
    note: text('note').notNull().default(''),
    createdAt: tstz('created_at').notNull().defaultNow(),
  },
  (t) => [
    check(
      'evidence_lines_check',
      sql`(${t.lineStart} IS NULL OR ${t.lineStart} >= 1) AND (${t.lineEnd} IS NULL OR (${t.lineStart} IS NOT NULL AND ${t.lineEnd} >= ${t.lineStart}))`,
    ),
    index('evidence_work_product_idx').on(t.workProductId, t.position),
    index('evidence_path_idx').on(t.path),
  ],
);

export type WorkProductRow = typeof workProducts.$inferSelect;
export type EvidenceRow = typeof evidence.$inferSelect;
