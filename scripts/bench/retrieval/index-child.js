'use strict';
// Child process of the retrieval benchmark: builds the index in-process (cold) and answers the
// quality queries, so the peak RSS measured is the index's, not the benchmark's.
// Usage: node index-child.js <repo> <queries.json> <out.json>
const fs = require('node:fs');
const path = require('node:path');

const root = path.join(__dirname, '..', '..', '..');
const { buildRepositoryIndex, scopePolicyFromConfig } = require(path.join(root, 'shared', 'retrieval', 'dist'));
const { loadConfig, sousPaths } = require(path.join(root, 'shared', 'config', 'dist'));

async function main() {
  const [repo, queriesFile, outFile] = process.argv.slice(2);
  const queries = JSON.parse(fs.readFileSync(queriesFile, 'utf8'));
  // The workspace config when `sous init` ran there, else the defaults (src/**, docs/**).
  const policy = scopePolicyFromConfig(loadConfig(sousPaths(repo).config));

  const started = process.hrtime.bigint();
  const index = await buildRepositoryIndex(repo, policy);
  const buildMs = Number(process.hrtime.bigint() - started) / 1e6;
  const maxRssKb = process.resourceUsage().maxRSS;

  const rankings = {};
  const queryMs = [];
  for (const q of queries) {
    const t = process.hrtime.bigint();
    rankings[q.id] = index.query(q.query, { topN: 5 }).items.map((i) => i.path);
    queryMs.push(Number(process.hrtime.bigint() - t) / 1e6);
  }
  const stats = index.stats();
  const paths = index.snapshot().map((r) => r.path);
  fs.writeFileSync(outFile, JSON.stringify({ buildMs, maxRssKb, stats, rankings, queryMs, paths }));
}

main().catch((err) => {
  process.stderr.write(`index-child: ${err && err.stack ? err.stack : err}\n`);
  process.exit(1);
});
