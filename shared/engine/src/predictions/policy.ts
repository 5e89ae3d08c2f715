/**
 * The policy bundle's dimensions the intent engine reads (spec 2.9; docs/predictions.md#policy-bundle).
 * The daemon maps the active bundle (`policy.bundle`) onto this shape on every call, so `sous setup
 * apply` changes behaviour without a restart. Plain data: the engine does not depend on @sous/setup.
 */

/** How much of the prepared context `resolve` puts in a briefing (the bundle's context-injection default). */
export type ContextInjection = 'digest_only' | 'policy_hybrid' | 'top_match_auto_include' | 'adopted_package_only';

export const CONTEXT_INJECTIONS: readonly ContextInjection[] = ['digest_only', 'policy_hybrid', 'top_match_auto_include', 'adopted_package_only'];

export interface IntentPolicy {
  /** Multiplies the weight of `goal` predictions (1.4 for deep_research, 0.8 for local_lightweight). */
  goalWeighting: number;
  /**
   * Prediction style (the bundle's drafting aggressiveness): multiplies how many inferred predictions
   * (arc, pattern, history) the registry keeps prepared.
   */
  drafting: number;
  contextInjection: ContextInjection;
}

/** local_balanced's values: what the engine does with no bundle wired. */
export const DEFAULT_INTENT_POLICY: Readonly<IntentPolicy> = Object.freeze({ goalWeighting: 1, drafting: 1, contextInjection: 'policy_hybrid' });

/** A keep-count scaled by the drafting dimension, never below one. */
export function scaledKeep(base: number, drafting: number): number {
  return Math.max(1, Math.round(base * drafting));
}
