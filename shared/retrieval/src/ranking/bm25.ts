/**
 * An in-memory BM25 index with incremental add/remove. Document frequencies and the total length
 * are kept up to date on every change, so a search never rescans the corpus.
 */
import { codeTokens, plainTokens } from './tokens';

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
  length: number;
  terms: string[];
}

/** BM25 over documents keyed by id; ties in `search` are broken by id. */
export class Bm25Index {
  readonly mode: 'code' | 'plain';
  private readonly k1: number;
  private readonly b: number;
  private readonly docs = new Map<string, DocEntry>();
  /** term → docId → term frequency; the map's size is the document frequency. */
  private readonly postings = new Map<string, Map<string, number>>();
  private totalLength = 0;

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

  /** Adds a document, replacing any previous text under the same id. */
  add(docId: string, text: string): void {
    this.remove(docId);
    const tokens = this.tokenize(text);
    const counts = new Map<string, number>();
    for (const token of tokens) counts.set(token, (counts.get(token) ?? 0) + 1);
    for (const [term, tf] of counts) {
      let docsWithTerm = this.postings.get(term);
      if (docsWithTerm === undefined) {
        docsWithTerm = new Map();
        this.postings.set(term, docsWithTerm);
      }
      docsWithTerm.set(docId, tf);
    }
    this.docs.set(docId, { length: tokens.length, terms: [...counts.keys()] });
    this.totalLength += tokens.length;
  }

  /** Removes a document; returns false when it was not indexed. */
  remove(docId: string): boolean {
    const entry = this.docs.get(docId);
    if (entry === undefined) return false;
    for (const term of entry.terms) {
      const docsWithTerm = this.postings.get(term);
      docsWithTerm?.delete(docId);
      if (docsWithTerm?.size === 0) this.postings.delete(term);
    }
    this.docs.delete(docId);
    this.totalLength -= entry.length;
    return true;
  }

  /** Number of documents containing a term (already normalized). */
  documentFrequency(term: string): number {
    return this.postings.get(term)?.size ?? 0;
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
    if (this.docs.size === 0) return [];
    const query = new Map<string, number>();
    for (const t of terms) {
      const { term, weight } = typeof t === 'string' ? { term: t, weight: 1 } : t;
      query.set(term, (query.get(term) ?? 0) + weight);
    }
    const avgLength = this.totalLength / this.docs.size || 1;
    const hits = new Map<string, Bm25Hit>();
    for (const [term, weight] of query) {
      const docsWithTerm = this.postings.get(term);
      if (docsWithTerm === undefined || weight <= 0) continue;
      const idf = this.idf(term);
      for (const [docId, tf] of docsWithTerm) {
        const length = this.docs.get(docId)?.length ?? 0;
        const norm = tf + this.k1 * (1 - this.b + (this.b * length) / avgLength);
        const hit = hits.get(docId) ?? { docId, score: 0, matched: [] };
        hit.score += weight * idf * ((tf * (this.k1 + 1)) / norm);
        hit.matched.push(term);
        hits.set(docId, hit);
      }
    }
    return [...hits.values()]
      .filter((hit) => hit.score > 0)
      .sort((a, b) => b.score - a.score || (a.docId < b.docId ? -1 : a.docId > b.docId ? 1 : 0))
      .slice(0, k);
  }
}
