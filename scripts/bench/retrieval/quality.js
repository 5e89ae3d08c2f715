'use strict';
// Quality fixtures: real changelog entries (bug fixes) and the file where the fixed code lives.
const fs = require('node:fs');
const path = require('node:path');
const { NODE_MODULES } = require('./packages');

/**
 * Two sets: `tuning`, the pairs the ranker was developed and tuned against, and `holdout`, pairs
 * from other packages chosen by a fixed rule afterwards and never tuned on (see docs/benchmarks.md).
 */
const FIXTURE_SETS = {
  tuning: path.join(__dirname, 'fixtures', 'changelog-fixes.json'),
  holdout: path.join(__dirname, 'fixtures', 'changelog-fixes-holdout.json'),
};
const FIXTURES = FIXTURE_SETS.tuning;
/**
 * Sets asked of one installed package as a repository of its own, its shipped tree as it is (not
 * of the corpus): `large`, pairs of a package of real-repository size. Their `expected` paths are
 * package-relative (`src/azure.ts`).
 */
const PACKAGE_FIXTURE_SETS = {
  large: path.join(__dirname, 'fixtures', 'changelog-fixes-large.json'),
};
const KS = [1, 3, 5];

/**
 * The query sent to the rankers: the changelog entry as written, without its list marker, issue /
 * PR / commit references (and the empty brackets or `closes` they leave) and credits (`@user`,
 * `thanks to …`, a trailing `(First Last)`). Nothing else is changed (no hand tuning).
 */
function queryFromLine(line) {
  return line
    .replace(/^\s*[-*]\s+/, '')
    .replace(/,?\s*closes(\s*\[#\d+\]\([^)]*\))+/gi, '')
    .replace(/\(?\[`?#?[0-9a-f]+`?\]\([^)]*\)\)?/gi, '')
    .replace(/\s*\((thank you|thanks)\b[^)]*\)/gi, '')
    .replace(/\s*\bSee (issue |commit )?(#\d+|[0-9a-f]{7,40})\.?/gi, '')
    .replace(/\s*\bIssue #\d+\.?/g, '')
    .replace(/\s*\(#\d+\)/g, '')
    .replace(/#\d+\s*/g, '')
    .replace(/,?\s*closes\s*\[[^\]]*\]\([^)]*\)/gi, '')
    .replace(/:?\s*\[pull request \d+\]\([^)]*\)/gi, '')
    .replace(/:?\s*\bpull request\s*$/i, '')
    .replace(/\.?\s*\bCloses\.?\s*$/, '')
    .replace(/,?\s*(thanks to\s*)?@[\w-]+\.?/gi, '')
    .replace(/\s*\(\s*(issue\s*)?[,\s]*\)/gi, '')
    .replace(/\s*\([A-Z][a-z]+(?: [A-Z][a-z]+)+\)\s*$/, '')
    .replace(/\s*\.\s*,\s*$/, '.')
    .replace(/\s+/g, ' ')
    .trim();
}

/**
 * The query as a report filed against the package would carry it: in a repository of many packages
 * an issue names its package (the package's own tracker implies it), so `<package>: <entry>`.
 */
function namedQuery(fixture) {
  return `${fixture.package}: ${fixture.query}`;
}

function readSets(sets) {
  return Object.entries(sets).flatMap(([set, file]) =>
    JSON.parse(fs.readFileSync(file, 'utf8')).fixtures.map((f) => {
      const query = queryFromLine(f.line);
      return { ...f, set, query, namedQuery: namedQuery({ package: f.package, query }) };
    }),
  );
}

/** Loaded fixtures of both corpus sets with their `set`, `query` and `namedQuery`. */
function loadFixtures() {
  return readSets(FIXTURE_SETS);
}

/** Loaded fixtures of the package sets (PACKAGE_FIXTURE_SETS), shaped like `loadFixtures`'. */
function loadPackageFixtures() {
  return readSets(PACKAGE_FIXTURE_SETS);
}

/** Packages the corpus must contain. */
function fixturePackages(fixtures) {
  return [...new Set(fixtures.map((f) => f.package))].sort();
}

/**
 * Problems that would make a fixture meaningless: its changelog line is gone from the installed
 * package, or its expected file is missing or no longer holds the evidence. `expectedFile(f)` is
 * where the expected file is: in the corpus (default `corpusDir`), or in the installed package.
 */
function checkFixtures(fixtures, corpusDir, expectedFile = (f) => path.join(corpusDir, f.expected)) {
  const problems = [];
  const squash = (s) => s.replace(/\s+/g, ' ');
  const changelogs = new Map();
  for (const f of fixtures) {
    const file = path.join(NODE_MODULES, f.package, f.changelog);
    if (!changelogs.has(file)) changelogs.set(file, fs.existsSync(file) ? squash(fs.readFileSync(file, 'utf8')) : '');
    if (!changelogs.get(file).includes(squash(f.line))) problems.push(`${f.id}: line not in ${f.package}/${f.changelog}`);
    const expected = expectedFile(f);
    if (!fs.existsSync(expected)) problems.push(`${f.id}: ${f.expected} not found`);
    else if (!fs.readFileSync(expected, 'utf8').includes(f.evidence)) problems.push(`${f.id}: evidence not in ${f.expected}`);
  }
  return problems;
}

/** `checkFixtures` for package sets: expected files in the installed package. */
function checkPackageFixtures(fixtures) {
  return checkFixtures(fixtures, NODE_MODULES, (f) => path.join(NODE_MODULES, f.package, f.expected));
}

const REPLICA_DIR = /^src\/((?:@[^/]+\/)?[^/]+)-r\d+\//;

/** Whether the corpus holds replicated packages (`--files` above what node_modules has). */
function hasReplicas(paths) {
  return paths.some((p) => REPLICA_DIR.test(p));
}

/**
 * Acc@1/3/5 of `rankings` (fixture id -> paths, best first) and the fixtures missed at 5. With
 * `replicas`, a copy of a file under `src/<package>-r<k>/` is the same code and counts as that file.
 */
function accuracy(fixtures, rankings, { replicas = false } = {}) {
  const hits = Object.fromEntries(KS.map((k) => [k, 0]));
  const misses = [];
  const canonical = (p) => (replicas ? p.replace(REPLICA_DIR, 'src/$1/') : p);
  for (const f of fixtures) {
    const ranked = rankings.get(f.id) ?? [];
    const answers = new Set([f.expected, ...(f.accept ?? [])]);
    const rank = ranked.findIndex((p) => answers.has(canonical(p))) + 1;
    for (const k of KS) if (rank > 0 && rank <= k) hits[k]++;
    if (rank === 0 || rank > 5) misses.push({ id: f.id, query: f.query, expected: f.expected, got: ranked.slice(0, 5) });
  }
  const pct = (n) => Math.round((1000 * n) / Math.max(1, fixtures.length)) / 10;
  return { n: fixtures.length, acc1: pct(hits[1]), acc3: pct(hits[3]), acc5: pct(hits[5]), misses };
}

module.exports = { loadFixtures, loadPackageFixtures, fixturePackages, checkFixtures, checkPackageFixtures, accuracy, hasReplicas, queryFromLine, namedQuery, FIXTURES, FIXTURE_SETS, PACKAGE_FIXTURE_SETS };
