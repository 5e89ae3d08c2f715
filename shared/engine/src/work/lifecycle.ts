/**
 * Work-product states and the transitions the engine makes (spec 3.1, 3.2; docs/prepared-work.md).
 * Only `ready` cards whose evidence still matches the index reach the feed.
 */
import type { WorkProductState } from '@sous/store';

/** Why a card moves, as recorded in events and `state_reason`. */
export type Transition =
  | 'landed' // candidate (or new) → ready: scored at or above the threshold
  | 'held' // new or ready → candidate: scored below the threshold, or its detector is suppressed
  | 'went_stale' // ready/candidate → stale: evidence no longer matches, or no longer detected
  | 'regenerated' // stale → ready/candidate: found again with the same content against the current files
  | 'superseded' // any but hidden → superseded: the same claim found with other content; a new card replaces it
  | 'dismissed'; // ready/candidate/stale → hidden: the user dismissed it

const ALLOWED: Record<Transition, readonly WorkProductState[]> = {
  landed: ['candidate', 'stale', 'ready'],
  held: ['ready', 'candidate', 'stale'],
  went_stale: ['ready', 'candidate'],
  regenerated: ['stale'],
  superseded: ['candidate', 'ready', 'stale'],
  dismissed: ['candidate', 'ready', 'stale'],
};

/** Whether `transition` may start from `from`. Hidden and superseded are final. */
export function canTransition(from: WorkProductState, transition: Transition): boolean {
  return ALLOWED[transition].includes(from);
}

/** States that never change again: a dismissed claim stays hidden, a replaced card stays replaced. */
export const FINAL_STATES: readonly WorkProductState[] = ['hidden', 'superseded'];
