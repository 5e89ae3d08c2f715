/**
 * The `category_shift` invalidation signal (spec 2.4; docs/predictions.md#category-shift). A request's
 * category is the area its evidence points at — the directory holding most of its top evidence paths,
 * as for an arc — so it is derived from paths only, never from the prompt. A category is
 * *established* when SHIFT_RUN consecutive resolutions share it; a shift is the moment a new category
 * becomes established while the previously established one was different. Pure functions: no clock,
 * the same sequence of resolutions gives the same shifts.
 */
import { arcArea } from './rules';

/** Consecutive resolutions of one category needed to establish it (one off-topic request is no shift). */
export const SHIFT_RUN = 2;
/** Evidence paths (the top ones) a category is read from. */
export const CATEGORY_PATHS = 5;
/** Resolutions remembered to find the previously established category. */
export const CATEGORY_WINDOW = 20;

/** The category of a list of evidence paths (most relevant first); undefined when there are none. */
export function categoryOf(paths: string[]): string | undefined {
  return arcArea(paths.slice(0, CATEGORY_PATHS));
}

export interface CategoryShift {
  from: string;
  to: string;
}

/**
 * Given the categories of the newest resolutions (newest first; undefined: no evidence, skipped),
 * the shift the newest one completes, if any: its run reached exactly SHIFT_RUN and the nearest older
 * run of at least SHIFT_RUN had another category.
 */
export function detectShift(categories: Array<string | undefined>): CategoryShift | undefined {
  const known = categories.filter((c): c is string => c !== undefined);
  const to = known[0];
  if (to === undefined) return undefined;
  let i = 0;
  while (i < known.length && known[i] === to) i += 1;
  if (i !== SHIFT_RUN) return undefined;
  for (let j = i; j < known.length; ) {
    const c = known[j];
    let k = j;
    while (k < known.length && known[k] === c) k += 1;
    if (k - j >= SHIFT_RUN) return c === to ? undefined : { from: c!, to };
    j = k;
  }
  return undefined;
}
