/** The seam every detector implements: read a RepositoryView, propose Candidates with evidence. */
import type { WorkProductKind } from '@sous/store';
import type { RepositoryView } from '../view/repository-view';
import type { Candidate, CycleTrigger } from '../work/types';

/** Files worth looking at in this cycle, with a priority in 0..1 (see cycle/frontier.ts). */
export interface Frontier {
  /** Highest priority first; at most `exploration.frontier_max_size`, none below `exploration.min_priority`. */
  readonly entries: ReadonlyArray<{ path: string; priority: number }>;
  /** 0 when the path is not on the frontier. */
  priority(path: string): number;
}

export interface DetectorContext {
  view: RepositoryView;
  trigger: CycleTrigger;
  frontier: Frontier;
  /** Fires when the cycle is cancelled or runs out of time; stop promptly. */
  signal: AbortSignal;
  /**
   * Whether `exploration.detectors_off` turns off this detector id (`docs_drift.removed_flag`): work
   * whose cards would be dropped need not be done. Nothing is off when absent.
   */
  isOff?: (detector: string) => boolean;
  /**
   * Whether `exploration.detectors_held` keeps this detector id's cards as candidates: its findings
   * are still wanted (the diagnostic view), but nothing shown may rest on them (no patch). Nothing is
   * held when absent.
   */
  isHeld?: (detector: string) => boolean;
}

/** What one detector found, and where it looked. */
export interface DetectorResult {
  candidates: Candidate[];
  /**
   * The targets it examined completely: a ready card of this detector on such a target that is not
   * found again goes stale ("no longer detected"). `all` when it examined the whole repository.
   */
  covered: readonly string[] | 'all';
}

export interface Detector {
  /** The family, e.g. `docs_drift`; candidates' `detector` ids start with it. */
  readonly name: string;
  /** Kinds it can propose. */
  readonly kinds: readonly WorkProductKind[];
  detect(context: DetectorContext): Promise<DetectorResult>;
}
