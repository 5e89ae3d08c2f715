'use strict';
// Child process of the quality benchmark: one repository. Its pairs are asked in commit order, each
// of the tree at the fix's parent: the first tree is indexed cold, each next one by `refresh` after
// a checkout (what Sous does on a branch switch: only changed files are read again). The plain BM25
// baseline indexes the same files, kept current the same way.
// Usage: node repo-child.js <job.json> <out.json>
//   job.json: { repo, mirror, work, topN, pairs: [{ id, query, parent }] }
//   out.json: { cold: { files, ms }, refreshMs: [..], results: { id: { sous: [path], bm25: [path], rationale: [..], queryMs } } }
const fs = require('node:fs');
const path = require('node:path');
const { PlainBm25 } = require('./plain-bm25');
const { workClone, checkout, wholeTreePolicy, syncBaseline } = require('./trees');

const root = path.join(__dirname, '..', '..', '..');
const { buildRepositoryIndex } = require(path.join(root, 'shared', 'retrieval', 'dist'));

async function main() {
  const [jobFile, outFile] = process.argv.slice(2);
  const job = JSON.parse(fs.readFileSync(jobFile, 'utf8'));
  const work = workClone(job.mirror, job.work);
  const policy = wholeTreePolicy(root);
  const bm25 = new PlainBm25();
  const shas = new Map();
  const out = { cold: null, refreshMs: [], results: {} };
  let index = null;
  for (const pair of job.pairs) {
    checkout(work, pair.parent);
    const t0 = process.hrtime.bigint();
    if (index === null) {
      index = await buildRepositoryIndex(work, policy);
      out.cold = { files: index.size, ms: Number(process.hrtime.bigint() - t0) / 1e6, skipped: index.stats().skipped };
    } else {
      await index.refresh();
      out.refreshMs.push(Number(process.hrtime.bigint() - t0) / 1e6);
    }
    syncBaseline(bm25, shas, index, work);
    const q0 = process.hrtime.bigint();
    const answer = index.query(pair.query, { topN: job.topN });
    const queryMs = Number(process.hrtime.bigint() - q0) / 1e6;
    out.results[pair.id] = {
      sous: answer.items.map((i) => i.path),
      rationale: answer.items.map((i) => ({ path: i.path, score: i.score, why: i.rationale.map((r) => `${r.signal} ${r.weight}: ${r.detail}`) })),
      bm25: bm25.search(pair.query, job.topN),
      queryMs,
      files: index.size,
    };
  }
  fs.writeFileSync(outFile, JSON.stringify(out));
}

// Exit once written: the parser pool would otherwise keep the process alive until its idle timeout.
main().then(() => process.exit(0)).catch((err) => {
  process.stderr.write(`quality repo-child: ${err && err.stack ? err.stack : err}\n`);
  process.exit(1);
});
