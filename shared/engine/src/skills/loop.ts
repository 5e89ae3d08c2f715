/**
 * The skills loop (docs/skills.md#the-skills-loop): once per preparation cycle it reads at most
 * `intent.skills_loop.max_feedback_events_per_cycle` feedback events it has not read before, oldest
 * first, and adds each one's value to the skills it is attributed to: the skills a card or a
 * resolution recorded (`details.skills`) when it was made, or the skill explicit skill feedback
 * names. What it has read is stored, so the next cycle goes on where this one stopped, in any
 * process. Weights follow from the counts (weights.ts); nothing here reads a file or a prompt.
 */
import type { SousConfig } from '@sous/config';
import type { Store } from '@sous/store';

export interface SkillLoopReport {
  /** False when the loop is off (`intent.enabled` or `intent.skills_loop.enabled` false). */
  ran: boolean;
  /** Why it did not run. */
  reason?: string;
  /** The cap in force. */
  cap: number;
  /** Events read and consumed in this run (at most `cap`). */
  consumed: number;
  /** Of those, events attributed to at least one skill. */
  attributed: number;
  /** Skills whose counts changed. */
  skills: number;
  /** Events still waiting (read by the next cycles). */
  pending: number;
}

/** One run of the loop for a workspace; `config` is read once. */
export async function runSkillsLoop(store: Store, workspaceId: string, config: Pick<SousConfig, 'intent'>): Promise<SkillLoopReport> {
  const cap = config.intent.skills_loop.max_feedback_events_per_cycle;
  if (!config.intent.enabled || !config.intent.skills_loop.enabled) {
    return { ran: false, reason: config.intent.enabled ? 'intent.skills_loop.enabled is false' : 'intent.enabled is false', cap, consumed: 0, attributed: 0, skills: 0, pending: 0 };
  }
  const events = await store.skills.pendingEvents(workspaceId, cap);
  const result = await store.skills.consume(workspaceId, events);
  return {
    ran: true,
    cap,
    consumed: result.consumed,
    attributed: events.filter((e) => e.skills.length > 0).length,
    skills: result.skills.length,
    pending: await store.skills.pendingCount(workspaceId),
  };
}
