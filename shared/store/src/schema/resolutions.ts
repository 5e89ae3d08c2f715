import { sql } from 'drizzle-orm';
import { check, index, integer, jsonb, pgTable, text } from 'drizzle-orm/pg-core';
import { tstz } from './columns';
import { newId } from '../ids';
import { workspaces } from './workspaces';

/** A reference to evidence a resolution used (same shape as an `evidence` row, without the card). */
export interface EvidenceRef {
  path: string;
  lineStart?: number;
  lineEnd?: number;
  contentHash?: string;
  commit?: string;
}

/**
 * What `sous.resolve` produced for one prompt (spec 2.5). The prompt itself is never stored, only its
 * sha256 (spec 6.8).
 */
export const resolutions = pgTable(
  'resolutions',
  {
    /** `resolution_id` on the wire; feedback refers to it. */
    id: text('id').primaryKey().$defaultFn(() => newId()),
    workspaceId: text('workspace_id')
      .notNull()
      .references(() => workspaces.id, { onDelete: 'cascade' }),
    /** sha256 hex of the prompt. */
    promptHash: text('prompt_hash').notNull(),
    briefing: text('briefing').notNull().default(''),
    evidence: jsonb('evidence').$type<EvidenceRef[]>().notNull().default([]),
    draft: text('draft'),
    alternativesConsidered: jsonb('alternatives_considered').$type<unknown[]>().notNull().default([]),
    predictedResponse: text('predicted_response'),
    briefingTokenUsed: integer('briefing_token_used').notNull().default(0),
    briefingTokenBudget: integer('briefing_token_budget').notNull().default(0),
    /** Set on adoption so hit/miss telemetry attributes to the originating composer event. */
    composerEventId: text('composer_event_id'),
    details: jsonb('details').$type<Record<string, unknown>>().notNull().default({}),
    createdAt: tstz('created_at').notNull().defaultNow(),
  },
  (t) => [
    check('resolutions_prompt_hash_check', sql`${t.promptHash} ~ '^[0-9a-f]{64}$'`),
    check('resolutions_tokens_check', sql`${t.briefingTokenUsed} >= 0 AND ${t.briefingTokenBudget} >= 0`),
    index('resolutions_workspace_idx').on(t.workspaceId, t.createdAt),
  ],
);

export type ResolutionRow = typeof resolutions.$inferSelect;
