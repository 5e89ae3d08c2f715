import { desc, eq, inArray, sql, type SQL, type SQLWrapper } from 'drizzle-orm';
import type { StoreDb } from '../db';
import { clampLimit } from '../defaults';
import { StoreError } from '../errors';
import { jobs, type JobRecordState, type JobRow } from '../schema/jobs';
import { attempt } from './attempt';

/** A job-state record as the job queue reports it (`JobInfo` of @sous/jobs); timestamps ISO 8601 or Date. */
export interface JobStateRecord {
  id: string;
  name: string;
  state: JobRecordState;
  payload: unknown;
  error?: string;
  progress?: number;
  result?: unknown;
  createdAt: string | Date;
  startedAt?: string | Date;
  finishedAt?: string | Date;
}

/** The mirrored job history. */
export interface JobRepository {
  /**
   * Inserts or replaces the job's last known state (created_at is kept from the first write). A state
   * never goes back (queued < running < final): with several processes the enqueuer's `queued` may
   * land after the runner's `running` or final write, and is then ignored.
   */
  upsert(record: JobStateRecord): Promise<JobRow>;
  get(id: string): Promise<JobRow | undefined>;
  /** Newest jobs first. Default limit 50, at most 500. */
  listRecent(options?: { states?: JobRecordState[]; limit?: number }): Promise<JobRow[]>;
}

/** Where a state is in a job's life: 0 queued, 1 running, 2 any final state. */
const STATE_RANK = (column: SQLWrapper): SQL => sql`(case ${column} when 'queued' then 0 when 'running' then 1 else 2 end)`;

function toDate(value: string | Date, field: string, id: string): Date {
  const date = value instanceof Date ? value : new Date(value);
  if (Number.isNaN(date.getTime())) {
    throw new StoreError('store_invalid_value', `job ${id}: ${field} is not a valid timestamp; send ISO 8601 UTC`);
  }
  return date;
}

function optionalDate(value: string | Date | undefined, field: string, id: string): Date | null {
  return value === undefined ? null : toDate(value, field, id);
}

export function createJobRepository(db: StoreDb): JobRepository {
  return {
    upsert: (record) =>
      attempt('saving the job state', async () => {
        const values = {
          id: record.id,
          name: record.name,
          state: record.state,
          payload: record.payload ?? null,
          error: record.error ?? null,
          progress: record.progress ?? null,
          result: record.result ?? null,
          createdAt: toDate(record.createdAt, 'createdAt', record.id),
          startedAt: optionalDate(record.startedAt, 'startedAt', record.id),
          finishedAt: optionalDate(record.finishedAt, 'finishedAt', record.id),
        };
        const { id: _id, createdAt: _created, ...changes } = values;
        const [row] = await db
          .insert(jobs)
          .values(values)
          .onConflictDoUpdate({ target: jobs.id, set: { ...changes, updatedAt: sql`now()` }, setWhere: sql`${STATE_RANK(sql.raw('excluded.state'))} >= ${STATE_RANK(jobs.state)}` })
          .returning();
        if (row) return row;
        const [kept] = await db.select().from(jobs).where(eq(jobs.id, record.id));
        return kept!;
      }),
    get: (id) =>
      attempt('reading the job', async () => {
        const [row] = await db.select().from(jobs).where(eq(jobs.id, id));
        return row;
      }),
    listRecent: (options = {}) =>
      attempt('listing jobs', () => {
        const query = db.select().from(jobs);
        const filtered = options.states?.length ? query.where(inArray(jobs.state, options.states)) : query;
        return filtered.orderBy(desc(jobs.createdAt), desc(jobs.id)).limit(clampLimit(options.limit));
      }),
  };
}
