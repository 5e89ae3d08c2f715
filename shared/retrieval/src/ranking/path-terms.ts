/**
 * Path terms: the words of a file's folders and name (`src/qs/lib/parse.js` → qs, lib, parse).
 * A bug report names the component far more often than the file ("the clover report", "qs parse",
 * "routing without a method"), and a folder or file name is a short, deliberate label, so a prompt
 * word that is one counts on its own instead of drowning in a long file's body text.
 */
import type { PromptAnalysis } from './prompt';
import { TERM_WEIGHTS, type TermKind } from './weights';
import { splitIdentifier } from '../symbols/identifiers';
import { addTo, deleteFrom } from './set-map';
import { normalizeToken } from './tokens';
import porter2 = require('wink-porter2-stemmer');

/**
 * A path token present in more than this share of the files labels nothing (`src`, `lib`, `index`);
 * it is not looked up, which also keeps a query from visiting most files.
 */
export const PATH_TERM_MAX_SHARE = 0.1;
/** ...but in a small repository a token in this many files still counts. */
export const PATH_TERM_MIN_CAP = 20;

/**
 * Porter2 (English Snowball) stem: a stronger stem than `stem` (which keeps code names
 * recognizable), used only to compare prompt words with path words, where prose forms must meet
 * labels: routing / route, instrumentation / instrument, reading / read-coverage.
 */
export function pathStem(token: string): string {
  return porter2(token);
}

/**
 * Distinct stemmed words of a repository path's folders and file name, extension dropped
 * (`src/v8-to-istanbul/lib/source.js` → v8, istanbul, lib, source, src).
 */
export function pathTerms(path: string): string[] {
  const segments = path.split('/');
  const last = segments.length - 1;
  const out = new Set<string>();
  segments.forEach((segment, i) => {
    const name = i === last ? segment.replace(/\.[^.]*$/, '') : segment;
    for (const part of splitIdentifier(name)) {
      const token = normalizeToken(part);
      if (token !== null) out.add(pathStem(token));
    }
  });
  return [...out];
}

/**
 * A path's share saturates like BM25's term frequency: `score / (score + PATH_TERM_HALF × ln(1 + N))`.
 * It is one half when the matched words weigh as much as the rarest possible plain word, so one rare
 * identifier or two rare words count far more than one common word (`error`, `util`), and a path
 * matching more still ranks above one matching less.
 */
export const PATH_TERM_HALF = 1;

/** A component label (`router: …`) weighs like a whole identifier. */
const LABEL_WEIGHT = TERM_WEIGHTS.identifier;

/**
 * Prompt terms compared with path words besides labels: code (names, fragments, frames, errors,
 * mentioned files). Plain prose is not: measured on held-out bug reports, prose words matching file
 * names (`spread`, `merge`, `once` against a folder of one-function files) cost more hits than
 * they gave.
 */
const PATH_TERM_KINDS: ReadonlySet<TermKind> = new Set<TermKind>(['identifier', 'frame_function', 'error_type', 'fragment', 'identifier_part', 'error_message', 'path']);

/** A file's path-term match for one prompt. */
export interface PathTermHit {
  /** 0..1: how fully its path matches (see PATH_TERM_HALF). */
  share: number;
  /** The prompt terms its path holds, strongest first. */
  matched: string[];
}

/** Path-term matches of one prompt, by path. */
export type PathTermScores = ReadonlyMap<string, PathTermHit>;

/** Path words → files, kept current as files come and go. */
export class PathTermIndex {
  private readonly byTerm = new Map<string, Set<string>>();
  private readonly termsOf = new Map<string, readonly string[]>();

  get size(): number {
    return this.termsOf.size;
  }

  /** Records a file's path (idempotent). */
  add(path: string): void {
    if (this.termsOf.has(path)) return;
    const terms = pathTerms(path);
    this.termsOf.set(path, terms);
    for (const term of terms) addTo(this.byTerm, term, path);
  }

  remove(path: string): void {
    const terms = this.termsOf.get(path);
    if (terms === undefined) return;
    this.termsOf.delete(path);
    for (const term of terms) deleteFrom(this.byTerm, term, path);
  }

  /**
   * Files whose path holds prompt terms: each matched term adds its prompt weight times its rarity
   * among paths (BM25's idf), and scores are taken relative to the best file. Tokens in too many
   * paths (PATH_TERM_MAX_SHARE) are skipped.
   */
  scores(analysis: Pick<PromptAnalysis, 'labels' | 'terms'>): PathTermScores {
    const n = this.termsOf.size;
    const cap = Math.max(PATH_TERM_MIN_CAP, n * PATH_TERM_MAX_SHARE);
    const weights = new Map<string, { term: string; weight: number }>();
    const add = (term: string, weight: number): void => {
      const key = pathStem(term);
      const previous = weights.get(key);
      if (previous === undefined || previous.weight < weight) weights.set(key, { term, weight });
    };
    for (const label of analysis.labels) add(label, LABEL_WEIGHT);
    for (const t of analysis.terms) if (PATH_TERM_KINDS.has(t.kind)) add(t.term, t.weight);
    const raw = new Map<string, { score: number; matched: Array<{ term: string; value: number }> }>();
    for (const [key, { term, weight }] of weights) {
      const files = this.byTerm.get(key);
      if (files === undefined || files.size > cap) continue;
      const value = weight * Math.log(1 + (n - files.size + 0.5) / (files.size + 0.5));
      for (const path of files) {
        const hit = raw.get(path);
        if (hit === undefined) raw.set(path, { score: value, matched: [{ term, value }] });
        else {
          hit.score += value;
          hit.matched.push({ term, value });
        }
      }
    }
    const half = PATH_TERM_HALF * Math.log(1 + n);
    const out = new Map<string, PathTermHit>();
    for (const [path, hit] of raw) {
      const matched = hit.matched.sort((a, b) => b.value - a.value || (a.term < b.term ? -1 : 1)).map((m) => m.term);
      out.set(path, { share: hit.score / (hit.score + half), matched });
    }
    return out;
  }
}
