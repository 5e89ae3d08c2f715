/**
 * The feed budget (spec 1 rule 7, "the feed is small"): at most `exploration.max_ready_cards` cards
 * are ready in a workspace at once. The strongest win, whether found in this cycle or kept from an
 * earlier one; the rest stay candidates, reachable with `?diagnostic=true`, and come back when a
 * stronger card goes (fixed, dismissed, stale).
 */
import type { WorkProductWithEvidence } from '@sous/store';
import { claimKey, type Scored } from './land';

export interface Budgeted {
  /** This cycle's scored candidates, those over the budget held as candidates. */
  scored: Scored[];
  /** Ready cards from earlier cycles, not found again in this one, that the budget now holds back. */
  demote: WorkProductWithEvidence[];
}

export function heldByBudget(max: number): string {
  return `over the feed budget (exploration.max_ready_cards = ${max}): stronger cards are ready`;
}

/**
 * `earlier`: ready cards whose claim this cycle did not produce (their detector did not look again,
 * or they wait for their own retirement); they compete with their stored score.
 */
export function applyFeedBudget(scored: readonly Scored[], earlier: readonly WorkProductWithEvidence[], max: number): Budgeted {
  type Entry = { score: number; key: string; fresh?: Scored; card?: WorkProductWithEvidence };
  const entries: Entry[] = [
    ...scored.filter((s) => s.state === 'ready').map((s) => ({ score: s.score, key: claimKey(s.candidate), fresh: s })),
    ...earlier.map((card) => ({ score: card.score ?? 0, key: card.claimKey ?? card.id, card })),
  ];
  // Highest score first; ties by claim key so that two equal cards do not trade places every cycle.
  entries.sort((a, b) => b.score - a.score || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  const over = Number.isFinite(max) ? entries.slice(Math.max(0, max)) : [];
  const heldNow = new Set(over.flatMap((e) => (e.fresh !== undefined ? [e.fresh] : [])));
  const reason = heldByBudget(max);
  return {
    scored: scored.map((s) => (heldNow.has(s) ? { ...s, state: 'candidate', held: reason } : s)),
    demote: over.flatMap((e) => (e.card !== undefined ? [e.card] : [])),
  };
}
