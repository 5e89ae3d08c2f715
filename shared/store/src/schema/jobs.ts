import { check, doublePrecision, index, jsonb, pgTable, text } from 'drizzle-orm/pg-core';
import { oneOf, tstz } from './columns';

/** Job states, as `@sous/jobs` reports them. */
export const JOB_RECORD_STATES = ['queued', 'running', 'completed', 'failed', 'timed_out', 'cancelled'] as const;
export type JobRecordState = (typeof JOB_RECORD_STATES)[number];

/** The last known state of each job, mirrored from the job queue so status survives restarts. */
export const jobs = pgTable(
  'jobs',
  {
    /** The queue's job id (kept as given). */
    id: text('id').primaryKey(),
    name: text('name').notNull(),
    state: text('state').$type<JobRecordState>().notNull(),
    payload: jsonb('payload').$type<unknown>(),
    error: text('error'),
    progress: doublePrecision('progress'),
    result: jsonb('result').$type<unknown>(),
    createdAt: tstz('created_at').notNull(),
    startedAt: tstz('started_at'),
    finishedAt: tstz('finished_at'),
    updatedAt: tstz('updated_at').notNull().defaultNow(),
  },
  (t) => [
    check('jobs_state_check', oneOf(t.state, JOB_RECORD_STATES)),
    index('jobs_state_idx').on(t.state),
    index('jobs_created_idx').on(t.createdAt),
  ],
);

export type JobRow = typeof jobs.$inferSelect;
