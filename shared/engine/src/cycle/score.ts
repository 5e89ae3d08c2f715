/**
 * Scoring a candidate (spec 1): strength of its evidence, freshness, relevance to recent activity,
 * novelty against the cards already in the feed, and the usefulness feedback has shown for its
 * detector in this repository. Weights and thresholds are named here and documented in
 * docs/prepared-work.md.
 */
import type { FeedbackValue } from '@sous/store';

export const SCORE_WEIGHTS = { strength: 0.45, relevance: 0.2, novelty: 0.15, usefulness: 0.2 } as const;

/** A candidate at or above this score lands as ready; below it stays a candidate. */
export const READY_THRESHOLD = 0.55;

/** A detector with at least this many irrelevant/wrong judgements and usefulness below the floor is suppressed. */
export const SUPPRESS_MIN_NEGATIVE = 3;
export const SUPPRESS_USEFULNESS_FLOOR = 0.3;

export type FeedbackCounts = Record<FeedbackValue, number>;

export interface ScoreParts {
  strength: number;
  /** 1 when every cited file still has the hash the evidence records, else 0 (and the card cannot land). */
  freshness: number;
  relevance: number;
  novelty: number;
  usefulness: number;
}

/**
 * What feedback says about a detector's cards, 0..1: useful counts 1, partial ½, irrelevant and
 * wrong 0, with one imagined useful and one imagined irrelevant judgement so that a new detector
 * starts at ½ and one bad judgement does not bury it.
 */
export function usefulness(counts: FeedbackCounts | undefined): number {
  if (counts === undefined) return 0.5;
  const total = counts.useful + counts.partial + counts.irrelevant + counts.wrong;
  return (counts.useful + 0.5 * counts.partial + 1) / (total + 2);
}

/** Whether feedback has shown this detector's cards to be noise in this repository. */
export function suppressed(counts: FeedbackCounts | undefined): boolean {
  if (counts === undefined) return false;
  return counts.irrelevant + counts.wrong >= SUPPRESS_MIN_NEGATIVE && usefulness(counts) < SUPPRESS_USEFULNESS_FLOOR;
}

/** The combined score, 0..1; 0 when the evidence is not fresh. */
export function combine(parts: ScoreParts): number {
  if (parts.freshness <= 0) return 0;
  const s =
    SCORE_WEIGHTS.strength * parts.strength +
    SCORE_WEIGHTS.relevance * parts.relevance +
    SCORE_WEIGHTS.novelty * parts.novelty +
    SCORE_WEIGHTS.usefulness * parts.usefulness;
  return Math.round(Math.min(1, Math.max(0, s)) * 1000) / 1000;
}
