/** The seven policy bundles (spec 2.9), in the spec table's order. */
import type { DeepRunPreset, RuntimeProfile } from './tiers';

export type BundleId =
  | 'local_lightweight'
  | 'local_balanced'
  | 'local_heavy'
  | 'hybrid_balanced'
  | 'hybrid_quality'
  | 'cost_saver'
  | 'deep_research';

export type Posture = 'local_only' | 'local_preferred' | 'hybrid' | 'cloud_preferred';
export type SpendProfile = 'zero' | 'low' | 'medium';
export type LatencyProfile = 'snappy' | 'balanced' | 'quality';
export type PrivacyProfile = 'strict' | 'standard';
export type ContextInjection = 'digest_only' | 'policy_hybrid' | 'top_match_auto_include' | 'adopted_package_only';

/** An outcome-level archetype: the baseline dimensions the engine consults. */
export interface PolicyBundle {
  id: BundleId;
  posture: Posture;
  runtime: RuntimeProfile;
  spend: SpendProfile;
  latency: LatencyProfile;
  privacy: PrivacyProfile;
  /** Drafting aggressiveness multiplier. */
  drafting: number;
  /** Exploration ratio offset (signed). */
  explore: number;
  /** Persistence strength multiplier. */
  persist: number;
  /**
   * How strongly active goals raise a candidate's priority. 1.4 for deep_research (spec); the others
   * follow persistence, damped towards 1.0 and capped at 1.2 so deep_research stays clearly highest.
   */
  goal_weighting: number;
  context_injection: ContextInjection;
  /** Deep-Run profile pre-filling `sous deep-run start`. */
  deep_run: DeepRunPreset;
}

/** The dimensions in display order (the spec table's columns, goal weighting after persist). */
export const BUNDLE_DIMENSIONS = [
  'posture',
  'runtime',
  'spend',
  'latency',
  'privacy',
  'drafting',
  'explore',
  'persist',
  'goal_weighting',
  'context_injection',
  'deep_run',
] as const satisfies ReadonlyArray<keyof PolicyBundle>;

const b = (x: PolicyBundle): Readonly<PolicyBundle> => Object.freeze(x);

/** Exactly seven bundles, in the spec's order (also the tie-break order of recommendations). */
export const POLICY_BUNDLES: ReadonlyArray<Readonly<PolicyBundle>> = Object.freeze([
  b({ id: 'local_lightweight', posture: 'local_only', runtime: 'small', spend: 'zero', latency: 'snappy', privacy: 'strict', drafting: 0.8, explore: -0.05, persist: 0.7, goal_weighting: 0.8, context_injection: 'digest_only', deep_run: 'conservative' }),
  b({ id: 'local_balanced', posture: 'local_preferred', runtime: 'medium', spend: 'zero', latency: 'balanced', privacy: 'strict', drafting: 1.0, explore: 0.0, persist: 1.0, goal_weighting: 1.0, context_injection: 'policy_hybrid', deep_run: 'balanced' }),
  b({ id: 'local_heavy', posture: 'local_only', runtime: 'large', spend: 'zero', latency: 'quality', privacy: 'strict', drafting: 1.1, explore: 0.1, persist: 1.3, goal_weighting: 1.2, context_injection: 'policy_hybrid', deep_run: 'aggressive' }),
  b({ id: 'hybrid_balanced', posture: 'hybrid', runtime: 'medium', spend: 'low', latency: 'balanced', privacy: 'standard', drafting: 1.0, explore: 0.05, persist: 1.0, goal_weighting: 1.0, context_injection: 'policy_hybrid', deep_run: 'balanced' }),
  b({ id: 'hybrid_quality', posture: 'cloud_preferred', runtime: 'large', spend: 'medium', latency: 'quality', privacy: 'standard', drafting: 1.2, explore: 0.1, persist: 1.2, goal_weighting: 1.1, context_injection: 'top_match_auto_include', deep_run: 'balanced' }),
  b({ id: 'cost_saver', posture: 'local_preferred', runtime: 'small', spend: 'low', latency: 'balanced', privacy: 'standard', drafting: 0.9, explore: -0.05, persist: 0.9, goal_weighting: 0.9, context_injection: 'adopted_package_only', deep_run: 'conservative' }),
  b({ id: 'deep_research', posture: 'hybrid', runtime: 'large', spend: 'medium', latency: 'quality', privacy: 'standard', drafting: 1.1, explore: 0.15, persist: 1.5, goal_weighting: 1.4, context_injection: 'policy_hybrid', deep_run: 'aggressive' }),
]);

/** The seven ids in order. */
export const BUNDLE_IDS: readonly BundleId[] = POLICY_BUNDLES.map((x) => x.id);

/** Thrown for an id that is not one of the seven; the message lists the valid ids. */
export class UnknownBundleError extends Error {
  readonly code = 'unknown_bundle';
  constructor(readonly bundleId: string) {
    super(`unknown policy bundle "${bundleId}": use one of ${BUNDLE_IDS.join(', ')}`);
    this.name = 'UnknownBundleError';
  }
}

/** True when `id` names one of the seven bundles. */
export function isBundleId(id: string): id is BundleId {
  return (BUNDLE_IDS as readonly string[]).includes(id);
}

/** The bundle with this id; throws `UnknownBundleError` (listing the valid ids) for any other string. */
export function getBundle(id: string): Readonly<PolicyBundle> {
  const found = POLICY_BUNDLES.find((x) => x.id === id);
  if (!found) throw new UnknownBundleError(id);
  return found;
}

/** A dimension value as the CLI and cockpit show it (signed explore, one decimal for multipliers). */
export function formatDimension(bundle: Readonly<PolicyBundle>, key: (typeof BUNDLE_DIMENSIONS)[number]): string {
  const v = bundle[key];
  if (typeof v !== 'number') return v;
  if (key === 'explore') return v > 0 ? `+${v.toFixed(2)}` : v.toFixed(2);
  return v.toFixed(1);
}
