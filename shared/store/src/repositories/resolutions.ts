import { createHash } from 'node:crypto';
import { and, desc, eq, isNull, or, sql, type SQL } from 'drizzle-orm';
import type { StoreDb } from '../db';
import { resolutions, type EvidenceRef, type ResolutionRow } from '../schema/resolutions';
import { attempt } from './attempt';

/** sha256 hex of a text: how prompts and drafts are referred to (spec 6.8: never the text itself). */
export function sha256Hex(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

/** Input of `ResolutionRepository.insert`. */
export interface ResolutionInput {
  /** Default: a new sortable id (the wire's `resolution_id`). */
  id?: string;
  workspaceId: string;
  /** sha256 hex of the prompt (see sha256Hex); the prompt itself is never stored. */
  promptHash: string;
  briefing?: string;
  evidence?: EvidenceRef[];
  draft?: string;
  alternativesConsidered?: unknown[];
  predictedResponse?: string;
  /** Default 0. */
  briefingTokenUsed?: number;
  /** Default 0. */
  briefingTokenBudget?: number;
  composerEventId?: string;
  details?: Record<string, unknown>;
}

/** What `sous.resolve` produced (spec 2.5). */
export interface ResolutionRepository {
  insert(input: ResolutionInput): Promise<ResolutionRow>;
  get(id: string): Promise<ResolutionRow | undefined>;
  /** Sets `composer_event_id` on adoption; undefined when no such resolution. */
  setComposerEvent(id: string, composerEventId: string): Promise<ResolutionRow | undefined>;
  /**
   * Attaches a composer event to the workspace's resolutions not yet attributed that belong to the
   * composer session `sessionId` (`details.composer_session_id`) or were served from prediction
   * `predictionId` (`details.prediction_id`). Returns the rows changed.
   */
  linkComposerEvent(workspaceId: string, match: { sessionId?: string; predictionId?: string }, composerEventId: string): Promise<ResolutionRow[]>;
  /** The workspace's newest resolutions, newest first (at most `limit`). */
  recent(workspaceId: string, limit: number): Promise<ResolutionRow[]>;
  /** The workspace's newest resolution; with `client`, the newest whose `details.client` is that client. */
  latest(workspaceId: string, client?: string): Promise<ResolutionRow | undefined>;
  /** Deletes every resolution of a workspace (their feedback goes with them); returns how many went. */
  deleteForWorkspace(workspaceId: string): Promise<number>;
}

export function createResolutionRepository(db: StoreDb): ResolutionRepository {
  return {
    insert: (input) =>
      attempt('saving the resolution', async () => {
        const [row] = await db.insert(resolutions).values(input).returning();
        return row!;
      }),
    get: (id) =>
      attempt('reading the resolution', async () => {
        const [row] = await db.select().from(resolutions).where(eq(resolutions.id, id));
        return row;
      }),
    setComposerEvent: (id, composerEventId) =>
      attempt('attaching the composer event', async () => {
        const [row] = await db.update(resolutions).set({ composerEventId }).where(eq(resolutions.id, id)).returning();
        return row;
      }),
    linkComposerEvent: (workspaceId, match, composerEventId) =>
      attempt('attaching the composer event', async () => {
        const which: SQL[] = [];
        if (match.sessionId !== undefined) which.push(sql`${resolutions.details}->>'composer_session_id' = ${match.sessionId}`);
        if (match.predictionId !== undefined) which.push(sql`${resolutions.details}->>'prediction_id' = ${match.predictionId}`);
        if (which.length === 0) return [];
        return db
          .update(resolutions)
          .set({ composerEventId })
          .where(and(eq(resolutions.workspaceId, workspaceId), isNull(resolutions.composerEventId), or(...which)))
          .returning();
      }),
    recent: (workspaceId, limit) =>
      attempt('reading recent resolutions', () =>
        db.select().from(resolutions).where(eq(resolutions.workspaceId, workspaceId)).orderBy(desc(resolutions.createdAt), desc(resolutions.id)).limit(limit),
      ),
    latest: (workspaceId, client) =>
      attempt('reading the latest resolution', async () => {
        const where = client === undefined ? eq(resolutions.workspaceId, workspaceId) : and(eq(resolutions.workspaceId, workspaceId), sql`${resolutions.details}->>'client' = ${client}`);
        const [row] = await db.select().from(resolutions).where(where).orderBy(desc(resolutions.createdAt), desc(resolutions.id)).limit(1);
        return row;
      }),
    deleteForWorkspace: (workspaceId) =>
      attempt('deleting resolutions', async () => (await db.delete(resolutions).where(eq(resolutions.workspaceId, workspaceId)).returning({ id: resolutions.id })).length),
  };
}
