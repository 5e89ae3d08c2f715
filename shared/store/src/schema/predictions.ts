import { sql } from 'drizzle-orm';
import { check, doublePrecision, index, jsonb, pgTable, text } from 'drizzle-orm/pg-core';
import { idColumn, oneOf, timestamps, tstz } from './columns';
import { goals } from './goals';
import { workspaces } from './workspaces';

/** Prediction sources (spec 2.4). */
export const PREDICTION_SOURCES = ['goal', 'composer_intent', 'arc', 'pattern', 'history'] as const;
export type PredictionSource = (typeof PREDICTION_SOURCES)[number];

/** Prediction states: drafting → ready; any → stale on an invalidation signal; ready → adopted. */
export const PREDICTION_STATES = ['drafting', 'ready', 'stale', 'adopted'] as const;
export type PredictionState = (typeof PREDICTION_STATES)[number];

/** Why a prediction went stale: the four invalidation signals (spec 2.4) and a cleared/abandoned draft (3.5). */
export const STALE_REASONS = ['file_change', 'commit', 'category_shift', 'adoption', 'draft_cleared', 'draft_abandoned'] as const;
export type StaleReason = (typeof STALE_REASONS)[number];

/** One entry of the prediction registry (spec 2.4); it survives precompute cycles. */
export const predictions = pgTable(
  'predictions',
  {
    id: idColumn(),
    workspaceId: text('workspace_id')
      .notNull()
      .references(() => workspaces.id, { onDelete: 'cascade' }),
    source: text('source').$type<PredictionSource>().notNull(),
    goalId: text('goal_id').references(() => goals.id, { onDelete: 'set null' }),
    /** Composer `session_id` for `composer_intent` predictions. */
    composerSessionId: text('composer_session_id'),
    title: text('title').notNull(),
    summary: text('summary').notNull().default(''),
    weight: doublePrecision('weight').notNull().default(1),
    state: text('state').$type<PredictionState>().notNull().default('drafting'),
    staleReason: text('stale_reason').$type<StaleReason>(),
    staleAt: tstz('stale_at'),
    /** Per-path content hashes (path → sha256 hex) the prediction was made against. */
    pathHashes: jsonb('path_hashes').$type<Record<string, string>>().notNull().default({}),
    details: jsonb('details').$type<Record<string, unknown>>().notNull().default({}),
    ...timestamps(),
  },
  (t) => [
    check('predictions_source_check', oneOf(t.source, PREDICTION_SOURCES)),
    check('predictions_state_check', oneOf(t.state, PREDICTION_STATES)),
    check('predictions_stale_reason_check', sql`${t.staleReason} IS NULL OR ${oneOf(t.staleReason, STALE_REASONS)}`),
    index('predictions_workspace_state_idx').on(t.workspaceId, t.state),
    index('predictions_goal_idx').on(t.goalId),
  ],
);

export type PredictionRow = typeof predictions.$inferSelect;
