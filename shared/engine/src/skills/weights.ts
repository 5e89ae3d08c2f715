/**
 * A skill's weight (docs/skills.md#weights): what feedback on work that used it says, bounded and
 * neutral at 1. `2 × usefulness` with usefulness the cycle's own Laplace-smoothed share (useful 1,
 * partial ½, irrelevant and wrong 0, plus one imagined useful and one imagined irrelevant): a new
 * skill weighs 1, the weight stays inside (0, 2), and one judgement moves it by at most a third.
 */
import type { FeedbackValue } from '@sous/store';
import { usefulness } from '../cycle/score';

export type SkillCounts = Record<FeedbackValue, number>;

/** The weight of a skill nobody has judged yet. */
export const NEUTRAL_WEIGHT = 1;
/** The weight never reaches this (the bound of `2 × usefulness`). */
export const MAX_WEIGHT = 2;

/** The weight of a skill with these feedback counts, in (0, 2); 1 without any. */
export function skillWeight(counts: SkillCounts | undefined): number {
  return Math.round(MAX_WEIGHT * usefulness(counts) * 1000) / 1000;
}
