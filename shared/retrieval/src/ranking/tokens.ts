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
  if (token.length > 3 && token.endsWith('s') && !/(ss|us|is)$/.test(token)) return token.slice(0, -1);
  return token;
}

/**
 * Lowercases, stems and filters one token; returns null for noise (too short or long, stopword,
 * digits only).
 */
export function normalizeToken(raw: string): string | null {
  const lower = raw.toLowerCase().replace(/^[_$]+|[_$]+$/g, '');
  if (lower.length < MIN_TOKEN_LENGTH || lower.length > MAX_TOKEN_LENGTH) return null;
  if (/^[0-9]+$/.test(lower) || STOPWORDS.has(lower)) return null;
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

/**
 * Code-aware tokens of a text, in order and with repeats (term frequency matters to BM25): each
 * identifier yields its whole lowercased form and, for compound names, its parts
 * (`getUserNames` → `getusername`, `user`, `name`). Numbers only survive inside identifiers.
 */
export function codeTokens(text: string): string[] {
  const out: string[] = [];
  for (const match of text.matchAll(IDENTIFIER_RE)) {
    const { whole, parts } = identifierTokens(match[0]);
    if (whole !== null) out.push(whole);
    out.push(...parts);
  }
  return out;
}

/**
 * Baseline tokens for plain BM25: lowercase runs of letters, digits and `_`, no splitting, no
 * stemming, no stopwords. Used only to compare against `codeTokens` in the benchmark.
 */
export function plainTokens(text: string): string[] {
  return text.toLowerCase().split(/[^a-z0-9_]+/).filter((token) => token.length > 0);
}
