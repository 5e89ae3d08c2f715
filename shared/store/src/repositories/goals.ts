import { and, asc, eq, inArray, sql } from 'drizzle-orm';
import type { StoreDb } from '../db';
import { goals, type GoalRow, type GoalStatus } from '../schema/goals';
import { attempt } from './attempt';

/** Input of `GoalRepository.create`. */
export interface GoalInput {
  workspaceId: string;
  title: string;
  /** Default ''. */
  description?: string;
  /** Default `active`. */
  status?: GoalStatus;
  /** Workspace-relative paths. Default []. */
  relatedFiles?: string[];
  /** Default `unreconciled`. */
  reconciliationState?: string;
  details?: Record<string, unknown>;
}

/** What `GoalRepository.update` may change; absent fields stay as they are. */
export interface GoalPatch {
  status?: GoalStatus;
  reconciliationState?: string;
  details?: Record<string, unknown>;
}

/** Long-horizon goals of a workspace (spec 2.3). */
export interface GoalRepository {
  create(input: GoalInput): Promise<GoalRow>;
  get(id: string): Promise<GoalRow | undefined>;
  /** Sets the status; undefined when no such goal. */
  updateStatus(id: string, status: GoalStatus): Promise<GoalRow | undefined>;
  /** Changes status, reconciliation state and details together; undefined when no such goal. */
  update(id: string, patch: GoalPatch): Promise<GoalRow | undefined>;
  /** Goals of a workspace, oldest first; only `statuses` when given. */
  list(workspaceId: string, options?: { statuses?: GoalStatus[] }): Promise<GoalRow[]>;
  /** Deletes a goal; false when there was none. */
  delete(id: string): Promise<boolean>;
}

export function createGoalRepository(db: StoreDb): GoalRepository {
  return {
    create: (input) =>
      attempt('saving the goal', async () => {
        const [row] = await db.insert(goals).values(input).returning();
        return row!;
      }),
    get: (id) =>
      attempt('reading the goal', async () => {
        const [row] = await db.select().from(goals).where(eq(goals.id, id));
        return row;
      }),
    updateStatus: (id, status) =>
      attempt('changing the goal status', async () => {
        const [row] = await db.update(goals).set({ status, updatedAt: sql`now()` }).where(eq(goals.id, id)).returning();
        return row;
      }),
    update: (id, patch) =>
      attempt('updating the goal', async () => {
        const [row] = await db.update(goals).set({ ...patch, updatedAt: sql`now()` }).where(eq(goals.id, id)).returning();
        return row;
      }),
    list: (workspaceId, options = {}) =>
      attempt('listing goals', () => {
        const where = options.statuses?.length
          ? and(eq(goals.workspaceId, workspaceId), inArray(goals.status, options.statuses))
          : eq(goals.workspaceId, workspaceId);
        return db.select().from(goals).where(where).orderBy(asc(goals.createdAt), asc(goals.id));
      }),
    delete: (id) =>
      attempt('deleting the goal', async () => {
        const rows = await db.delete(goals).where(eq(goals.id, id)).returning({ id: goals.id });
        return rows.length > 0;
      }),
  };
}
