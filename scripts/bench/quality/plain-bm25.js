'use strict';
// The baseline Sous is compared with: textbook Okapi BM25 over each file's whole text, tokens =
// lowercase runs of [a-z0-9], no stemming, no stopwords, no path or symbol fields. Incremental, so a
// repository's history can be walked pair by pair without re-reading every file.

const K1 = 1.2;
const B = 0.75;

function tokens(text) {
  return text.toLowerCase().match(/[a-z0-9]+/g) ?? [];
}

class PlainBm25 {
  constructor() {
    /** term -> Map(path -> tf) */
    this.postings = new Map();
    /** path -> { length, terms } */
    this.docs = new Map();
    this.total = 0;
  }

  get size() {
    return this.docs.size;
  }

  set(path, text) {
    this.remove(path);
    const tf = new Map();
    const words = tokens(text);
    for (const w of words) tf.set(w, (tf.get(w) ?? 0) + 1);
    for (const [w, n] of tf) {
      let list = this.postings.get(w);
      if (list === undefined) this.postings.set(w, (list = new Map()));
      list.set(path, n);
    }
    this.docs.set(path, { length: words.length, terms: [...tf.keys()] });
    this.total += words.length;
  }

  remove(path) {
    const doc = this.docs.get(path);
    if (doc === undefined) return;
    for (const w of doc.terms) {
      const list = this.postings.get(w);
      list.delete(path);
      if (list.size === 0) this.postings.delete(w);
    }
    this.total -= doc.length;
    this.docs.delete(path);
  }

  /** The `k` best paths for a query, best first (ties by path). */
  search(query, k) {
    return [...this.scoresOf(query).entries()]
      .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
      .slice(0, k)
      .map(([path]) => path);
  }

  /** Every matching path's score for a query. */
  scoresOf(query) {
    const n = this.docs.size;
    const avgdl = this.total / Math.max(1, n);
    const scores = new Map();
    for (const term of new Set(tokens(query))) {
      const list = this.postings.get(term);
      if (list === undefined) continue;
      // The "+1" form of idf keeps very common terms from scoring negative.
      const idf = Math.log(1 + (n - list.size + 0.5) / (list.size + 0.5));
      for (const [path, f] of list) {
        const s = (idf * f * (K1 + 1)) / (f + K1 * (1 - B + (B * this.docs.get(path).length) / avgdl));
        scores.set(path, (scores.get(path) ?? 0) + s);
      }
    }
    return scores;
  }
}

module.exports = { PlainBm25, tokens };
