import { and, eq, isNotNull, isNull, sql } from 'drizzle-orm';
import type { StoreDb } from '../db';
import { feedback, type FeedbackValue } from '../schema/feedback';
import { resolutions } from '../schema/resolutions';
import { skillFeedback, skillLoopEvents, skillStates, type SkillFeedbackRow, type SkillStateRow } from '../schema/skills';
import { workProducts } from '../schema/work-products';
import { attempt } from './attempt';

/**
 * One feedback event as the skills loop reads it: a card's or a resolution's feedback (its skills
 * are those the card or resolution recorded in `details.skills`), or explicit feedback on one skill.
 */
export interface SkillLoopEvent {
  id: string;
  value: FeedbackValue;
  /** Where it came from. */
  source: 'card' | 'resolution' | 'skill';
  /** Skill ids it is attributed to (may be empty: the event is consumed all the same). */
  skills: string[];
}

/** What one `consume` call did. */
export interface ConsumeResult {
  /** Events newly consumed (an event another process consumed first is not counted twice). */
  consumed: number;
  /** Skill ids whose counts changed. */
  skills: string[];
}

/** What the skills loop learned (`skill_states`), explicit skill feedback, and its cursor. */
export interface SkillRepository {
  /** Every learned skill state of a workspace. */
  states(workspaceId: string): Promise<SkillStateRow[]>;
  /** Records explicit feedback on one skill (consumed by the next loop run). */
  recordFeedback(input: { workspaceId: string; skillId: string; value: FeedbackValue; clientId?: string }): Promise<SkillFeedbackRow>;
  /** The oldest feedback events the loop has not consumed yet, at most `limit`, oldest first. */
  pendingEvents(workspaceId: string, limit: number): Promise<SkillLoopEvent[]>;
  /** How many feedback events wait for the loop. */
  pendingCount(workspaceId: string): Promise<number>;
  /** Marks `events` consumed and adds each one's value to its skills' counts, in one transaction. */
  consume(workspaceId: string, events: readonly SkillLoopEvent[]): Promise<ConsumeResult>;
  /** Dismisses (true) or restores (false) a skill. */
  setDismissed(workspaceId: string, skillId: string, dismissed: boolean): Promise<SkillStateRow>;
  /** `sous forget`: drops learned counts, explicit skill feedback and the cursor; dismissals stay (a user choice). */
  forget(workspaceId: string): Promise<{ feedback: number; states: number }>;
}

const ZERO: Record<FeedbackValue, number> = { useful: 0, partial: 0, irrelevant: 0, wrong: 0 };

/** Rows of a raw query (`db.execute`): node-postgres and PGlite both answer `{ rows }`. */
function rowsOf<T>(result: unknown): T[] {
  return (result as { rows: T[] }).rows;
}

export function createSkillRepository(db: StoreDb): SkillRepository {
  /**
   * Feedback of the workspace's cards and resolutions plus explicit skill feedback, minus what the
   * loop consumed. `created_at, id` orders them; ids are UUIDv7, so ties break by creation time too.
   */
  const pending = (workspaceId: string) => sql`
    SELECT e.id, e.value, e.source, e.skills, e.created_at FROM (
      SELECT f.id, f.value, 'card' AS source, COALESCE(w.details->'skills', '[]'::jsonb) AS skills, f.created_at
        FROM ${feedback} f JOIN ${workProducts} w ON w.id = f.work_product_id WHERE w.workspace_id = ${workspaceId}
      UNION ALL
      SELECT f.id, f.value, 'resolution' AS source, COALESCE(r.details->'skills', '[]'::jsonb) AS skills, f.created_at
        FROM ${feedback} f JOIN ${resolutions} r ON r.id = f.resolution_id WHERE r.workspace_id = ${workspaceId}
      UNION ALL
      SELECT s.id, s.value, 'skill' AS source, jsonb_build_array(s.skill_id) AS skills, s.created_at
        FROM ${skillFeedback} s WHERE s.workspace_id = ${workspaceId}
    ) e
    WHERE NOT EXISTS (SELECT 1 FROM ${skillLoopEvents} c WHERE c.workspace_id = ${workspaceId} AND c.event_id = e.id)`;

  return {
    states: (workspaceId) => attempt('reading skill states', () => db.select().from(skillStates).where(eq(skillStates.workspaceId, workspaceId))),
    recordFeedback: (input) =>
      attempt('recording skill feedback', async () => {
        const [row] = await db
          .insert(skillFeedback)
          .values({ workspaceId: input.workspaceId, skillId: input.skillId, value: input.value, clientId: input.clientId ?? null })
          .returning();
        return row!;
      }),
    pendingEvents: (workspaceId, limit) =>
      attempt('reading feedback for the skills loop', async () => {
        const rows = rowsOf<{ id: string; value: FeedbackValue; source: SkillLoopEvent['source']; skills: unknown }>(
          await db.execute(sql`${pending(workspaceId)} ORDER BY e.created_at, e.id LIMIT ${Math.max(0, Math.floor(limit))}`),
        );
        return rows.map((r) => ({ id: r.id, value: r.value, source: r.source, skills: skillIds(r.skills) }));
      }),
    pendingCount: (workspaceId) =>
      attempt('counting feedback for the skills loop', async () => {
        const [row] = rowsOf<{ n: number | string }>(await db.execute(sql`SELECT count(*)::int AS n FROM (${pending(workspaceId)}) p`));
        return Number(row?.n ?? 0);
      }),
    consume: (workspaceId, events) =>
      attempt('consuming feedback for the skills loop', () =>
        db.transaction(async (tx) => {
          if (events.length === 0) return { consumed: 0, skills: [] };
          // Only events this call marks first count: a concurrent cycle elsewhere cannot add them twice.
          const fresh = await tx
            .insert(skillLoopEvents)
            .values(events.map((e) => ({ workspaceId, eventId: e.id })))
            .onConflictDoNothing()
            .returning({ eventId: skillLoopEvents.eventId });
          const ids = new Set(fresh.map((r) => r.eventId));
          const increments = new Map<string, Record<FeedbackValue, number>>();
          for (const e of events) {
            if (!ids.has(e.id)) continue;
            for (const skillId of new Set(e.skills)) {
              const counts = increments.get(skillId) ?? { ...ZERO };
              counts[e.value] += 1;
              increments.set(skillId, counts);
            }
          }
          for (const [skillId, c] of increments) {
            await tx
              .insert(skillStates)
              .values({ workspaceId, skillId, ...c })
              .onConflictDoUpdate({
                target: [skillStates.workspaceId, skillStates.skillId],
                set: {
                  useful: sql`${skillStates.useful} + ${c.useful}`,
                  partial: sql`${skillStates.partial} + ${c.partial}`,
                  irrelevant: sql`${skillStates.irrelevant} + ${c.irrelevant}`,
                  wrong: sql`${skillStates.wrong} + ${c.wrong}`,
                  updatedAt: sql`now()`,
                },
              });
          }
          return { consumed: ids.size, skills: [...increments.keys()] };
        }),
      ),
    setDismissed: (workspaceId, skillId, dismissed) =>
      attempt(dismissed ? 'dismissing the skill' : 'restoring the skill', async () => {
        const dismissedAt = dismissed ? new Date() : null;
        const [row] = await db
          .insert(skillStates)
          .values({ workspaceId, skillId, dismissedAt })
          .onConflictDoUpdate({
            target: [skillStates.workspaceId, skillStates.skillId],
            // Dismissing twice keeps the first time.
            set: { dismissedAt: dismissed ? sql`COALESCE(${skillStates.dismissedAt}, now())` : null, updatedAt: sql`now()` },
          })
          .returning();
        return row!;
      }),
    forget: (workspaceId) =>
      attempt('forgetting what the skills loop learned', () =>
        db.transaction(async (tx) => {
          const fb = await tx.delete(skillFeedback).where(eq(skillFeedback.workspaceId, workspaceId)).returning({ id: skillFeedback.id });
          await tx.delete(skillLoopEvents).where(eq(skillLoopEvents.workspaceId, workspaceId));
          const gone = await tx.delete(skillStates).where(and(eq(skillStates.workspaceId, workspaceId), isNull(skillStates.dismissedAt))).returning({ id: skillStates.skillId });
          const reset = await tx
            .update(skillStates)
            .set({ useful: 0, partial: 0, irrelevant: 0, wrong: 0, updatedAt: sql`now()` })
            .where(and(eq(skillStates.workspaceId, workspaceId), isNotNull(skillStates.dismissedAt)))
            .returning({ id: skillStates.skillId });
          return { feedback: fb.length, states: gone.length + reset.length };
        }),
      ),
  };
}

/** The skill ids of a `details.skills` value: strings only (anything else recorded there is ignored). */
function skillIds(value: unknown): string[] {
  const list = typeof value === 'string' ? (JSON.parse(value) as unknown) : value;
  return Array.isArray(list) ? list.filter((v): v is string => typeof v === 'string') : [];
}
