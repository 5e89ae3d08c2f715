/**
 * Code-aware tokenization shared by prompt analysis, BM25 and snippets. Identifier splitting is the
 * one `splitIdentifier` of `src/symbols/`, so symbol names and query terms split the same way.
 */
import { splitIdentifier } from '../symbols/identifiers';

/** Tokens shorter than this are noise (`a`, `x`, `i`). Default 2 keeps `id`, `db`, `io`. */
export const MIN_TOKEN_LENGTH = 2;

/** Tokens longer than this are hashes, base64 or minified code, not words. */
export const MAX_TOKEN_LENGTH = 64;

/** A small English + code-keyword stopword list: words too common to tell files apart. */
export const STOPWORDS: ReadonlySet<string> = new Set([
  'a', 'an', 'and', 'are', 'as', 'at', 'be', 'been', 'but', 'by', 'can', 'do', 'does', 'for', 'from',
  'had', 'has', 'have', 'he', 'her', 'his', 'how', 'if', 'in', 'into', 'is', 'it', 'its', 'me', 'my',
  'no', 'not', 'of', 'on', 'or', 'our', 'she', 'so', 'that', 'the', 'their', 'them', 'then', 'there',
  'these', 'they', 'this', 'to', 'too', 'us', 'was', 'we', 'were', 'what', 'when', 'where', 'which',
  'while', 'who', 'why', 'will', 'with', 'would', 'you', 'your', 'should', 'could', 'after', 'before',
  'some', 'any', 'all', 'also', 'just', 'than', 'only', 'very', 'about', 'up', 'out',
  // Code keywords present in nearly every file of a language.
  'const', 'let', 'var', 'def', 'self', 'return', 'function', 'import', 'export', 'fn', 'pub', 'func',
]);

/** What `codeTokens` reads as one identifier. */
export const IDENTIFIER_RE = /[A-Za-z_$][A-Za-z0-9_$]*/g;
/**
 * Light stemming: drops a plural `s` (`users` → `user`, `entries` → `entry`) but keeps
 * `class`, `status`, `analysis`. Deliberately weaker than Porter: code names must stay recognizable.
 */
export function stem(token: string): string {
  if (token.length > 4 && token.endsWith('ies')) return `${token.slice(0, -3)}y`;
  if (token.length > 3 && token.endsWith('s')) {
    // Not after `s`, `u` or `i` (`class`, `status`, `analysis`).
    const before = token.charCodeAt(token.length - 2);
    if (before !== 115 && before !== 117 && before !== 105) return token.slice(0, -1);
  }
  return token;
}

/** `_` or `$`, trimmed from a token's ends. */
const isEdgeMark = (c: number): boolean => c === 95 || c === 36;

/** Whether a non-empty string is all ASCII digits. */
function isDigits(text: string): boolean {
  for (let i = 0; i < text.length; i += 1) {
    const c = text.charCodeAt(i);
    if (c < 48 || c > 57) return false;
  }
  return true;
}

/**
 * Lowercases, stems and filters one token; returns null for noise (too short or long, stopword,
 * digits only).
 */
export function normalizeToken(raw: string): string | null {
  let lower = raw.toLowerCase();
  // Most tokens have no `_`/`$` at their ends: skip the regex (the hot path of snippets and BM25).
  if (lower.length > 0 && (isEdgeMark(lower.charCodeAt(0)) || isEdgeMark(lower.charCodeAt(lower.length - 1)))) {
    lower = lower.replace(/^[_$]+|[_$]+$/g, '');
  }
  if (lower.length < MIN_TOKEN_LENGTH || lower.length > MAX_TOKEN_LENGTH) return null;
  if (isDigits(lower) || STOPWORDS.has(lower)) return null;
  const stemmed = stem(lower);
  return STOPWORDS.has(stemmed) ? null : stemmed;
}

/** The normalized whole identifier and its normalized parts (parts only when it has more than one). */
export interface IdentifierTokens {
  /** Whole identifier, lowercased and stemmed (`getusername`), or null when it is noise. */
  whole: string | null;
  /** Normalized parts (`get` dropped as a stopword: `user`, `name`); empty for one-part names. */
  parts: string[];
}

/** Tokenizes one identifier into its whole form and its parts. */
export function identifierTokens(identifier: string): IdentifierTokens {
  const whole = normalizeToken(identifier);
  const rawParts = splitIdentifier(identifier);
  if (rawParts.length < 2) return { whole, parts: [] };
  const parts: string[] = [];
  for (const raw of rawParts) {
    const token = normalizeToken(raw);
    if (token !== null && token !== whole) parts.push(token);
  }
  return { whole, parts };
}

/** An identifier's tokens in `codeTokens` order: its whole form (unless noise), then its parts. */
function tokensOf(identifier: string): readonly string[] {
  const { whole, parts } = identifierTokens(identifier);
  return whole === null ? parts : [whole, ...parts];
}

/**
 * A map that forgets its oldest entries beyond `limit` entries, so that a process-wide memo keeps a
 * flat memory footprint however many distinct keys pass through it.
 */
export class BoundedMemo<V> {
  private readonly entries = new Map<string, V>();

  constructor(readonly limit: number) {}

  get size(): number {
    return this.entries.size;
  }

  get(key: string): V | undefined {
    return this.entries.get(key);
  }

  set(key: string, value: V): void {
    if (!this.entries.has(key) && this.entries.size >= this.limit) {
      const oldest = this.entries.keys().next();
      if (oldest.done !== true) this.entries.delete(oldest.value);
    }
    this.entries.set(key, value);
  }
}

/**
 * Identifiers whose tokens `identifierTokensOf` remembers: about 300 bytes each, so some 3 MB at
 * most (a query's results hold a few hundred distinct names that match its terms).
 */
export const IDENTIFIER_MEMO_LIMIT = 10_000;
// Longer identifiers (minified code, base64) rarely repeat and would make entries large.
const MEMO_MAX_IDENTIFIER = 128;

// Code repeats its names across files and queries: snippets tokenize the same identifiers again.
const identifierMemo = new BoundedMemo<readonly string[]>(IDENTIFIER_MEMO_LIMIT);

/**
 * `codeTokens` of one whole identifier (an `IDENTIFIER_RE` match): its normalized whole form, then
 * its normalized parts. Remembered process-wide (bounded); the array is shared, do not change it.
 */
export function identifierTokensOf(identifier: string): readonly string[] {
  if (identifier.length > MEMO_MAX_IDENTIFIER) return tokensOf(identifier);
  const known = identifierMemo.get(identifier);
  if (known !== undefined) return known;
  // A slice of a file's text would keep the whole text alive as long as the memo holds it (or a
  // token cut from it); concatenating then slicing copies the characters into a string of its own.
  const own = ` ${identifier}`.slice(1);
  const tokens = tokensOf(own);
  identifierMemo.set(own, tokens);
  return tokens;
}

/**
 * Code-aware tokens of a text, in order and with repeats (term frequency matters to BM25): each
 * identifier yields its whole lowercased form and, for compound names, its parts
 * (`getUserNames` → `getusername`, `user`, `name`). Numbers only survive inside identifiers.
 */
export function codeTokens(text: string): string[] {
  const out: string[] = [];
  forEachCodeToken(text, (token) => out.push(token));
  return out;
}

/** A text's tokens counted: each distinct token once with its frequency, and the number of tokens. */
export interface TermCounts {
  counts: Map<string, number>;
  length: number;
}

/** `codeTokens` of a text counted (what a BM25 document needs), without the list of every token. */
export function codeTermCounts(text: string): TermCounts {
  const counts = new Map<string, number>();
  let length = 0;
  forEachCodeToken(text, (token) => {
    counts.set(token, (counts.get(token) ?? 0) + 1);
    length += 1;
  });
  return { counts, length };
}

/**
 * Calls `fn` with each code token of `text`, in order. A file repeats its names many times: each
 * distinct identifier is split and normalized once per call (half the cost of indexing a file).
 */
function forEachCodeToken(text: string, fn: (token: string) => void): void {
  const seen = new Map<string, readonly string[]>();
  for (const identifier of text.match(IDENTIFIER_RE) ?? []) {
    let tokens = seen.get(identifier);
    if (tokens === undefined) seen.set(identifier, (tokens = tokensOf(identifier)));
    for (const token of tokens) fn(token);
  }
}

/**
 * Baseline tokens for plain BM25: lowercase runs of letters, digits and `_`, no splitting, no
 * stemming, no stopwords. Used only to compare against `codeTokens` in the benchmark.
 */
export function plainTokens(text: string): string[] {
  return text.toLowerCase().split(/[^a-z0-9_]+/).filter((token) => token.length > 0);
}
