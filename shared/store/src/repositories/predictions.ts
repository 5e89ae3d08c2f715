import { and, desc, eq, inArray, ne, sql } from 'drizzle-orm';
import type { StoreDb } from '../db';
import { clampLimit } from '../defaults';
import {
  predictions,
  type PredictionRow,
  type PredictionSource,
  type PredictionState,
  type StaleReason,
} from '../schema/predictions';
import { attempt } from './attempt';

/** Input of `PredictionRepository.insert`. */
export interface PredictionInput {
  workspaceId: string;
  source: PredictionSource;
  title: string;
  summary?: string;
  /** Default 1. */
  weight?: number;
  /** Default `drafting`. */
  state?: PredictionState;
  goalId?: string;
  composerSessionId?: string;
  /** path → sha256 hex of the content the prediction was made against. Default {}. */
  pathHashes?: Record<string, string>;
  details?: Record<string, unknown>;
}

/** The prediction registry (spec 2.4). */
export interface PredictionRepository {
  insert(input: PredictionInput): Promise<PredictionRow>;
  get(id: string): Promise<PredictionRow | undefined>;
  /** Predictions of a workspace, most recently updated first. Default limit 50, at most 500. */
  list(workspaceId: string, options?: { states?: PredictionState[]; limit?: number }): Promise<PredictionRow[]>;
  /**
   * Marks predictions stale for `reason` (no wall-clock decay: only signals do this). Already-stale
   * ones keep their first reason. Returns how many changed.
   */
  markStale(ids: string[], reason: StaleReason): Promise<number>;
  /**
   * Marks every not-yet-stale prediction of one composer session stale for `reason` and clears its
   * briefing (`summary`): the draft it was derived from is gone (spec 3.5). Returns how many changed.
   */
  markSessionStale(workspaceId: string, composerSessionId: string, reason: StaleReason): Promise<number>;
  /** Changes one prediction; undefined when there is none. */
  update(id: string, patch: PredictionPatch): Promise<PredictionRow | undefined>;
  /** Deletes predictions (e.g. of a goal no longer active); returns how many went. */
  delete(ids: string[]): Promise<number>;
}

/** What `PredictionRepository.update` may change. */
export type PredictionPatch = Partial<Pick<PredictionInput, 'title' | 'summary' | 'weight' | 'state' | 'pathHashes' | 'details'>> & {
  /** Set with state `stale` (staleAt becomes now); null clears it. */
  staleReason?: StaleReason | null;
};

export function createPredictionRepository(db: StoreDb): PredictionRepository {
  return {
    insert: (input) =>
      attempt('saving the prediction', async () => {
        const [row] = await db.insert(predictions).values(input).returning();
        return row!;
      }),
    get: (id) =>
      attempt('reading the prediction', async () => {
        const [row] = await db.select().from(predictions).where(eq(predictions.id, id));
        return row;
      }),
    list: (workspaceId, options = {}) =>
      attempt('listing predictions', () => {
        const where = options.states?.length
          ? and(eq(predictions.workspaceId, workspaceId), inArray(predictions.state, options.states))
          : eq(predictions.workspaceId, workspaceId);
        return db
          .select()
          .from(predictions)
          .where(where)
          .orderBy(desc(predictions.updatedAt), desc(predictions.id))
          .limit(clampLimit(options.limit));
      }),
    markStale: (ids, reason) =>
      attempt('marking predictions stale', async () => {
        if (ids.length === 0) return 0;
        const rows = await db
          .update(predictions)
          .set({ state: 'stale', staleReason: reason, staleAt: sql`now()`, updatedAt: sql`now()` })
          .where(and(inArray(predictions.id, ids), ne(predictions.state, 'stale')))
          .returning({ id: predictions.id });
        return rows.length;
      }),
    markSessionStale: (workspaceId, composerSessionId, reason) =>
      attempt('marking the composer session\'s predictions stale', async () => {
        const rows = await db
          .update(predictions)
          .set({ state: 'stale', staleReason: reason, staleAt: sql`now()`, summary: '', updatedAt: sql`now()` })
          .where(
            and(
              eq(predictions.workspaceId, workspaceId),
              eq(predictions.composerSessionId, composerSessionId),
              ne(predictions.state, 'stale'),
            ),
          )
          .returning({ id: predictions.id });
        return rows.length;
      }),
    update: (id, patch) =>
      attempt('updating the prediction', async () => {
        const { staleReason, ...rest } = patch;
        const stale = staleReason === undefined ? {} : staleReason === null ? { staleReason: null, staleAt: null } : { staleReason, staleAt: sql`now()` };
        const [row] = await db
          .update(predictions)
          .set({ ...rest, ...stale, updatedAt: sql`now()` })
          .where(eq(predictions.id, id))
          .returning();
        return row;
      }),
    delete: (ids) =>
      attempt('deleting predictions', async () => {
        if (ids.length === 0) return 0;
        const rows = await db.delete(predictions).where(inArray(predictions.id, ids)).returning({ id: predictions.id });
        return rows.length;
      }),
  };
}
