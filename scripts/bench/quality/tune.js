#!/usr/bin/env node
'use strict';
// Weight tuning for the ranking, on the quality set, with an honest estimate of how the tuned
// weights do on repositories they were not tuned on.
//
//   node scripts/bench/quality/tune.js dump [--repo owner/name ...]   index every pair's tree, record each file's signal values
//   node scripts/bench/quality/tune.js eval [--weights '{"lexical":0.6}'] [--misses 5]   the current (or given) weights, per repository; the pairs missed at k
//   node scripts/bench/quality/tune.js tune [--rounds N]   coordinate ascent over the weights, with leave-one-repository-out cross-validation
//
// `dump` runs signals-child.js per repository (the same trees as the benchmark) and writes
// <data>/signals/<owner+name>.json. `eval` and `tune` re-rank those files offline: score = Σ weight ×
// value (values already scaled by the role prior), plus the graph lift (best neighbour's score ×
// graph weight, co-change links at COCHANGE_FACTOR), as shared/retrieval ranks them. Cross-validation
// tunes on all repositories but one and scores the one left out, for each repository in turn, so the
// printed CV figure is what the weights do on a repository they never saw.
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { dataDir, mirrorsDir } = require('./paths');

const root = path.join(__dirname, '..', '..', '..');
const { SIGNAL_WEIGHTS, GRAPH_MIN_SOURCE_SCORE, COCHANGE_FACTOR, ROLE_RULES, testedName } = require(path.join(root, 'shared', 'retrieval', 'dist', 'ranking'));

/** Weights and role factors as one flat object: signal names, and `role:<role>` for each role's factor. */
const DEFAULTS = { ...SIGNAL_WEIGHTS, ...Object.fromEntries(ROLE_RULES.map((r) => [`role:${r.role}`, r.factor])) };

const KS = [1, 3, 5, 10];
const signalsDir = () => path.join(dataDir(), 'signals');

function mirrorOf(repo, recorded) {
  if (recorded && fs.existsSync(recorded)) return recorded;
  const dir = path.join(mirrorsDir(), repo.replace('/', '+'));
  for (const c of [path.join(dir, 'repo'), path.join(dir, 'repo', '.git')]) if (fs.existsSync(path.join(c, 'objects'))) return c;
  return null;
}

function dump(repos) {
  const set = JSON.parse(fs.readFileSync(path.join(dataDir(), 'set.json'), 'utf8'));
  const byRepo = new Map();
  for (const p of set.pairs) if (repos.length === 0 || repos.includes(p.repo)) byRepo.set(p.repo, [...(byRepo.get(p.repo) ?? []), p]);
  fs.mkdirSync(signalsDir(), { recursive: true });
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'sous-tune-'));
  try {
    for (const [repo, pairs] of byRepo) {
      const mirror = mirrorOf(repo, pairs[0].mirror ?? set.repositories.find((r) => r.repo === repo)?.mirror);
      if (mirror === null) { process.stderr.write(`no mirror for ${repo}\n`); continue; }
      const ordered = [...pairs].sort((a, b) => (a.date < b.date ? -1 : a.date > b.date ? 1 : 0));
      const job = path.join(tmp, 'job.json');
      const out = path.join(signalsDir(), `${repo.replace('/', '+')}.json`);
      fs.writeFileSync(job, JSON.stringify({ repo, mirror, work: path.join(dataDir(), 'trees', repo.replace('/', '+')), pairs: ordered.map((p) => ({ id: p.id, query: p.query, parent: p.parent, expected: p.expected })) }));
      const t0 = Date.now();
      const r = spawnSync(process.execPath, [path.join(__dirname, 'signals-child.js'), job, out], { encoding: 'utf8', stdio: ['ignore', 'ignore', 'pipe'] });
      if (r.status !== 0) throw new Error(`${repo}: ${r.stderr.trim()}`);
      process.stderr.write(`${repo}: ${pairs.length} pairs, ${((Date.now() - t0) / 1000).toFixed(1)} s\n`);
    }
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

/**
 * The dumps, each pair compiled for fast re-ranking: per file its signal values in a fixed order,
 * its role, and its links as indices.
 */
function loadDumps() {
  const dir = signalsDir();
  const pairs = [];
  for (const f of fs.readdirSync(dir).filter((x) => x.endsWith('.json')).sort()) pairs.push(...JSON.parse(fs.readFileSync(path.join(dir, f), 'utf8')));
  // Experimental signals (`x_…`, signals-child.js) join the tuned weights, starting at 0.
  const only = process.env.TUNE_X === undefined ? null : new Set(process.env.TUNE_X.split(','));
  for (const p of pairs) for (const f of p.files) for (const k in f.s) if (!SIGNALS.includes(k)) { SIGNALS.push(k); DEFAULTS[k] = 0; if (only === null || only.has(k)) TUNED.push(k); }
  return pairs.map(compile);
}

const SIGNALS = Object.keys(SIGNAL_WEIGHTS);
const RECENCY = SIGNALS.indexOf('recently_changed');

/** Roles whose prompt exemption (the prompt asked for tests, docs…) is ignored: `TUNE_NO_EXEMPT=test,docs`. */
const NO_EXEMPT = new Set((process.env.TUNE_NO_EXEMPT ?? '').split(',').filter(Boolean));

function compile(pair) {
  const index = new Map(pair.files.map((f, i) => [f.path, i]));
  const expected = new Set(pair.expected);
  const files = pair.files.map((f) => ({
    path: f.path,
    expected: expected.has(f.path),
    role: f.role === 'source' || (f.exempt && !NO_EXEMPT.has(f.role)) ? null : `role:${f.role}`,
    values: SIGNALS.map((k) => f.s[k] ?? 0),
    links: [...(f.imports ?? []).map((n) => [index.get(n), 1]), ...(f.cochange ?? []).map((n) => [index.get(n), COCHANGE_FACTOR])].filter(([i]) => i !== undefined),
  }));
  // Experimental: each file's folder, for a lift from its siblings (`x_dirlift`).
  const byDir = new Map();
  files.forEach((f, i) => { const d = f.path.slice(0, f.path.lastIndexOf('/') + 1); byDir.set(d, [...(byDir.get(d) ?? []), i]); });
  files.forEach((f) => { f.siblings = byDir.get(f.path.slice(0, f.path.lastIndexOf('/') + 1)).filter((j) => files[j] !== f); });
  // A source file's test counterparts (counterparts.ts): the lift `test_counterpart` is computed here.
  const tests = new Map();
  pair.files.forEach((f, i) => { const name = testedName(f.path); if (name !== undefined) tests.set(name, [...(tests.get(name) ?? []), i]); });
  files.forEach((f, i) => { f.testsOf = pair.files[i].role === 'source' ? (tests.get(f.path.slice(f.path.lastIndexOf('/') + 1)) ?? []) : []; });
  return { id: pair.id, repo: pair.repo, files };
}

/**
 * Rank (1-based) of the first expected file under `w`, as rankFiles ranks (ties by path), 0 when
 * not ranked: one pass for the direct scores, one for the lifts, then a count of who beats it.
 */
function rankOf(pair, w) {
  const ws = SIGNALS.map((k) => w[k] ?? 0);
  const n = pair.files.length;
  const direct = new Float64Array(n);
  const prior = new Float64Array(n);
  pair.files.forEach((f, i) => {
    prior[i] = f.role === null ? 1 : w[f.role];
    let score = 0;
    for (let k = 0; k < ws.length; k++) score += ws[k] * f.values[k];
    direct[i] = score * prior[i];
  });
  const final = new Float64Array(n).fill(-1);
  pair.files.forEach((f, i) => {
    // As rankFiles does: the strongest neighbour lifts; a co-change link passes COCHANGE_FACTOR of it.
    let lift = 0;
    for (const [j, factor] of f.links) if (direct[j] >= (w.graph_min ?? GRAPH_MIN_SOURCE_SCORE)) lift = Math.max(lift, w.graph_neighbour * direct[j] * factor * prior[i]);
    // As rankFiles does: a test named for the file passes test_counterpart of its score before its prior.
    for (const j of f.testsOf) { const raw = prior[j] > 0 ? direct[j] / prior[j] : 0; if (raw >= GRAPH_MIN_SOURCE_SCORE) lift = Math.max(lift, w.test_counterpart * raw * prior[i]); }
    if (w.x_dirlift > 0 && f.siblings.length < 40) for (const j of f.siblings) lift = Math.max(lift, w.x_dirlift * direct[j] * prior[i]);
    // A file related to the prompt by recency alone is not returned (candidates.ts, relatesToPrompt).
    let related = lift > 0;
    for (let k = 0; k < ws.length && !related; k++) related = k !== RECENCY && !SIGNALS[k].startsWith('x_') && ws[k] > 0 && f.values[k] > 0;
    if (related && direct[i] + lift > 0) final[i] = direct[i] + lift;
  });
  let best = -1;
  pair.files.forEach((f, i) => {
    if (f.expected && final[i] >= 0 && (best < 0 || final[i] > final[best] || (final[i] === final[best] && f.path < pair.files[best].path))) best = i;
  });
  if (best < 0) return 0;
  let rank = 1;
  pair.files.forEach((f, i) => {
    if (i !== best && final[i] >= 0 && (final[i] > final[best] || (final[i] === final[best] && f.path < pair.files[best].path))) rank++;
  });
  return rank;
}

/** The pair's files by final score under `w` (as rankOf scores them), best first: for reading misses. */
function ranking(pair, w) {
  const saved = pair.files.map((f) => f.expected);
  const scored = pair.files.map((f, i) => {
    pair.files.forEach((g, j) => { g.expected = j === i; });
    return { f, rank: rankOf(pair, w) };
  });
  pair.files.forEach((f, i) => { f.expected = saved[i]; });
  return scored.filter((x) => x.rank > 0).sort((a, b) => a.rank - b.rank);
}

/** Each pair whose first answer ranks below `k`: the answers, and the files above them with their strongest values. */
function misses(pairs, w, k) {
  const lines = [];
  const top = (f) => SIGNALS.map((s, i) => [s, f.values[i] * (w[s] ?? 0)]).filter(([s, v]) => v > 0.05 && !s.startsWith('x_')).sort((a, b) => b[1] - a[1]).slice(0, 4).map(([s, v]) => `${s} ${v.toFixed(2)}`).join(', ');
  for (const p of pairs) {
    const r = rankOf(p, w);
    if (r > 0 && r <= k) continue;
    const order = ranking(p, w);
    lines.push(`${p.id}  rank ${r || '-'}  answer ${p.files.filter((f) => f.expected).map((f) => f.path).join(' ')}`);
    for (const { f, rank } of order.slice(0, k)) lines.push(`   ${String(rank).padStart(2)} ${f.path} [${f.role ?? 'source'}] ${top(f)}`);
    for (const { f, rank } of order.filter((x) => x.f.expected)) lines.push(`  *${String(rank).padStart(2)} ${f.path} [${f.role ?? 'source'}] ${top(f)}`);
  }
  return lines.join('\n');
}

function metrics(pairs, w) {
  const ranks = pairs.map((p) => rankOf(p, w));
  const n = ranks.length || 1;
  const acc = Object.fromEntries(KS.map((k) => [k, (100 * ranks.filter((r) => r > 0 && r <= k).length) / n]));
  const mrr = ranks.reduce((s, r) => s + (r > 0 ? 1 / r : 0), 0) / n;
  return { n: ranks.length, acc, mrr, ranks };
}

/** What tuning maximizes: the targets' two figures and MRR, each repository weighing the same. */
function objective(pairs, w) {
  const byRepo = groupByRepo(pairs);
  let total = 0;
  for (const list of byRepo.values()) {
    const m = metrics(list, w);
    total += m.acc[5] / 100 + m.acc[1] / 100 + m.mrr;
  }
  return total / byRepo.size;
}

function groupByRepo(pairs) {
  const out = new Map();
  for (const p of pairs) out.set(p.repo, [...(out.get(p.repo) ?? []), p]);
  return out;
}

const TUNED = Object.keys(DEFAULTS).filter((k) => k !== 'role_prior' && k !== 'semantic');
const STEPS = [0, 0.25, 0.5, 0.7, 0.85, 1.15, 1.4, 2, 4];
/**
 * Role factors stay at or above this: on this set (answers are source files by construction) tests
 * and docs would be dropped outright, but an agent asking about code still wants them further down.
 */
const ROLE_FLOOR = 0.1;

/** Coordinate ascent: each weight in turn tries multiples of its value (and 0, and 0.05 when 0). */
function tune(pairs, start, rounds) {
  let w = { ...start };
  let best = objective(pairs, w);
  for (let round = 0; round < rounds; round++) {
    let improved = false;
    for (const k of TUNED) {
      const tries = new Set(STEPS.map((s) => Math.round(w[k] * s * 1000) / 1000).filter((v) => !k.startsWith('role:') || (v <= 1 && v >= ROLE_FLOOR)));
      // A weight at 0 has no multiples: absolute values, so a signal off by default can come in.
      if (w[k] === 0) for (const v of [0.05, 0.1, 0.2, 0.4, 0.8, 1.6]) tries.add(v);
      for (const v of tries) {
        if (v === w[k]) continue;
        const candidate = { ...w, [k]: v };
        const score = objective(pairs, candidate);
        if (score > best + 1e-9) { best = score; w = candidate; improved = true; }
      }
    }
    if (!improved) break;
  }
  return { w, best };
}

function table(pairs, w) {
  const rows = [];
  for (const [repo, list] of groupByRepo(pairs)) {
    const m = metrics(list, w);
    rows.push(`${repo.padEnd(28)} ${String(m.n).padStart(3)}  ${KS.map((k) => m.acc[k].toFixed(1).padStart(5)).join(' ')}  MRR ${m.mrr.toFixed(3)}`);
  }
  const m = metrics(pairs, w);
  rows.push(`${'all'.padEnd(28)} ${String(m.n).padStart(3)}  ${KS.map((k) => m.acc[k].toFixed(1).padStart(5)).join(' ')}  MRR ${m.mrr.toFixed(3)}`);
  return rows.join('\n');
}

function main() {
  const [cmd, ...args] = process.argv.slice(2);
  const opt = (name, fallback) => { const i = args.indexOf(name); return i < 0 ? fallback : args[i + 1]; };
  if (cmd === 'dump') {
    const repos = [];
    args.forEach((a, i) => { if (a === '--repo') repos.push(args[i + 1]); });
    dump(repos);
    return;
  }
  const pairs = loadDumps();
  const given = JSON.parse(opt('--weights', '{}'));
  const weights = { ...DEFAULTS, ...given };
  // Experimental lifts given a start value are tuned too (only those given: DEFAULTS holds every x_ at 0).
  for (const k of Object.keys(given)) if (k.startsWith('x_') && !TUNED.includes(k)) TUNED.push(k);
  if (cmd === 'eval') {
    process.stdout.write(`${table(pairs, weights)}\n`);
    if (args.includes('--ranks')) for (const p of pairs) process.stdout.write(`${p.id} ${rankOf(p, weights)}\n`);
    if (args.includes('--misses')) process.stdout.write(`${misses(pairs, weights, Number(opt('--misses', 5)) || 5)}\n`);
    return;
  }
  if (cmd === 'tune') {
    const rounds = Number(opt('--rounds', 4));
    const repos = [...groupByRepo(pairs).keys()];
    const cvRanks = [];
    for (const held of args.includes('--no-cv') ? [] : repos) {
      const { w } = tune(pairs.filter((p) => p.repo !== held), weights, rounds);
      for (const p of pairs.filter((x) => x.repo === held)) cvRanks.push(rankOf(p, w));
    }
    const n = cvRanks.length || 1;
    const acc = KS.map((k) => ((100 * cvRanks.filter((r) => r > 0 && r <= k).length) / n).toFixed(1));
    process.stdout.write(`start:\n${table(pairs, weights)}\n\nleave-one-repository-out CV Acc@1/3/5/10: ${acc.join(' / ')}  MRR ${(cvRanks.reduce((s, r) => s + (r > 0 ? 1 / r : 0), 0) / n).toFixed(3)}\n`);
    const { w } = tune(pairs, weights, rounds);
    process.stdout.write(`\ntuned on all:\n${table(pairs, w)}\n${JSON.stringify(Object.fromEntries(TUNED.map((k) => [k, w[k]])))}\n`);
    return;
  }
  throw new Error('usage: tune.js dump [--repo owner/name] | eval [--weights JSON] [--ranks] [--misses K] | tune [--rounds N] [--weights JSON]');
}

try {
  main();
} catch (err) {
  process.stderr.write(`tune: ${err.message}\n`);
  process.exit(2);
}
