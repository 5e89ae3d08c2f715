'use strict';
// The baseline the quality figures are compared with: textbook Okapi BM25 over the file text,
// tokens = lowercase runs of [a-z0-9]. No code-aware splitting, no path or symbol boosts.
const fs = require('node:fs');
const path = require('node:path');

const K1 = 1.2;
const B = 0.75;

function tokens(text) {
  return text.toLowerCase().match(/[a-z0-9]+/g) ?? [];
}

/** Builds the index of `relPaths` under `root`; `search(query, topN)` returns paths, best first. */
function buildBm25(root, relPaths) {
  const postings = new Map(); // term -> [docIndex, tf, docIndex, tf, ...]
  const lengths = new Float64Array(relPaths.length);
  let total = 0;
  relPaths.forEach((rel, doc) => {
    const tf = new Map();
    const words = tokens(fs.readFileSync(path.join(root, rel), 'utf8'));
    for (const w of words) tf.set(w, (tf.get(w) ?? 0) + 1);
    for (const [w, n] of tf) {
      const list = postings.get(w);
      if (list) list.push(doc, n);
      else postings.set(w, [doc, n]);
    }
    lengths[doc] = words.length;
    total += words.length;
  });
  const avgdl = total / Math.max(1, relPaths.length);
  const n = relPaths.length;

  const search = (query, topN) => {
    const scores = new Map();
    for (const term of new Set(tokens(query))) {
      const list = postings.get(term);
      if (!list) continue;
      const df = list.length / 2;
      // The "+1" form of idf keeps very common terms from scoring negative.
      const idf = Math.log(1 + (n - df + 0.5) / (df + 0.5));
      for (let i = 0; i < list.length; i += 2) {
        const doc = list[i];
        const f = list[i + 1];
        const s = (idf * f * (K1 + 1)) / (f + K1 * (1 - B + (B * lengths[doc]) / avgdl));
        scores.set(doc, (scores.get(doc) ?? 0) + s);
      }
    }
    return [...scores.entries()]
      .sort((a, b) => b[1] - a[1] || a[0] - b[0])
      .slice(0, topN)
      .map(([doc]) => relPaths[doc]);
  };
  return { search, documents: n };
}

module.exports = { buildBm25, tokens };
