import { sql } from 'drizzle-orm';
import { check, index, pgTable, text } from 'drizzle-orm/pg-core';
import { idColumn, oneOf, tstz } from './columns';
import { resolutions } from './resolutions';
import { workProducts } from './work-products';

/** Feedback values (spec 2.1, 4.1). */
export const FEEDBACK_VALUES = ['useful', 'partial', 'irrelevant', 'wrong'] as const;
export type FeedbackValue = (typeof FEEDBACK_VALUES)[number];

/** One feedback event on a card or on a resolution (exactly one of the two). */
export const feedback = pgTable(
  'feedback',
  {
    id: idColumn(),
    workProductId: text('work_product_id').references(() => workProducts.id, { onDelete: 'cascade' }),
    resolutionId: text('resolution_id').references(() => resolutions.id, { onDelete: 'cascade' }),
    value: text('value').$type<FeedbackValue>().notNull(),
    /** The `X-Sous-Client` that sent it, when known. */
    clientId: text('client_id'),
    createdAt: tstz('created_at').notNull().defaultNow(),
  },
  (t) => [
    check('feedback_value_check', oneOf(t.value, FEEDBACK_VALUES)),
    check('feedback_target_check', sql`num_nonnulls(${t.workProductId}, ${t.resolutionId}) = 1`),
    index('feedback_work_product_idx').on(t.workProductId),
    index('feedback_resolution_idx').on(t.resolutionId),
  ],
);

export type FeedbackRow = typeof feedback.$inferSelect;
