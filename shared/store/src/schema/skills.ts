import { sql } from 'drizzle-orm';
import { check, index, integer, pgTable, primaryKey, text } from 'drizzle-orm/pg-core';
import { idColumn, oneOf, tstz } from './columns';
import { FEEDBACK_VALUES, type FeedbackValue } from './feedback';
import { workspaces } from './workspaces';

/**
 * Skills (docs/skills.md): what the skills loop has learned about each discovered skill, explicit
 * feedback on skills, and which feedback events the loop has consumed. Skills themselves (their
 * folders and SKILL.md text) are never stored: discovery reads them again; only their opaque id is.
 */

/** One skill's learned state in a workspace: feedback counts (the weight is computed from them) and the user's influence. */
export const skillStates = pgTable(
  'skill_states',
  {
    workspaceId: text('workspace_id')
      .notNull()
      .references(() => workspaces.id, { onDelete: 'cascade' }),
    /** The skill's opaque id (`skill_<hex>`): a hash of its zone and folder, never its text. */
    skillId: text('skill_id').notNull(),
    useful: integer('useful').notNull().default(0),
    partial: integer('partial').notNull().default(0),
    irrelevant: integer('irrelevant').notNull().default(0),
    wrong: integer('wrong').notNull().default(0),
    /** Set when the user dismissed the skill (never suggested nor named until restored). */
    dismissedAt: tstz('dismissed_at'),
    updatedAt: tstz('updated_at').notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ columns: [t.workspaceId, t.skillId] }),
    check('skill_states_counts_check', sql`${t.useful} >= 0 AND ${t.partial} >= 0 AND ${t.irrelevant} >= 0 AND ${t.wrong} >= 0`),
  ],
);

/** Explicit feedback on one skill (`POST /skills/{id}/feedback`, `sous.artefacts.influence`): an event the loop consumes. */
export const skillFeedback = pgTable(
  'skill_feedback',
  {
    id: idColumn(),
    workspaceId: text('workspace_id')
      .notNull()
      .references(() => workspaces.id, { onDelete: 'cascade' }),
    skillId: text('skill_id').notNull(),
    value: text('value').$type<FeedbackValue>().notNull(),
    clientId: text('client_id'),
    createdAt: tstz('created_at').notNull().defaultNow(),
  },
  (t) => [check('skill_feedback_value_check', oneOf(t.value, FEEDBACK_VALUES)), index('skill_feedback_workspace_idx').on(t.workspaceId, t.createdAt)],
);

/**
 * The loop's cursor: every feedback event (a `feedback` row or a `skill_feedback` row) it has read.
 * A set rather than a timestamp: an event whose insert commits after a later-stamped one is still read once.
 */
export const skillLoopEvents = pgTable(
  'skill_loop_events',
  {
    workspaceId: text('workspace_id')
      .notNull()
      .references(() => workspaces.id, { onDelete: 'cascade' }),
    eventId: text('event_id').notNull(),
    consumedAt: tstz('consumed_at').notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.workspaceId, t.eventId] })],
);

export type SkillStateRow = typeof skillStates.$inferSelect;
export type SkillFeedbackRow = typeof skillFeedback.$inferSelect;
