/** Picking the most relevant window of lines in a file for a set of query terms. */
import type { WeightedTerm } from './bm25';
import { codeTokens, IDENTIFIER_RE } from './tokens';

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

/**
 * Sum of the weights of the distinct query terms on one line (repeats on a line do not add), in
 * order of first occurrence. `memo` keeps the query terms of each identifier: code repeats names.
 */
function lineScore(line: string, weights: ReadonlyMap<string, number>, filter: RegExp, memo: Map<string, readonly string[]>): number {
  let score = 0;
  const seen = new Set<string>();
  for (const match of line.matchAll(IDENTIFIER_RE)) {
    let terms = memo.get(match[0]);
    if (terms === undefined) {
      terms = filter.test(match[0]) ? codeTokens(match[0]).filter((token) => weights.has(token)) : [];
      memo.set(match[0], terms);
    }
    for (const term of terms) {
      if (seen.has(term)) continue;
      seen.add(term);
      score += weights.get(term) ?? 0;
    }
  }
  return score;
}

/**
 * A cheap test that a line (or an identifier) may contain one of the terms, so those without any
 * are not tokenized.
 * Every token of a line is a lowercased piece of it, maybe stemmed (`entries` → `entry`), so each
 * term minus a final `y` is a substring of the lowercased line wherever the term occurs.
 */
function mayContain(terms: Iterable<string>): RegExp | null {
  const needles = [...terms].map((t) => (t.endsWith('y') ? t.slice(0, -1) : t).replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  return needles.length === 0 ? null : new RegExp(needles.join('|'), 'i');
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
  const filter = mayContain(weights.keys());
  const memo = new Map<string, readonly string[]>();
  const scores = lines.map((line) => (filter !== null && filter.test(line) ? lineScore(line, weights, filter, memo) : 0));
  // Nearest matching line at or after (at or before) each line: a window's first and last match.
  const next = new Int32Array(lines.length + 1).fill(-1);
  for (let i = lines.length - 1; i >= 0; i -= 1) next[i] = (scores[i] ?? 0) > 0 ? i : (next[i + 1] ?? -1);
  const previous = new Int32Array(lines.length).fill(-1);
  for (let i = 0; i < lines.length; i += 1) previous[i] = (scores[i] ?? 0) > 0 ? i : i > 0 ? (previous[i - 1] ?? -1) : -1;

  let best = { start: 0, sum: -1, offCentre: Number.POSITIVE_INFINITY };
  let sum = scores.slice(0, size).reduce((a, b) => a + b, 0);
  for (let start = 0; start + size <= lines.length; start += 1) {
    if (start > 0) sum += (scores[start + size - 1] ?? 0) - (scores[start - 1] ?? 0);
    if (sum < best.sum - EPSILON) continue;
    const first = next[start] ?? -1;
    const end = start + size - 1;
    // Leading and trailing lines without a match; 0 when the window has none.
    const offCentre = first < 0 || first > end ? 0 : Math.abs(first - start - (end - (previous[end] ?? end)));
    if (sum > best.sum + EPSILON || offCentre < best.offCentre) best = { start, sum, offCentre };
  }
  const picked = lines.slice(best.start, best.start + size);
  return { startLine: best.start + 1, endLine: best.start + picked.length, text: picked.join('\n') };
}
