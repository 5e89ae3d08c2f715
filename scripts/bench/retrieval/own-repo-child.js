'use strict';
// Child process of the retrieval benchmark for the "own repository" quality form: per package, its
// repository (package-repo.js) is made under <work>, indexed cold with the same API and scope
// policy as index-child.js, asked that package's queries, and removed. Separate from index-child.js
// so the main corpus's cold-index figures (time, peak RSS) stay the index's alone.
// Usage: node own-repo-child.js <corpus> <jobs.json> <out.json> <work>
//   jobs.json: [{ package, source, queries: [{ id, query }] }]; source `corpus` (the package's folder
//              and history in the corpus, paths answered as corpus paths) or `installed` (the
//              package as node_modules holds it, paths answered package-relative)
//   out.json:  { rankings: { id: [path] }, repositories: { package: { commits, files, buildMs, paths } } }
const fs = require('node:fs');
const path = require('node:path');
const { makeInstalledPackageRepository, makePackageRepository, packagePaths } = require('./package-repo');

const root = path.join(__dirname, '..', '..', '..');
const { buildRepositoryIndex, scopePolicyFromConfig } = require(path.join(root, 'shared', 'retrieval', 'dist'));
const { loadConfig, sousPaths } = require(path.join(root, 'shared', 'config', 'dist'));

async function main() {
  const [corpus, jobsFile, outFile, work] = process.argv.slice(2);
  const jobs = JSON.parse(fs.readFileSync(jobsFile, 'utf8'));
  const rankings = {};
  const repositories = {};
  for (const [i, job] of jobs.entries()) {
    const dir = path.join(work, `repo-${i}`);
    try {
      const installed = job.source === 'installed';
      const { commits } = installed ? makeInstalledPackageRepository(job.package, dir) : makePackageRepository(corpus, job.package, dir);
      const policy = scopePolicyFromConfig(loadConfig(sousPaths(dir).config));
      const started = process.hrtime.bigint();
      const index = await buildRepositoryIndex(dir, policy);
      const buildMs = Number(process.hrtime.bigint() - started) / 1e6;
      const toCorpus = installed ? (p) => p : packagePaths(job.package).toCorpus;
      for (const q of job.queries) rankings[q.id] = index.query(q.query, { topN: 5 }).items.map((it) => toCorpus(it.path));
      const paths = index.snapshot().map((r) => toCorpus(r.path));
      repositories[job.package] = { commits, files: index.stats().files_indexed, buildMs, paths };
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }
  fs.writeFileSync(outFile, JSON.stringify({ rankings, repositories }));
}

// Exit once the answer is written: the symbol parser pool otherwise keeps the process alive until
// its idle timeout (10 s) closes it, which is time the benchmark would wait for nothing.
main().then(() => process.exit(0)).catch((err) => {
  process.stderr.write(`own-repo-child: ${err && err.stack ? err.stack : err}\n`);
  process.exit(1);
});
