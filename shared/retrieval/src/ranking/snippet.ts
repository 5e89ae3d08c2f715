/**
 * Picking the most relevant window of lines in a file for a set of query terms.
 *
 * A line scores the weights of the distinct query terms among the `codeTokens` of its identifiers.
 * Tokenizing every line of every result is most of a query's cost, so the text is searched once for
 * the terms' substrings (`needles`) and only the identifiers holding one are tokenized; see
 * `SnippetTerms.lineScores`.
 */
import { splitIdentifier } from '../symbols/identifiers';
import type { WeightedTerm } from './bm25';
import { IDENTIFIER_RE, identifierTokensOf, MAX_TOKEN_LENGTH, normalizeToken } from './tokens';

/** Default window size of `bestSnippet`. */
export const DEFAULT_SNIPPET_LINES = 40;

// Sliding sums of fractional weights drift; equal windows must compare equal.
const EPSILON = 1e-9;

// Identifiers longer than this (minified code, base64) are split only where a needle matches.
const LONG_IDENTIFIER = 256;

/** A window of lines, 1-based and inclusive. */
export interface Snippet {
  startLine: number;
  endLine: number;
  text: string;
}

// `[A-Za-z0-9_$]`, what an `IDENTIFIER_RE` match is made of, by char code.
const IDENTIFIER_CHAR = new Uint8Array(128);
for (const c of 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_$') IDENTIFIER_CHAR[c.charCodeAt(0)] = 1;
const isIdentifierChar = (c: number): boolean => c < 128 && IDENTIFIER_CHAR[c] === 1;
const isDigit = (c: number): boolean => c >= 48 && c <= 57;

// A needle made of identifier characters (ASCII, matched case-insensitively without `u`) only
// matches inside one run of such characters.
const IDENTIFIER_NEEDLE = /^[A-Za-z0-9_$]+$/;
const escapeRegExp = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * The needles no other one is part of: a run holds one of `needles` exactly when it holds one of
 * these (a needle holding another holds it wherever it occurs), and fewer alternatives scan faster.
 */
function innermostNeedles(needles: readonly string[]): string[] {
  const lower = new Set(needles.map((n) => n.toLowerCase()));
  // Each needle's proper substrings are looked up (needles are at most a token long), not every
  // other needle: linear in the number of needles, which a long prompt makes large.
  const holdsAnother = (n: string): boolean => {
    for (let length = 1; length < n.length; length++) {
      for (let start = 0; start + length <= n.length; start++) if (lower.has(n.slice(start, start + length))) return true;
    }
    return false;
  };
  return [...lower].filter((n) => !holdsAnother(n));
}

const isLetter = (c: number): boolean => (c >= 97 && c <= 122) || (c >= 65 && c <= 90);
const isIdentifierPiece = (c: number): boolean => isLetter(c) || isDigit(c);

/**
 * Whether an identifier has two runs of letters or of digits or more (`foo_bar`, `utf8`), so that
 * `splitIdentifier` gives it two parts or more: each run is one part or more.
 */
function hasTwoPieces(identifier: string): boolean {
  let i = 0;
  while (i < identifier.length && !isIdentifierPiece(identifier.charCodeAt(i))) i += 1;
  const letters = isLetter(identifier.charCodeAt(i));
  while (i < identifier.length && isIdentifierPiece(identifier.charCodeAt(i)) && isLetter(identifier.charCodeAt(i)) === letters) i += 1;
  while (i < identifier.length && !isIdentifierPiece(identifier.charCodeAt(i))) i += 1;
  return i < identifier.length;
}

// The end of a run of identifier characters, for long runs (minified code, base64).
const RUN_END = /[^A-Za-z0-9_$]/g;

/** The end of the run of identifier characters at `from`: stepping for short runs, searching for long ones. */
function runEnd(text: string, from: number): number {
  const stepUntil = Math.min(text.length, from + 32);
  let to = from;
  while (to < stepUntil && isIdentifierChar(text.charCodeAt(to))) to += 1;
  if (to < stepUntil || to === text.length) return to;
  RUN_END.lastIndex = to;
  return RUN_END.test(text) ? RUN_END.lastIndex - 1 : text.length;
}

/**
 * Starts, ascending, of the windows of `size` lines where a scored line enters (line - size + 1) or
 * leaves (line + 1) the window, after 0 and up to lastStart.
 */
function windowEvents(scored: readonly number[], size: number, lastStart: number): number[] {
  const events = [0];
  let entering = 0;
  let leaving = 0;
  while (entering < scored.length || leaving < scored.length) {
    const enters = (scored[entering] ?? Number.POSITIVE_INFINITY) - size + 1;
    const leaves = (scored[leaving] ?? Number.POSITIVE_INFINITY) + 1;
    const next = Math.min(enters, leaves);
    if (next === enters) entering += 1;
    if (next === leaves) leaving += 1;
    if (next > lastStart) break;
    if (next > (events[events.length - 1] ?? 0)) events.push(next);
  }
  return events;
}

/**
 * The start of the window of `size` lines (1 ≤ size ≤ n) with the highest score sum; among equal
 * sums (within EPSILON of the best so far) the one whose matches sit most centrally, then the
 * earliest. `scored` lists, ascending, every line whose score is not 0.
 *
 * The result, and each sum bit for bit, are those of sliding over every start, adding the line
 * that enters and subtracting the one that leaves (fractional weights drift, so the order of the
 * additions matters). Between two starts where a scored line enters or leaves, the sum and the
 * window's first and last match stay the same and the off-centre distance |c - 2·start| is
 * V-shaped, so each such stretch is settled at its first start and at its most central one.
 */
function bestWindow(scores: Float64Array, scored: readonly number[], n: number, size: number): number {
  const lastStart = n - size;
  const matched = scored.filter((line) => (scores[line] ?? 0) > 0);
  const events = windowEvents(scored, size, lastStart);
  let bestStart = 0;
  let bestSum = -1;
  let bestOffCentre = Number.POSITIVE_INFINITY;
  let sum = 0;
  for (let i = 0; i < size; i += 1) sum += scores[i] ?? 0;
  // matched[first] is the window's first match when inside it, matched[last] its last.
  let first = 0;
  let last = -1;
  for (let k = 0; k < events.length; k += 1) {
    const start = events[k] ?? 0;
    const stretchEnd = (events[k + 1] ?? lastStart + 1) - 1;
    const end = start + size - 1;
    if (start > 0) sum += (scores[end] ?? 0) - (scores[start - 1] ?? 0);
    while ((matched[first] ?? n) < start) first += 1;
    while ((matched[last + 1] ?? n) <= end) last += 1;
    if (sum < bestSum - EPSILON) continue;
    const firstLine = matched[first] ?? n;
    // Leading minus trailing lines without a match is centre - 2·start; 0 when the window has none.
    const hasMatch = firstLine <= end;
    const centre = hasMatch ? firstLine + (matched[last] ?? end) - size + 1 : 0;
    const offCentre = hasMatch ? Math.abs(centre - 2 * start) : 0;
    if (sum > bestSum + EPSILON || offCentre < bestOffCentre) {
      bestStart = start;
      bestSum = sum;
      bestOffCentre = offCentre;
    }
    if (stretchEnd > start) {
      // The rest of the stretch only wins on a smaller off-centre distance: its first minimum.
      const central = hasMatch ? Math.min(stretchEnd, Math.max(start + 1, Math.floor(centre / 2))) : start + 1;
      const centralOff = hasMatch ? Math.abs(centre - 2 * central) : 0;
      if (centralOff < bestOffCentre) {
        bestStart = central;
        bestSum = sum;
        bestOffCentre = centralOff;
      }
    }
  }
  return bestStart;
}

const isUpper = (c: number): boolean => c >= 65 && c <= 90;

/** Whether letters from..to-1 are all lower case, all upper case, or one upper case then lower case. */
function isOneCase(text: string, from: number, to: number): boolean {
  if (to - from < 2) return true;
  const upper = isUpper(text.charCodeAt(from + 1));
  for (let i = from + 1; i < to; i += 1) if (isUpper(text.charCodeAt(i)) !== upper) return false;
  return !upper || isUpper(text.charCodeAt(from));
}

/** `normalizeToken` of a whole identifier, without lowercasing a long one only to drop it. */
function wholeToken(identifier: string): string | null {
  let from = 0;
  let to = identifier.length;
  while (from < to && (identifier.charCodeAt(from) === 95 || identifier.charCodeAt(from) === 36)) from += 1;
  while (to > from && (identifier.charCodeAt(to - 1) === 95 || identifier.charCodeAt(to - 1) === 36)) to -= 1;
  return to - from > MAX_TOKEN_LENGTH ? null : normalizeToken(identifier);
}

/** Offsets of the lines of `text` as `split(/\r?\n/)` cuts it: each line starts after a `\n`. */
function lineStarts(text: string): number[] {
  const starts = [0];
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) starts.push(i + 1);
  return starts;
}

/** Lines first..first+count-1 joined by `\n`, as `split(/\r?\n/)` then `join('\n')` gives them. */
function linesText(text: string, starts: readonly number[], first: number, count: number): string {
  const from = starts[first] ?? 0;
  let to = text.length;
  const after = starts[first + count];
  if (after !== undefined) {
    to = after - 1;
    if (to > from && text.charCodeAt(to - 1) === 13) to -= 1;
  }
  const raw = text.slice(from, to);
  return raw.includes('\r\n') ? raw.replace(/\r\n/g, '\n') : raw;
}

/**
 * Query terms prepared once for the snippets of many files (one query's results): their weights, the
 * needles to search for, and the terms of each identifier seen (code repeats names across files).
 */
export class SnippetTerms {
  /** Distinct terms, in first-seen order, and each one's (highest) weight. */
  private readonly terms: string[] = [];
  private readonly weights: number[] = [];
  private readonly termIndex = new Map<string, number>();
  /**
   * A test that an identifier may hold one of the terms, so those without any are not tokenized.
   * Every token of an identifier is a lowercased piece of it, maybe stemmed (`entries` → `entry`),
   * so each term minus a final `y` (its needle) is a substring of the lowercased identifier wherever
   * the term occurs. Null without terms.
   */
  private readonly filter: RegExp | null = null;
  /**
   * Finds (global) the runs of identifier characters the filter may pass: only needles of identifier
   * characters can match inside one. Null when no identifier can pass; `every` when all do (an
   * empty needle).
   */
  private readonly scan: RegExp | 'every' | null = null;
  /**
   * Finds (global) where a part of a long identifier may hold a term: the needles of letters only
   * (parts with a digit are digits only). Null when there are none.
   */
  private readonly partScan: RegExp | null = null;
  /** Indexes into `terms` of each identifier's query terms, in token order. */
  private readonly memo = new Map<string, readonly number[]>();

  constructor(terms: readonly WeightedTerm[]) {
    for (const { term, weight } of terms) {
      const index = this.termIndex.get(term);
      if (index === undefined) {
        this.termIndex.set(term, this.terms.length);
        this.terms.push(term);
        this.weights.push(Math.max(0, weight));
      } else {
        this.weights[index] = Math.max(this.weights[index] ?? 0, weight);
      }
    }
    const needles = this.terms.map((t) => (t.endsWith('y') ? t.slice(0, -1) : t));
    if (needles.length === 0) return;
    this.filter = new RegExp(needles.map(escapeRegExp).join('|'), 'i');
    const inside = innermostNeedles(needles.filter((needle) => IDENTIFIER_NEEDLE.test(needle)));
    if (needles.includes('')) this.scan = 'every';
    else if (inside.length > 0) this.scan = new RegExp(inside.map(escapeRegExp).join('|'), 'gi');
    const letters = inside.filter((needle) => /^[a-z]+$/.test(needle));
    if (letters.length > 0) this.partScan = new RegExp(letters.join('|'), 'gi');
  }

  /**
   * The window of at most maxLines lines (rounded down, at least 1) with the highest weighted term density. Among
   * equal windows the one whose matches sit most centrally wins, then the earliest; with no match at
   * all, the first maxLines lines.
   */
  best(text: string, maxLines: number = DEFAULT_SNIPPET_LINES): Snippet {
    const starts = lineStarts(text);
    const n = starts.length;
    const size = Math.max(1, Math.min(Math.floor(maxLines) || 1, n));
    const scored: number[] = [];
    const scores = this.lineScores(text, starts, scored);
    const start = bestWindow(scores, scored, n, size);
    return { startLine: start + 1, endLine: start + size, text: linesText(text, starts, start, size) };
  }

  /**
   * Each line's score: the sum of the weights of the distinct query terms on it (repeats on a line
   * do not add), in order of first occurrence.
   */
  private lineScores(text: string, starts: readonly number[], scored: number[]): Float64Array {
    const scores = new Float64Array(starts.length);
    if (this.scan === null) return scores;
    // The line (plus one) each term was last counted on: a term counts once per line.
    const counted = new Int32Array(this.terms.length);
    let line = 0;
    let nextLine = starts[1] ?? Number.POSITIVE_INFINITY;
    const visit = (identifier: string, at: number): void => {
      const found = this.termsOf(identifier);
      if (found.length === 0) return;
      while (at >= nextLine) {
        line += 1;
        nextLine = starts[line + 1] ?? Number.POSITIVE_INFINITY;
      }
      for (const term of found) {
        if (counted[term] === line + 1) continue;
        counted[term] = line + 1;
        if (scored[scored.length - 1] !== line) scored.push(line);
        scores[line] = (scores[line] ?? 0) + (this.weights[term] ?? 0);
      }
    };
    if (this.scan === 'every') {
      for (const match of text.matchAll(IDENTIFIER_RE)) visit(match[0], match.index);
      return scores;
    }
    const scan = this.scan;
    scan.lastIndex = 0;
    while (scan.test(text)) {
      // The run of identifier characters holding the match (it ends at lastIndex); the run's
      // identifier (`IDENTIFIER_RE`) skips its leading digits.
      let from = scan.lastIndex - 1;
      if (!isIdentifierChar(text.charCodeAt(from))) continue; // never: needles are ASCII, `i` without `u`
      while (from > 0 && isIdentifierChar(text.charCodeAt(from - 1))) from -= 1;
      let to = runEnd(text, scan.lastIndex);
      while (from < to && isDigit(text.charCodeAt(from))) from += 1;
      if (from < to) visit(text.slice(from, to), from);
      scan.lastIndex = to;
    }
    return scores;
  }

  /** Indexes of the query terms among an identifier's tokens (`codeTokens`), in token order. */
  private termsOf(identifier: string): readonly number[] {
    const long = identifier.length > LONG_IDENTIFIER;
    // Long ones rarely repeat: not worth hashing them.
    const known = long ? undefined : this.memo.get(identifier);
    if (known !== undefined) return known;
    const found: number[] = [];
    if (this.filter !== null && this.filter.test(identifier)) {
      const tokens = long && this.scan !== 'every' ? this.longTokensOf(identifier) : identifierTokensOf(identifier);
      for (const token of tokens) {
        const index = this.termIndex.get(token);
        if (index !== undefined) found.push(index);
      }
    }
    if (!long) this.memo.set(identifier, found);
    return found;
  }

  /**
   * The tokens of a long identifier that can be query terms. `splitIdentifier` never joins nor
   * looks past runs of letters (`_`, `$` and digits split), and a part is lower case, upper case or
   * capitalized, so a part holding a term holds a needle written one of those ways (`isOneCase`):
   * only the runs of letters holding such a match are split. Every match is tried, overlapping
   * ones too (two innermost needles never match at one place). Not for `scan === 'every'` (every
   * part may be a term then).
   */
  private longTokensOf(identifier: string): readonly string[] {
    // One run is split whole anyway (and gives parts only if it splits in two).
    if (!hasTwoPieces(identifier)) return identifierTokensOf(identifier);
    const whole = wholeToken(identifier);
    const tokens = whole === null ? [] : [whole];
    const partScan = this.partScan;
    if (partScan === null) return tokens;
    partScan.lastIndex = 0;
    for (let match = partScan.exec(identifier); match !== null; match = partScan.exec(identifier)) {
      const at = match.index;
      let to = at + match[0].length;
      if (!isOneCase(identifier, at, to)) {
        partScan.lastIndex = at + 1;
        continue;
      }
      let from = at;
      while (from > 0 && isLetter(identifier.charCodeAt(from - 1))) from -= 1;
      while (to < identifier.length && isLetter(identifier.charCodeAt(to))) to += 1;
      for (const raw of splitIdentifier(identifier.slice(from, to))) {
        const token = normalizeToken(raw);
        if (token !== null && token !== whole) tokens.push(token);
      }
      partScan.lastIndex = to;
    }
    return tokens;
  }
}

/**
 * The window of at most maxLines lines with the highest weighted term density (see
 * `SnippetTerms.best`). Terms are normalized like `codeTokens` output (e.g. `PromptAnalysis.terms`).
 * For many files and the same terms, one `new SnippetTerms(terms)` is cheaper.
 */
export function bestSnippet(text: string, terms: readonly WeightedTerm[], maxLines: number = DEFAULT_SNIPPET_LINES): Snippet {
  return new SnippetTerms(terms).best(text, maxLines);
}
