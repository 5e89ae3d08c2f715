import { and, desc, eq, inArray, isNull, sql } from 'drizzle-orm';
import type { StoreDb } from '../db';
import { clampLimit } from '../defaults';
import {
  deepRunSessions,
  type DeepRunPresetId,
  type DeepRunRow,
  type DeepRunSettings,
  type DeepRunState,
  type DeepRunStopReason,
} from '../schema/deep-run';
import { attempt } from './attempt';

/** Input of `DeepRunRepository.create`: a session that starts running now. */
export interface DeepRunInput {
  workspaceId: string;
  preset: DeepRunPresetId;
  bundle: string;
  settings: DeepRunSettings;
  durationMinutes: number;
  costCapUsd: number;
  startedAt: Date;
  deadline: Date;
}

/** What one finished step adds to its session. */
export interface DeepRunStepTally {
  modelCalls: number;
  promptTokens: number;
  completionTokens: number;
  /** Some call's tokens were estimated from characters. */
  tokensEstimated: boolean;
  spendUsd: number;
  /** Work products the step made or changed; added to `produced` without duplicates. */
  produced: string[];
}

/** How a session ended. */
export interface DeepRunEnd {
  state: Exclude<DeepRunState, 'running'>;
  reason: DeepRunStopReason;
  detail: string;
  at: Date;
}

/** Deep-Run sessions of a workspace. Step claims are conditional updates: one winner per step number. */
export interface DeepRunRepository {
  /** Inserts a running session; `store_duplicate` when the workspace already has one running. */
  create(input: DeepRunInput): Promise<DeepRunRow>;
  get(id: string): Promise<DeepRunRow | undefined>;
  /** Sessions of a workspace, newest first; only `states` when given. Default limit 50, at most 500. */
  list(workspaceId: string, options?: { states?: DeepRunState[]; limit?: number }): Promise<DeepRunRow[]>;
  /**
   * Claims step `step` of a running session: only when it is the next step and no step is running.
   * The claim moves `next_step` on, so the number is never claimed again. Undefined when refused.
   */
  claimStep(id: string, step: number, by: string, at: Date): Promise<DeepRunRow | undefined>;
  /** Records a claimed step as done with its tally (whatever the session's state is by now). */
  finishStep(id: string, step: number, tally: DeepRunStepTally): Promise<DeepRunRow | undefined>;
  /** A claimed step whose process stopped mid-step: counted as interrupted, never run again. */
  interruptStep(id: string, step: number): Promise<DeepRunRow | undefined>;
  /** Ends a running session; undefined when it was not running (the first end wins). */
  end(id: string, end: DeepRunEnd): Promise<DeepRunRow | undefined>;
}

export function createDeepRunRepository(db: StoreDb): DeepRunRepository {
  const t = deepRunSessions;
  return {
    create: (input) =>
      attempt('starting the Deep-Run session', async () => {
        const [row] = await db.insert(t).values({ ...input, state: 'running' }).returning();
        return row!;
      }),
    get: (id) =>
      attempt('reading the Deep-Run session', async () => {
        const [row] = await db.select().from(t).where(eq(t.id, id));
        return row;
      }),
    list: (workspaceId, options = {}) =>
      attempt('listing Deep-Run sessions', () => {
        const where = options.states?.length ? and(eq(t.workspaceId, workspaceId), inArray(t.state, options.states)) : eq(t.workspaceId, workspaceId);
        return db.select().from(t).where(where).orderBy(desc(t.createdAt), desc(t.id)).limit(clampLimit(options.limit));
      }),
    claimStep: (id, step, by, at) =>
      attempt('claiming a Deep-Run step', async () => {
        const [row] = await db
          .update(t)
          .set({ nextStep: step + 1, runningStep: step, stepClaimedAt: at, stepClaimedBy: by, updatedAt: sql`now()` })
          .where(and(eq(t.id, id), eq(t.state, 'running'), eq(t.nextStep, step), isNull(t.runningStep)))
          .returning();
        return row;
      }),
    finishStep: (id, step, tally) =>
      attempt('recording a Deep-Run step', async () => {
        const [row] = await db
          .update(t)
          .set({
            runningStep: null,
            stepClaimedAt: null,
            stepClaimedBy: null,
            stepsDone: sql`${t.stepsDone} + 1`,
            modelCalls: sql`${t.modelCalls} + ${tally.modelCalls}`,
            promptTokens: sql`${t.promptTokens} + ${tally.promptTokens}`,
            completionTokens: sql`${t.completionTokens} + ${tally.completionTokens}`,
            tokensEstimated: sql`${t.tokensEstimated} OR ${tally.tokensEstimated}`,
            spendUsd: sql`${t.spendUsd} + ${tally.spendUsd}`,
            // Appended in order, each id once.
            produced: sql`(SELECT coalesce(jsonb_agg(x ORDER BY o), '[]'::jsonb) FROM (SELECT x, min(o) AS o FROM jsonb_array_elements_text(${t.produced} || ${JSON.stringify(tally.produced)}::jsonb) WITH ORDINALITY AS e(x, o) GROUP BY x) d)`,
            updatedAt: sql`now()`,
          })
          .where(and(eq(t.id, id), eq(t.runningStep, step)))
          .returning();
        return row;
      }),
    interruptStep: (id, step) =>
      attempt('recording an interrupted Deep-Run step', async () => {
        const [row] = await db
          .update(t)
          .set({ runningStep: null, stepClaimedAt: null, stepClaimedBy: null, stepsInterrupted: sql`${t.stepsInterrupted} + 1`, updatedAt: sql`now()` })
          .where(and(eq(t.id, id), eq(t.runningStep, step)))
          .returning();
        return row;
      }),
    end: (id, end) =>
      attempt('ending the Deep-Run session', async () => {
        const [row] = await db
          .update(t)
          .set({ state: end.state, stopReason: end.reason, stopDetail: end.detail, endedAt: end.at, updatedAt: sql`now()` })
          .where(and(eq(t.id, id), eq(t.state, 'running')))
          .returning();
        return row;
      }),
  };
}
