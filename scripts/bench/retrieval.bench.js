'use strict';
// Retrieval figures on a large real code base: corpus, cold index (time, files/s, peak RSS), rg for
// scale, the daemon and /v1/context over HTTP (RSS, latency at 1 and 50 clients closed loop and at
// 500 req/s open loop, a hello-world reference, save-to-visible),
// and Acc@1/3/5 on real changelog fixes next to a plain BM25 baseline (in the corpus, and in each
// fixture package's own repository). See docs/benchmarks.md.
// Reproduce: npm run build && npm run bench -- retrieval [--files N] [--skip-http] [--json] [--verbose]
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { percentile, round } = require('./stats');
const { ensureCorpus } = require('./retrieval/corpus');
const { loadFixtures, loadPackageFixtures, fixturePackages, checkFixtures, checkPackageFixtures, accuracy, hasReplicas } = require('./retrieval/quality');
const { buildBm25 } = require('./retrieval/bm25');
const { ownRepositoryRankings, ownRepositoryBm25, ownRepositoryFigures } = require('./retrieval/own-repo');
const { rgFigures } = require('./retrieval/rg');
const { httpFigures } = require('./retrieval/http');
const { renderTable, renderMisses, TARGETS } = require('./retrieval/report');

const DEFAULT_FILES = 5000;
/**
 * Cold indexes timed, each in a fresh child process; the table shows the median. One run on a
 * shared 2-core machine varied by a third from run to run (the same build took 7.7 s and 11.2 s).
 */
const COLD_RUNS = 3;

function parseArgs(args) {
  const opts = { files: DEFAULT_FILES, skipHttp: false, json: false, verbose: false };
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (a === '--skip-http') opts.skipHttp = true;
    else if (a === '--json') opts.json = true;
    else if (a === '--verbose') opts.verbose = true;
    else if (a === '--files' || a.startsWith('--files=')) {
      const raw = a.includes('=') ? a.slice(a.indexOf('=') + 1) : args[++i];
      const n = Number(raw);
      if (!Number.isInteger(n) || n < 100) throw new Error(`--files must be an integer >= 100 (found ${raw})`);
      opts.files = n;
    } else throw new Error(`unknown option ${a}; options: --files N, --skip-http, --json, --verbose`);
  }
  return opts;
}

/** Cold index and Sous rankings in a child process (its peak RSS is the index's alone). */
function coldIndex(repo, fixtures) {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'sous-bench-child-'));
  try {
    const queries = path.join(tmp, 'queries.json');
    const out = path.join(tmp, 'out.json');
    // Each fixture twice: as written, and with its package named (`<id>#named`).
    fs.writeFileSync(queries, JSON.stringify(fixtures.flatMap((f) => [{ id: f.id, query: f.query }, { id: `${f.id}#named`, query: f.namedQuery }])));
    const r = spawnSync(process.execPath, [path.join(__dirname, 'retrieval', 'index-child.js'), repo, queries, out], { encoding: 'utf8', stdio: ['ignore', 'ignore', 'pipe'] });
    if (r.status !== 0) throw new Error(`cold index failed: ${r.stderr}`);
    return JSON.parse(fs.readFileSync(out, 'utf8'));
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

exports.run = async function run(args) {
  const opts = parseArgs(args);
  const log = opts.json ? () => {} : (m) => process.stderr.write(`\r\x1b[K${m}`);
  const fixtures = loadFixtures();

  let t = Date.now();
  log('corpus: preparing');
  const corpus = ensureCorpus({ files: opts.files, firstPackages: fixturePackages(fixtures), log });
  corpus.build_ms = Date.now() - t;
  const problems = checkFixtures(fixtures, corpus.dir);
  if (problems.length > 0) process.stderr.write(`\nretrieval bench: ${problems.length} fixtures left out:\n  ${problems.join('\n  ')}\n`);
  const scored = fixtures.filter((f) => !problems.some((p) => p.startsWith(`${f.id}:`)));
  const packageFixtures = loadPackageFixtures();
  const packageProblems = checkPackageFixtures(packageFixtures);
  if (packageProblems.length > 0) process.stderr.write(`\nretrieval bench: ${packageProblems.length} package fixtures left out:\n  ${packageProblems.join('\n  ')}\n`);
  const packageScored = packageFixtures.filter((f) => !packageProblems.some((p) => p.startsWith(`${f.id}:`)));

  log(`cold index: ${corpus.files} files`);
  // The first run also answers the quality queries; the others only time a build.
  const runs = [coldIndex(corpus.dir, scored)];
  for (let i = 1; i < COLD_RUNS; i++) {
    log(`cold index: ${corpus.files} files, run ${i + 1} of ${COLD_RUNS}`);
    runs.push(coldIndex(corpus.dir, []));
  }
  const child = runs[0];
  const buildMs = runs.map((r) => r.buildMs).sort((a, b) => a - b);
  const medianMs = buildMs[Math.floor(buildMs.length / 2)];
  log('bm25 baseline');
  const bm25 = buildBm25(corpus.dir, child.paths);
  const replicas = hasReplicas(child.paths);
  const sousRankings = new Map(Object.entries(child.rankings));
  log(`own repositories: ${fixturePackages(scored).length} packages`);
  const own = ownRepositoryRankings(corpus.dir, scored);
  const ownBm25 = ownRepositoryBm25(corpus.dir, own.repositories);
  // Per query form: the query, and each ranker's top 5 for a fixture. "own repository" asks the
  // entry as written of the fixture's package alone (retrieval/own-repo.js); replicas are not there.
  const forms = [
    { form: 'as written', query: (f) => f.query, sous: (f) => sousRankings.get(f.id), bm25: (f) => bm25.search(f.query, 5), replicas },
    { form: 'package named', query: (f) => f.namedQuery, sous: (f) => sousRankings.get(`${f.id}#named`), bm25: (f) => bm25.search(f.namedQuery, 5), replicas },
    { form: 'own repository', query: (f) => f.query, sous: (f) => own.rankings.get(f.id), bm25: (f) => ownBm25.get(f.package).search(f.query, 5), replicas: false },
  ];
  log(`installed packages as repositories: ${fixturePackages(packageScored).join(', ')}`);
  const installed = ownRepositoryRankings(corpus.dir, packageScored, { source: 'installed' });
  const installedBm25 = ownRepositoryBm25(corpus.dir, installed.repositories, { source: 'installed' });
  // One entry per fixture set and query form; rankings are looked up under the fixture's id.
  const quality = { packages: fixturePackages(scored).length, replicas, own_repositories: ownRepositoryFigures(own), package_repositories: ownRepositoryFigures(installed), sets: [] };
  for (const set of ['tuning', 'holdout']) {
    const fixtures = scored.filter((f) => f.set === set);
    for (const { form, query, sous, bm25: bm, replicas: rep } of forms) {
      const asked = fixtures.map((f) => ({ ...f, query: query(f) }));
      quality.sets.push({
        set,
        form,
        packages: fixturePackages(fixtures).length,
        sous: accuracy(asked, new Map(fixtures.map((f) => [f.id, sous(f) ?? []])), { replicas: rep }),
        bm25: accuracy(asked, new Map(fixtures.map((f) => [f.id, bm(f)])), { replicas: rep }),
      });
    }
  }
  // Package sets: only the own-repository form (the package is the repository).
  for (const set of [...new Set(packageScored.map((f) => f.set))]) {
    const fixtures = packageScored.filter((f) => f.set === set);
    const packages = fixturePackages(fixtures);
    quality.sets.push({
      set,
      form: 'own repository',
      packages: packages.length,
      files: packages.reduce((n, pkg) => n + installed.repositories[pkg].files, 0),
      sous: accuracy(fixtures, new Map(fixtures.map((f) => [f.id, installed.rankings.get(f.id) ?? []]))),
      bm25: accuracy(fixtures, new Map(fixtures.map((f) => [f.id, installedBm25.get(f.package).search(f.query, 5)]))),
    });
  }

  log('rg');
  const rg = rgFigures(corpus.dir);
  let http;
  if (!opts.skipHttp) {
    t = Date.now();
    http = await httpFigures(corpus.dir, { log });
  }
  log('');

  const result = {
    machine: `${os.cpus().length} cores, ${Math.round(os.totalmem() / 2 ** 30)} GiB, node ${process.version}`,
    corpus,
    cold_index: {
      files: child.stats.files_indexed,
      ms: round(medianMs),
      runs_ms: buildMs.map(round),
      files_per_s: Math.round(child.stats.files_indexed / (medianMs / 1000)),
      max_rss_kb: Math.max(...runs.map((r) => r.maxRssKb)),
      skipped: child.stats.skipped,
      query_ms: { n: child.queryMs.length, p50: round(percentile(child.queryMs, 50)), p99: round(percentile(child.queryMs, 99)) },
    },
    rg,
    ...(http === undefined ? {} : { http }),
    quality,
    targets: TARGETS,
  };
  if (opts.json) {
    process.stdout.write(JSON.stringify(result, null, 2) + '\n');
    return;
  }
  process.stdout.write(`machine: ${result.machine}; corpus at ${corpus.dir}\n\n`);
  process.stdout.write(renderTable(result));
  if (opts.verbose) process.stdout.write(renderMisses(quality));
};
