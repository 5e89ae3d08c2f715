/** Picking the most relevant window of lines in a file for a set of query terms. */
import type { WeightedTerm } from './bm25';
import { splitIdentifier } from '../symbols/identifiers';
import { IDENTIFIER_RE, identifierTokensOf, normalizeToken } from './tokens';

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

// A needle made of identifier characters only (ASCII, matched case-insensitively without `u`) can
// only match inside one run of such characters.
const IDENTIFIER_NEEDLE = /^[A-Za-z0-9_$]+$/;

/** `[A-Za-z0-9_$]`: what an `IDENTIFIER_RE` match is made of. */
function isIdentifierChar(c: number): boolean {
  return (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57) || c === 95 || c === 36;
}

// Identifiers longer than this (minified code, base64) are split only where a needle matches.
const LONG_IDENTIFIER = 256;

/**
 * Bounds [start, end, start, end, …] of the maximal runs of letters and of digits of an identifier.
 * `splitIdentifier` never joins two of them (`_` and `$` split, digits are their own parts) nor looks
 * past one, so splitting each run alone gives the same parts.
 */
function pieceBounds(identifier: string): number[] {
  const bounds: number[] = [];
  let kind = 0; // 0 separator, 1 letter, 2 digit
  for (let i = 0; i < identifier.length; i += 1) {
    const c = identifier.charCodeAt(i);
    const next = c >= 48 && c <= 57 ? 2 : c === 95 || c === 36 ? 0 : 1;
    if (next === kind) continue;
    if (kind !== 0) bounds.push(i);
    if (next !== 0) bounds.push(i);
    kind = next;
  }
  if (kind !== 0) bounds.push(identifier.length);
  return bounds;
}

/** Offsets of the lines of `text` as `split(/\r?\n/)` cuts it: each line starts after a `\n`. */
function lineStarts(text: string): number[] {
  const starts = [0];
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) starts.push(i + 1);
  return starts;
}

/** Lines first..first+count-1 joined by `\n`, as `split(/\r?\n/)` then `join('\n')` would give them. */
function linesText(text: string, starts: readonly number[], first: number, count: number): string {
  if (count <= 0) return '';
  const from = starts[first] ?? 0;
  const after = first + count;
  let to = text.length;
  if (after < starts.length) {
    to = (starts[after] ?? 0) - 1;
    if (to > from && text.charCodeAt(to - 1) === 13) to -= 1;
  }
  const raw = text.slice(from, to);
  return raw.includes('\r\n') ? raw.replace(/\r\n/g, '\n') : raw;
}

/** How many elements `array.slice(start, end)` keeps from an array of `length` (`end` maybe fractional or NaN). */
function sliceCount(length: number, start: number, end: number): number {
  const stop = Math.min(length, Number.isNaN(end) ? 0 : Math.trunc(end));
  return Math.max(0, stop - start);
}

/**
 * Query terms prepared once for the snippets of many files (one query's results): their weights, a
 * cheap prefilter and the query terms of each identifier seen (code repeats names across files).
 */
export class SnippetTerms {
  private readonly weights = new Map<string, number>();
  /**
   * A test that an identifier may contain one of the terms, so those without any are not
   * tokenized. Every token of an identifier is a lowercased piece of it, maybe stemmed (`entries` →
   * `entry`), so each term minus a final `y` is a substring of the lowercased identifier wherever
   * the term occurs. Null without terms.
   */
  private readonly filter: RegExp | null = null;
  /**
   * Finds, across a whole text, the runs of identifier characters the filter can pass (needles of
   * identifier characters only, global); null when no identifier can pass. `everything` when the
   * filter passes every identifier (an empty needle).
   */
  private readonly scan: RegExp | 'everything' | null = null;
  /** `scan` again, for matches inside one long identifier while `scan` walks the text. */
  private readonly inner: RegExp | null = null;
  private readonly memo = new Map<string, readonly string[]>();

  constructor(terms: readonly WeightedTerm[]) {
    for (const { term, weight } of terms) this.weights.set(term, Math.max(this.weights.get(term) ?? 0, weight));
    const needles = [...this.weights.keys()].map((t) => (t.endsWith('y') ? t.slice(0, -1) : t));
    if (needles.length === 0) return;
    const escape = (needle: string): string => needle.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    this.filter = new RegExp(needles.map(escape).join('|'), 'i');
    const inside = needles.filter((needle) => IDENTIFIER_NEEDLE.test(needle));
    if (needles.includes('')) this.scan = 'everything';
    else if (inside.length > 0) {
      this.scan = new RegExp(inside.map(escape).join('|'), 'gi');
      this.inner = new RegExp(this.scan.source, 'gi');
    }
  }

  /**
   * The window of at most maxLines lines with the highest weighted term density. Among equal
   * windows the one whose matches sit most centrally wins, then the earliest; with no match at all,
   * the first maxLines lines.
   */
  best(text: string, maxLines: number = DEFAULT_SNIPPET_LINES): Snippet {
    const starts = lineStarts(text);
    const n = starts.length;
    const size = Math.max(1, Math.min(maxLines, n));
    const scores = this.lineScores(text, starts);
    // Nearest matching line at or after (at or before) each line: a window's first and last match.
    const next = new Int32Array(n + 1).fill(-1);
    for (let i = n - 1; i >= 0; i -= 1) next[i] = (scores[i] ?? 0) > 0 ? i : (next[i + 1] ?? -1);
    const previous = new Int32Array(n).fill(-1);
    for (let i = 0; i < n; i += 1) previous[i] = (scores[i] ?? 0) > 0 ? i : i > 0 ? (previous[i - 1] ?? -1) : -1;

    let best = { start: 0, sum: -1, offCentre: Number.POSITIVE_INFINITY };
    let sum = scores.subarray(0, size).reduce((a, b) => a + b, 0);
    for (let start = 0; start + size <= n; start += 1) {
      if (start > 0) sum += (scores[start + size - 1] ?? 0) - (scores[start - 1] ?? 0);
      if (sum < best.sum - EPSILON) continue;
      const first = next[start] ?? -1;
      const end = start + size - 1;
      // Leading and trailing lines without a match; 0 when the window has none.
      const offCentre = first < 0 || first > end ? 0 : Math.abs(first - start - (end - (previous[end] ?? end)));
      if (sum > best.sum + EPSILON || offCentre < best.offCentre) best = { start, sum, offCentre };
    }
    const count = sliceCount(n, best.start, best.start + size);
    return { startLine: best.start + 1, endLine: best.start + count, text: linesText(text, starts, best.start, count) };
  }

  /**
   * Each line's score: the sum of the weights of the distinct query terms on it (repeats on a line
   * do not add), in order of first occurrence. Only identifiers the scan finds are tokenized.
   */
  private lineScores(text: string, starts: readonly number[]): Float64Array {
    const scores = new Float64Array(starts.length);
    if (this.scan === null) return scores;
    // The line each term was last counted on: a term counts once per line.
    const counted = new Map<string, number>();
    let line = 0;
    const visit = (identifier: string, at: number): void => {
      while (line + 1 < starts.length && (starts[line + 1] ?? 0) <= at) line += 1;
      for (const term of this.termsOf(identifier)) {
        if (counted.get(term) === line) continue;
        counted.set(term, line);
        scores[line] = (scores[line] ?? 0) + (this.weights.get(term) ?? 0);
      }
    };
    if (this.scan === 'everything') {
      for (const match of text.matchAll(IDENTIFIER_RE)) visit(match[0], match.index);
      return scores;
    }
    const scan = this.scan;
    scan.lastIndex = 0;
    for (let match = scan.exec(text); match !== null; match = scan.exec(text)) {
      // The run of identifier characters around the match; its identifier skips leading digits.
      let from = match.index;
      while (from > 0 && isIdentifierChar(text.charCodeAt(from - 1))) from -= 1;
      let to = match.index + match[0].length;
      while (to < text.length && isIdentifierChar(text.charCodeAt(to))) to += 1;
      while (from < to && text.charCodeAt(from) >= 48 && text.charCodeAt(from) <= 57) from += 1;
      if (from < to) visit(text.slice(from, to), from);
      scan.lastIndex = to;
    }
    return scores;
  }

  /** The query terms among an identifier's tokens (`codeTokens`), in token order. */
  private termsOf(identifier: string): readonly string[] {
    let terms = this.memo.get(identifier);
    if (terms === undefined) {
      if (this.filter === null || !this.filter.test(identifier)) terms = [];
      else if (identifier.length > LONG_IDENTIFIER && this.inner !== null) terms = this.longTermsOf(identifier, this.inner);
      else terms = identifierTokensOf(identifier).filter((token) => this.weights.has(token));
      this.memo.set(identifier, terms);
    }
    return terms;
  }

  /**
   * `termsOf` for a long identifier: a part holding a term holds a needle, so only the runs of
   * letters or digits (`pieceBounds`) that a needle match touches are split.
   */
  private longTermsOf(identifier: string, inner: RegExp): string[] {
    const bounds = pieceBounds(identifier);
    // One run is one part or is split whole anyway; parts count only from two (`identifierTokens`).
    if (bounds.length < 4) return identifierTokensOf(identifier).filter((token) => this.weights.has(token));
    const whole = normalizeToken(identifier);
    const terms = whole !== null && this.weights.has(whole) ? [whole] : [];
    const touched = new Uint8Array(bounds.length / 2);
    let piece = 0;
    inner.lastIndex = 0;
    for (let match = inner.exec(identifier); match !== null; match = inner.exec(identifier)) {
      const end = match.index + match[0].length;
      while (piece < touched.length && (bounds[2 * piece + 1] ?? 0) <= match.index) piece += 1;
      for (let k = piece; k < touched.length && (bounds[2 * k] ?? 0) < end; k += 1) touched[k] = 1;
    }
    for (let k = 0; k < touched.length; k += 1) {
      if (touched[k] === 0) continue;
      for (const raw of splitIdentifier(identifier.slice(bounds[2 * k], bounds[2 * k + 1]))) {
        const token = normalizeToken(raw);
        if (token !== null && token !== whole && this.weights.has(token)) terms.push(token);
      }
    }
    return terms;
  }
}

/**
 * The window of at most maxLines lines with the highest weighted term density (see
 * `SnippetTerms.best`). Terms are normalized like `codeTokens` output (e.g. `PromptAnalysis.terms`).
 * For many files and the same terms, `new SnippetTerms(terms)` once is cheaper.
 */
export function bestSnippet(text: string, terms: readonly WeightedTerm[], maxLines: number = DEFAULT_SNIPPET_LINES): Snippet {
  return new SnippetTerms(terms).best(text, maxLines);
}
