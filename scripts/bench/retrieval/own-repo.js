'use strict';
// The "own repository" quality form, parent side: each fixture as written, asked of an index of its
// own package alone (own-repo-child.js builds those), and the BM25 baseline over the same files.
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { buildBm25 } = require('./bm25');
const { NODE_MODULES } = require('./packages');

/**
 * Sous rankings of `fixtures` (their `query`, as written) in their packages' own repositories
 * (`source`: `corpus`, made from the corpus with the package's history, or `installed`, the package
 * as node_modules holds it; see own-repo-child.js), as
 * `{ rankings: Map<id, corpus paths>, repositories: { package: { commits, files, buildMs, paths } }, ms }`
 * (`ms`: the child's wall time, making, indexing, asking and removing every repository).
 * Every temp repository lives under one temp dir, removed here also when the child fails.
 */
function ownRepositoryRankings(corpusDir, fixtures, { source = 'corpus' } = {}) {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'sous-bench-own-repo-'));
  try {
    const byPackage = new Map();
    for (const f of fixtures) byPackage.set(f.package, [...(byPackage.get(f.package) ?? []), { id: f.id, query: f.query }]);
    const jobs = path.join(tmp, 'jobs.json');
    const out = path.join(tmp, 'out.json');
    const work = path.join(tmp, 'repos');
    fs.writeFileSync(jobs, JSON.stringify([...byPackage].map(([pkg, queries]) => ({ package: pkg, source, queries }))));
    const started = Date.now();
    const r = spawnSync(process.execPath, [path.join(__dirname, 'own-repo-child.js'), corpusDir, jobs, out, work], { encoding: 'utf8', stdio: ['ignore', 'ignore', 'pipe'] });
    if (r.status !== 0) throw new Error(`own repository index failed: ${r.stderr}`);
    const result = JSON.parse(fs.readFileSync(out, 'utf8'));
    return { rankings: new Map(Object.entries(result.rankings)), repositories: result.repositories, ms: Date.now() - started };
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

/**
 * BM25 per package over the files its own-repository index holds: corpus paths read from the
 * corpus, or with `source` `installed` package paths read from node_modules.
 */
function ownRepositoryBm25(corpusDir, repositories, { source = 'corpus' } = {}) {
  return new Map(Object.entries(repositories).map(([pkg, repo]) => [pkg, buildBm25(source === 'installed' ? path.join(NODE_MODULES, pkg) : corpusDir, repo.paths)]));
}

/** Totals for the JSON output: repositories, files, commits, summed cold-index time, child wall time. */
function ownRepositoryFigures({ repositories, ms }) {
  const all = Object.values(repositories);
  const sum = (key) => all.reduce((n, r) => n + r[key], 0);
  return { repositories: all.length, files: sum('files'), commits: sum('commits'), index_ms: Math.round(sum('buildMs')), ms };
}

module.exports = { ownRepositoryRankings, ownRepositoryBm25, ownRepositoryFigures };
