import type { WorkStyle } from '@sous/config';

/**
 * Per-work-style multiplier applied to a composer signal (spec 6.4: writers and researchers are
 * boosted more than coding, general and support). For prose work the draft is the strongest hint
 * of what comes next (there is less code activity to read), so it weighs half again as much.
 * Documented in docs/composer-signals.md.
 */
export const WORK_STYLE_MULTIPLIERS: Readonly<Record<WorkStyle, number>> = {
  writing: 1.5,
  research: 1.5,
  coding: 1.0,
  general: 1.0,
  support: 1.0,
};

export function workStyleMultiplier(style: WorkStyle): number {
  return WORK_STYLE_MULTIPLIERS[style];
}
