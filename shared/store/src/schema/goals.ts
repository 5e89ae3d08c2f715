import { check, index, jsonb, pgTable, text } from 'drizzle-orm/pg-core';
import { idColumn, oneOf, timestamps } from './columns';
import { workspaces } from './workspaces';

/** Goal statuses (spec 2.3, 3.3). */
export const GOAL_STATUSES = ['active', 'paused', 'abandoned', 'achieved'] as const;
export type GoalStatus = (typeof GOAL_STATUSES)[number];

/** A long-horizon, user-declared intent in a workspace (spec 2.3). */
export const goals = pgTable(
  'goals',
  {
    id: idColumn(),
    workspaceId: text('workspace_id')
      .notNull()
      .references(() => workspaces.id, { onDelete: 'cascade' }),
    title: text('title').notNull(),
    description: text('description').notNull().default(''),
    status: text('status').$type<GoalStatus>().notNull().default('active'),
    /** Workspace-relative paths linked to the goal. */
    relatedFiles: jsonb('related_files').$type<string[]>().notNull().default([]),
    /** Maintained by the service when the repository changes (spec 2.3). */
    reconciliationState: text('reconciliation_state').notNull().default('unreconciled'),
    details: jsonb('details').$type<Record<string, unknown>>().notNull().default({}),
    ...timestamps(),
  },
  (t) => [
    check('goals_status_check', oneOf(t.status, GOAL_STATUSES)),
    index('goals_workspace_status_idx').on(t.workspaceId, t.status),
  ],
);

export type GoalRow = typeof goals.$inferSelect;
