/**
 * An in-memory BM25 index with incremental add/remove. Document frequencies and the total length
 * are kept up to date on every change, so a search never rescans the corpus.
 */
import { codeTermCounts, codeTokens, plainTokens, type TermCounts } from './tokens';
import { topK } from './top-k';

/** BM25 term-frequency saturation. */
export const BM25_K1 = 1.2;
/** BM25 length normalization (0 = none, 1 = full). */
export const BM25_B = 0.75;
/** Default number of hits `search` returns. */
export const DEFAULT_SEARCH_LIMIT = 10;

/** A query term and how much it counts (1 for plain BM25). */
export interface WeightedTerm {
  term: string;
  weight: number;
}

/** One search hit. */
export interface Bm25Hit {
  docId: string;
  score: number;
  /** Query terms the document contains, in query order. */
  matched: string[];
}

/** Options of `Bm25Index`. */
export interface Bm25Options {
  /** `code` (default): `codeTokens`; `plain`: `plainTokens`, the benchmark's baseline. */
  mode?: 'code' | 'plain';
  /** Default BM25_K1. */
  k1?: number;
  /** Default BM25_B. */
  b?: number;
}

interface DocEntry {
  slot: number;
  length: number;
  terms: string[];
  code: boolean;
}

/** Options of `Bm25Index.add`. */
export interface AddOptions {
  /**
   * The document is program code (not docs, data or a changelog). Code documents also form a
   * corpus of their own (`scores(terms, { codeOnly: true })`), with their own frequencies.
   */
  code?: boolean;
}

/** Options of `Bm25Index.scores`. */
export interface ScoreOptions {
  /**
   * Score code documents only, against code documents' own document frequencies and mean length:
   * a word that fills the docs and changelog is still telling among source files, and a changelog
   * that matches every word of a bug report no longer sets the scale.
   */
  codeOnly?: boolean;
}

/**
 * The scores of one query over the whole index (`Bm25Index.scores`). Valid until the index next
 * changes: it reads the index's postings lazily.
 */
export interface Bm25Scores {
  /** Documents scoring above 0. */
  readonly count: number;
  /** The k best hits, best first, ties by id. */
  top(k: number): Bm25Hit[];
  /** One document's hit, or undefined when it scores 0 or is not indexed. */
  hit(docId: string): Bm25Hit | undefined;
  /** One document's score; 0 when it has no hit. */
  score(docId: string): number;
  /** Calls `fn` for every document scoring above 0, in no particular order. */
  forEach(fn: (docId: string, score: number) => void): void;
}

/** BM25 over documents keyed by id; ties in `search` are broken by id. */
export class Bm25Index {
  readonly mode: 'code' | 'plain';
  private readonly k1: number;
  private readonly b: number;
  private readonly docs = new Map<string, DocEntry>();
  /**
   * Documents are numbered by slot so a query adds up scores in a flat array; slots of removed
   * documents are reused.
   */
  private readonly ids: Array<string | undefined> = [];
  private readonly lengths: number[] = [];
  private readonly freeSlots: number[] = [];
  /** term → slot → term frequency; the map's size is the document frequency. */
  private readonly postings = new Map<string, Map<number, number>>();
  /**
   * Each term's one string: documents list their terms by it, so 5,000 files sharing a term hold one
   * copy instead of 5,000 (a third of the index's heap otherwise).
   */
  private readonly terms = new Map<string, string>();
  private totalLength = 0;
  /** The code corpus: document frequencies among code documents, their number and total length. */
  private readonly codeDf = new Map<string, number>();
  private readonly isCode: boolean[] = [];
  private codeDocs = 0;
  private codeLength = 0;

  constructor(options: Bm25Options = {}) {
    this.mode = options.mode ?? 'code';
    this.k1 = options.k1 ?? BM25_K1;
    this.b = options.b ?? BM25_B;
  }

  /** Number of documents. */
  get size(): number {
    return this.docs.size;
  }

  /** Tokenizes text the way this index does (use it to build queries in plain mode). */
  tokenize(text: string): string[] {
    return this.mode === 'plain' ? plainTokens(text) : codeTokens(text);
  }

  /** A text's tokens counted the way this index tokenizes. */
  private termCounts(text: string): TermCounts {
    if (this.mode === 'code') return codeTermCounts(text);
    const counts = new Map<string, number>();
    const tokens = plainTokens(text);
    for (const token of tokens) counts.set(token, (counts.get(token) ?? 0) + 1);
    return { counts, length: tokens.length };
  }

  /** Adds a document, replacing any previous text under the same id. */
  add(docId: string, text: string, options: AddOptions = {}): void {
    this.remove(docId);
    const { counts, length } = this.termCounts(text);
    const code = options.code === true;
    const slot = this.freeSlots.pop() ?? this.ids.length;
    this.ids[slot] = docId;
    this.lengths[slot] = length;
    this.isCode[slot] = code;
    const terms: string[] = [];
    for (const [term, tf] of counts) {
      let docsWithTerm = this.postings.get(term);
      let canonical = this.terms.get(term);
      if (docsWithTerm === undefined || canonical === undefined) {
        docsWithTerm = new Map();
        canonical = term;
        this.postings.set(term, docsWithTerm);
        this.terms.set(term, term);
      }
      docsWithTerm.set(slot, tf);
      terms.push(canonical);
      if (code) this.codeDf.set(canonical, (this.codeDf.get(canonical) ?? 0) + 1);
    }
    this.docs.set(docId, { slot, length, terms, code });
    this.totalLength += length;
    if (code) {
      this.codeDocs++;
      this.codeLength += length;
    }
  }

  /** Removes a document; returns false when it was not indexed. */
  remove(docId: string): boolean {
    const entry = this.docs.get(docId);
    if (entry === undefined) return false;
    for (const term of entry.terms) {
      const docsWithTerm = this.postings.get(term);
      docsWithTerm?.delete(entry.slot);
      if (docsWithTerm?.size === 0) {
        this.postings.delete(term);
        this.terms.delete(term);
      }
      if (entry.code) {
        const df = (this.codeDf.get(term) ?? 1) - 1;
        if (df > 0) this.codeDf.set(term, df);
        else this.codeDf.delete(term);
      }
    }
    this.docs.delete(docId);
    this.ids[entry.slot] = undefined;
    this.lengths[entry.slot] = 0;
    this.isCode[entry.slot] = false;
    this.freeSlots.push(entry.slot);
    this.totalLength -= entry.length;
    if (entry.code) {
      this.codeDocs--;
      this.codeLength -= entry.length;
    }
    return true;
  }

  /** Number of documents containing a term (already normalized). */
  documentFrequency(term: string): number {
    return this.postings.get(term)?.size ?? 0;
  }

  /** Ids of the documents containing a term (already normalized), in no particular order. */
  documentsWith(term: string): string[] {
    const docsWithTerm = this.postings.get(term);
    if (docsWithTerm === undefined) return [];
    const out: string[] = [];
    for (const slot of docsWithTerm.keys()) out.push(this.ids[slot] as string);
    return out;
  }

  /** Lucene's non-negative IDF: ln(1 + (N − df + 0.5) / (df + 0.5)). */
  idf(term: string): number {
    const df = this.documentFrequency(term);
    return Math.log(1 + (this.docs.size - df + 0.5) / (df + 0.5));
  }

  /**
   * The k best documents for weighted terms (strings count with weight 1; repeated terms add up).
   * Terms must already be normalized like this index's tokens. Documents scoring 0 are left out.
   */
  search(terms: ReadonlyArray<WeightedTerm | string>, k: number = DEFAULT_SEARCH_LIMIT): Bm25Hit[] {
    return this.scores(terms).top(k);
  }

  /**
   * Scores every document for weighted terms (as `search`) once, to take the best few and look up
   * others without scoring again. Only the postings of the query terms are read.
   */
  scores(terms: ReadonlyArray<WeightedTerm | string>, options: ScoreOptions = {}): Bm25Scores {
    const codeOnly = options.codeOnly === true;
    const docs = codeOnly ? this.codeDocs : this.docs.size;
    const totalLength = codeOnly ? this.codeLength : this.totalLength;
    const idfOf = (term: string, df: number): number => {
      const d = codeOnly ? (this.codeDf.get(term) ?? 0) : df;
      return Math.log(1 + (docs - d + 0.5) / (d + 0.5));
    };
    const query = new Map<string, number>();
    for (const t of terms) {
      const { term, weight } = typeof t === 'string' ? { term: t, weight: 1 } : t;
      query.set(term, (query.get(term) ?? 0) + weight);
    }
    // Terms that count, in query order: the order of `matched` and of the additions below.
    const used: Array<{ term: string; weight: number; docsWithTerm: Map<number, number> }> = [];
    for (const [term, weight] of query) {
      const docsWithTerm = this.postings.get(term);
      if (docsWithTerm !== undefined && weight > 0) used.push({ term, weight, docsWithTerm });
    }
    const score = new Float64Array(this.ids.length);
    const seen = new Uint8Array(this.ids.length);
    const touched: number[] = [];
    if (docs > 0) {
      const avgLength = totalLength / docs || 1;
      for (const { term, weight, docsWithTerm } of used) {
        const idf = idfOf(term, docsWithTerm.size);
        for (const [slot, tf] of docsWithTerm) {
          if (codeOnly && this.isCode[slot] !== true) continue;
          const length = this.lengths[slot] ?? 0;
          const norm = tf + this.k1 * (1 - this.b + (this.b * length) / avgLength);
          if (seen[slot] === 0) {
            seen[slot] = 1;
            touched.push(slot);
          }
          score[slot] = (score[slot] ?? 0) + weight * idf * ((tf * (this.k1 + 1)) / norm);
        }
      }
    }
    const scored = touched.filter((slot) => (score[slot] ?? 0) > 0);
    const hitOf = (slot: number): Bm25Hit => ({
      docId: this.ids[slot] as string,
      score: score[slot] ?? 0,
      matched: used.filter((u) => u.docsWithTerm.has(slot)).map((u) => u.term),
    });
    const before = (a: number, b: number): boolean => {
      const sa = score[a] ?? 0;
      const sb = score[b] ?? 0;
      return sa > sb || (sa === sb && (this.ids[a] as string) < (this.ids[b] as string));
    };
    return {
      count: scored.length,
      top: (k) => topK(scored, k, before).map(hitOf),
      hit: (docId) => {
        const slot = this.docs.get(docId)?.slot;
        return slot === undefined || !((score[slot] ?? 0) > 0) ? undefined : hitOf(slot);
      },
      score: (docId) => {
        const slot = this.docs.get(docId)?.slot;
        return slot === undefined ? 0 : Math.max(0, score[slot] ?? 0);
      },
      forEach: (fn) => {
        for (const slot of scored) fn(this.ids[slot] as string, score[slot] ?? 0);
      },
    };
  }
}
