import { jsonb, pgTable, text } from 'drizzle-orm/pg-core';
import { idColumn, timestamps } from './columns';

/** A scoped project (repository) Sous watches, keyed by its absolute root path. */
export const workspaces = pgTable('workspaces', {
  id: idColumn(),
  /** Absolute path of the repository root; unique. */
  rootPath: text('root_path').notNull().unique(),
  /** Display name (by default the root folder's name). */
  name: text('name').notNull(),
  /** Later fields, until they earn a column. */
  details: jsonb('details').$type<Record<string, unknown>>().notNull().default({}),
  ...timestamps(),
});

export type WorkspaceRow = typeof workspaces.$inferSelect;
