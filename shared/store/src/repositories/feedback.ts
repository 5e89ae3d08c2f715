import { asc, eq, inArray, or, sql } from 'drizzle-orm';
import { resolutions } from '../schema/resolutions';
import type { StoreDb } from '../db';
import { feedback, type FeedbackRow, type FeedbackValue } from '../schema/feedback';
import { workProducts } from '../schema/work-products';
import { attempt } from './attempt';

/** Input of `FeedbackRepository.record`: exactly one of `workProductId` and `resolutionId`. */
export type FeedbackInput = {
  value: FeedbackValue;
  /** The `X-Sous-Client` that sent it, when known. */
  clientId?: string;
} & ({ workProductId: string; resolutionId?: undefined } | { resolutionId: string; workProductId?: undefined });

/** Feedback on cards and resolutions. */
export interface FeedbackRepository {
  record(input: FeedbackInput): Promise<FeedbackRow>;
  /** Feedback on one card, oldest first. */
  listForProduct(workProductId: string): Promise<FeedbackRow[]>;
  /** Feedback on one resolution, oldest first. */
  listForResolution(resolutionId: string): Promise<FeedbackRow[]>;
  /** Feedback on several resolutions, oldest first. */
  listForResolutions(resolutionIds: string[]): Promise<FeedbackRow[]>;
  /** Feedback on a workspace's cards, counted per detector and value (what scoring learns from). */
  countsByDetector(workspaceId: string): Promise<Map<string, Record<FeedbackValue, number>>>;
  /** Deletes all feedback on a workspace's cards and resolutions; returns how many went. */
  deleteForWorkspace(workspaceId: string): Promise<number>;
}

export function createFeedbackRepository(db: StoreDb): FeedbackRepository {
  return {
    deleteForWorkspace: (workspaceId) =>
      attempt('deleting feedback', async () => {
        const cards = db.select({ id: workProducts.id }).from(workProducts).where(eq(workProducts.workspaceId, workspaceId));
        const asked = db.select({ id: resolutions.id }).from(resolutions).where(eq(resolutions.workspaceId, workspaceId));
        const rows = await db.delete(feedback).where(or(inArray(feedback.workProductId, cards), inArray(feedback.resolutionId, asked))).returning({ id: feedback.id });
        return rows.length;
      }),
    record: (input) =>
      attempt('recording feedback', async () => {
        const [row] = await db
          .insert(feedback)
          .values({
            value: input.value,
            clientId: input.clientId ?? null,
            workProductId: input.workProductId ?? null,
            resolutionId: input.resolutionId ?? null,
          })
          .returning();
        return row!;
      }),
    listForProduct: (workProductId) =>
      attempt('listing feedback', () =>
        db.select().from(feedback).where(eq(feedback.workProductId, workProductId)).orderBy(asc(feedback.createdAt), asc(feedback.id)),
      ),
    countsByDetector: (workspaceId) =>
      attempt('counting feedback', async () => {
        const rows = await db
          .select({ detector: workProducts.detector, value: feedback.value, n: sql<number>`count(*)::int` })
          .from(feedback)
          .innerJoin(workProducts, eq(feedback.workProductId, workProducts.id))
          .where(eq(workProducts.workspaceId, workspaceId))
          .groupBy(workProducts.detector, feedback.value);
        const out = new Map<string, Record<FeedbackValue, number>>();
        for (const row of rows) {
          const counts = out.get(row.detector) ?? { useful: 0, partial: 0, irrelevant: 0, wrong: 0 };
          counts[row.value] = Number(row.n);
          out.set(row.detector, counts);
        }
        return out;
      }),
    listForResolutions: (resolutionIds) =>
      attempt('listing feedback', async () =>
        resolutionIds.length === 0 ? [] : db.select().from(feedback).where(inArray(feedback.resolutionId, resolutionIds)).orderBy(asc(feedback.createdAt), asc(feedback.id)),
      ),
    listForResolution: (resolutionId) =>
      attempt('listing feedback', () =>
        db.select().from(feedback).where(eq(feedback.resolutionId, resolutionId)).orderBy(asc(feedback.createdAt), asc(feedback.id)),
      ),
  };
}
