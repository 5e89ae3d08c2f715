/** Picking the most relevant window of lines in a file for a set of query terms. */
import type { WeightedTerm } from './bm25';
import { codeTokens } from './tokens';

/** Default window size of `bestSnippet`. */
export const DEFAULT_SNIPPET_LINES = 40;

// Sliding sums of fractional weights drift; equal windows must compare equal.
const EPSILON = 1e-9;

/** A window of lines, 1-based and inclusive. */
export interface Snippet {
  startLine: number;
  endLine: number;
  text: string;
}

/** Sum of the weights of the distinct query terms on one line (repeats on a line do not add). */
function lineScore(line: string, weights: ReadonlyMap<string, number>): number {
  let score = 0;
  for (const token of new Set(codeTokens(line))) score += weights.get(token) ?? 0;
  return score;
}

/**
 * The window of at most maxLines lines with the highest weighted term density. Among equal windows
 * the one whose matches sit most centrally wins, then the earliest; with no match at all, the first
 * maxLines lines. Terms are normalized like `codeTokens` output (e.g. `PromptAnalysis.terms`).
 */
export function bestSnippet(text: string, terms: readonly WeightedTerm[], maxLines: number = DEFAULT_SNIPPET_LINES): Snippet {
  const lines = text.split(/\r?\n/);
  const size = Math.max(1, Math.min(maxLines, lines.length));
  const weights = new Map<string, number>();
  for (const { term, weight } of terms) weights.set(term, Math.max(weights.get(term) ?? 0, weight));
  const scores = lines.map((line) => lineScore(line, weights));

  let best = { start: 0, sum: -1, offCentre: Number.POSITIVE_INFINITY };
  let sum = scores.slice(0, size).reduce((a, b) => a + b, 0);
  for (let start = 0; start + size <= lines.length; start += 1) {
    if (start > 0) sum += (scores[start + size - 1] ?? 0) - (scores[start - 1] ?? 0);
    if (sum < best.sum - EPSILON) continue;
    const window = scores.slice(start, start + size);
    const first = window.findIndex((s) => s > 0);
    const last = size - 1 - [...window].reverse().findIndex((s) => s > 0);
    const offCentre = first < 0 ? 0 : Math.abs(first - (size - 1 - last));
    if (sum > best.sum + EPSILON || offCentre < best.offCentre) best = { start, sum, offCentre };
  }
  const picked = lines.slice(best.start, best.start + size);
  return { startLine: best.start + 1, endLine: best.start + picked.length, text: picked.join('\n') };
}
