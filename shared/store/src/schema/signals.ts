import { check, index, jsonb, pgTable, text } from 'drizzle-orm/pg-core';
import { idColumn, oneOf, tstz } from './columns';
import { workspaces } from './workspaces';

/** Signal kinds: composer lifecycle events (spec 2.7, 6.1) and the engine's invalidation signals (6.6). */
export const SIGNAL_KINDS = ['composer_lifecycle', 'file_change', 'commit', 'category_shift', 'adoption'] as const;
export type SignalKind = (typeof SIGNAL_KINDS)[number];

/** An append-only log of signals. Payloads carry hashes and identifiers, never raw draft text. */
export const signalEvents = pgTable(
  'signal_events',
  {
    id: idColumn(),
    workspaceId: text('workspace_id').references(() => workspaces.id, { onDelete: 'cascade' }),
    kind: text('kind').$type<SignalKind>().notNull(),
    payload: jsonb('payload').$type<Record<string, unknown>>().notNull(),
    occurredAt: tstz('occurred_at').notNull().defaultNow(),
  },
  (t) => [
    check('signal_events_kind_check', oneOf(t.kind, SIGNAL_KINDS)),
    index('signal_events_kind_time_idx').on(t.kind, t.occurredAt),
    index('signal_events_workspace_time_idx').on(t.workspaceId, t.occurredAt),
  ],
);

export type SignalEventRow = typeof signalEvents.$inferSelect;
