'use strict';
// Quality fixtures: real changelog entries (bug fixes) and the file where the fixed code lives.
const fs = require('node:fs');
const path = require('node:path');
const { NODE_MODULES } = require('./packages');

const FIXTURES = path.join(__dirname, 'fixtures', 'changelog-fixes.json');
const KS = [1, 3, 5];

/**
 * The query sent to the rankers: the changelog entry as written, without its list marker, issue /
 * PR / commit references and credits. Nothing else is changed (no hand tuning).
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
    .replace(/\s+/g, ' ')
    .trim();
}

/** Loaded fixtures with their `query`. */
function loadFixtures() {
  return JSON.parse(fs.readFileSync(FIXTURES, 'utf8')).fixtures.map((f) => ({ ...f, query: queryFromLine(f.line) }));
}

/** Packages the corpus must contain. */
function fixturePackages(fixtures) {
  return [...new Set(fixtures.map((f) => f.package))].sort();
}

/**
 * Problems that would make a fixture meaningless: its changelog line is gone from the installed
 * package, or its expected file is missing from the corpus or no longer holds the evidence.
 */
function checkFixtures(fixtures, corpusDir) {
  const problems = [];
  const squash = (s) => s.replace(/\s+/g, ' ');
  const changelogs = new Map();
  for (const f of fixtures) {
    const file = path.join(NODE_MODULES, f.package, f.changelog);
    if (!changelogs.has(file)) changelogs.set(file, fs.existsSync(file) ? squash(fs.readFileSync(file, 'utf8')) : '');
    if (!changelogs.get(file).includes(squash(f.line))) problems.push(`${f.id}: line not in ${f.package}/${f.changelog}`);
    const expected = path.join(corpusDir, f.expected);
    if (!fs.existsSync(expected)) problems.push(`${f.id}: ${f.expected} not in the corpus`);
    else if (!fs.readFileSync(expected, 'utf8').includes(f.evidence)) problems.push(`${f.id}: evidence not in ${f.expected}`);
  }
  return problems;
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

module.exports = { loadFixtures, fixturePackages, checkFixtures, accuracy, hasReplicas, queryFromLine, FIXTURES };
