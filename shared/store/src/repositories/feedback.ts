import { asc, eq } from 'drizzle-orm';
import type { StoreDb } from '../db';
import { feedback, type FeedbackRow, type FeedbackValue } from '../schema/feedback';
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
}

export function createFeedbackRepository(db: StoreDb): FeedbackRepository {
  return {
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
    listForResolution: (resolutionId) =>
      attempt('listing feedback', () =>
        db.select().from(feedback).where(eq(feedback.resolutionId, resolutionId)).orderBy(asc(feedback.createdAt), asc(feedback.id)),
      ),
  };
}
