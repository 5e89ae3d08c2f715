/**
 * Held detectors (`exploration.detectors_held`): their cards are made and scored but stay candidates,
 * unless the exploration model confirmed the finding (`exploration.confirm_held`, see held-checks.ts).
 */
import type { WorkProductWithEvidence } from '@sous/store';
import type { Candidate, ModelCheck } from '../work/types';

/** Whether a list of detector ids (`exploration.detectors_off`, `…_held`) names this id or its family (`review` for `review.todo_added`). */
export function detectorOff(detector: string, off: readonly string[]): boolean {
  return off.some((o) => detector === o || detector.startsWith(`${o}.`));
}

/**
 * Whether `exploration.detectors_held` holds this candidate's detector, or the one it follows (a
 * draft); a finding the model confirmed is not held (a draft after it still is).
 */
export function isHeld(candidate: Candidate, held: readonly string[]): boolean {
  if (candidate.check?.verdict === 'confirmed') return false;
  return detectorOff(candidate.detector, held) || (candidate.follows !== undefined && detectorOff(candidate.follows, held));
}

/** Why a ready-worthy card of a held detector stays a candidate (`details.held`, the diagnostic view). */
export function heldByDetector(detector: string): string {
  return `its detector is held back (exploration.detectors_held names ${detector} or its family): its cards were wrong too often on real repositories to be shown`;
}

/** The model's verdict a stored card carries (`details.model_check`), when it is well formed. */
export function storedCheck(card: Pick<WorkProductWithEvidence, 'details'>): ModelCheck | undefined {
  const c = card.details['model_check'] as Partial<ModelCheck> | undefined;
  if (c === undefined || c === null || typeof c !== 'object') return undefined;
  if ((c.verdict !== 'confirmed' && c.verdict !== 'refuted') || typeof c.model !== 'string' || typeof c.why !== 'string') return undefined;
  return { verdict: c.verdict, model: c.model, why: c.why };
}
