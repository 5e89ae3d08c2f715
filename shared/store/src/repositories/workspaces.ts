import * as path from 'node:path';
import { asc, eq, sql } from 'drizzle-orm';
import type { StoreDb } from '../db';
import { workspaces, type WorkspaceRow } from '../schema/workspaces';
import { attempt } from './attempt';

/** Input of `WorkspaceRepository.upsertByRoot`. */
export interface WorkspaceInput {
  /** Absolute repository root; relative paths are resolved against the current directory. */
  rootPath: string;
  /** Display name. Default: the root folder's name (kept as is on update when omitted). */
  name?: string;
  /** Replaces `details` when given; kept as is on update when omitted. */
  details?: Record<string, unknown>;
}

/** Workspaces, keyed by their root path. */
export interface WorkspaceRepository {
  /** Inserts the workspace of `rootPath`, or updates the existing one; returns the row either way. */
  upsertByRoot(input: WorkspaceInput): Promise<WorkspaceRow>;
  get(id: string): Promise<WorkspaceRow | undefined>;
  getByRoot(rootPath: string): Promise<WorkspaceRow | undefined>;
  /** Every workspace, by root path. */
  list(): Promise<WorkspaceRow[]>;
}

export function createWorkspaceRepository(db: StoreDb): WorkspaceRepository {
  return {
    upsertByRoot: (input) =>
      attempt('saving the workspace', async () => {
        const rootPath = path.resolve(input.rootPath);
        const name = input.name ?? (path.basename(rootPath) || rootPath);
        const [row] = await db
          .insert(workspaces)
          .values({ rootPath, name, details: input.details ?? {} })
          .onConflictDoUpdate({
            target: workspaces.rootPath,
            set: {
              ...(input.name !== undefined ? { name } : {}),
              ...(input.details !== undefined ? { details: input.details } : {}),
              updatedAt: sql`now()`,
            },
          })
          .returning();
        return row!;
      }),
    get: (id) =>
      attempt('reading the workspace', async () => {
        const [row] = await db.select().from(workspaces).where(eq(workspaces.id, id));
        return row;
      }),
    getByRoot: (rootPath) =>
      attempt('reading the workspace', async () => {
        const [row] = await db.select().from(workspaces).where(eq(workspaces.rootPath, path.resolve(rootPath)));
        return row;
      }),
    list: () => attempt('listing workspaces', () => db.select().from(workspaces).orderBy(asc(workspaces.rootPath))),
  };
}
