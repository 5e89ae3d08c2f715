'use strict';
// Docs drift on real fixes. Each scenario of the drift set is a real commit that fixed a doc naming
// something the code no longer had (scripts/bench/drift/README.md): its parent is the stale state,
// the fix the fixed one. Every distinct state is checked out from the repository's mirror (full
// history), the whole tree in scope, indexed cold into a workspace of its own and given one warm
// preparation cycle with the default detectors, as `sous prepare` runs it. A scenario is found when
// a ready docs_drift card at the parent names the scenario's doc and one of its tokens; the same card
// at the fix is a false flag. Also: ready cards per tree (the feed's noise), cycle time and tree size.
// Reproduce: npm run build && npm run bench -- drift
//   [--set FILE] [--repo owner/name ...] [--limit N] [--mirrors DIR|map.json] [--keep] [--verbose] [--json] [--out FILE]
//
// With a model checking held findings (SOUS_BENCH_CHECK, SOUS_BENCH_CONFIRM_HELD: cycle-child.js),
// --checks-out FILE writes each check (id from the prompt, repository, state, finding, prompt, answer) as a JSON line.
//
// One child process (scripts/bench/drift/cycle-child.js) per repository, or per STATES_PER_CHILD of
// its states, one at a time: it opens one embedded store for all of them (opening costs seconds).
// Checkouts and stores live in temp dirs, removed afterwards unless --keep.
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { renderRows } = require('./stats');
const h = require('./drift/harness');

const TARGETS = { recall: 80, falseFlags: 0, readyPerTree: 10, cycleSeconds: 30, treeFiles: 2000 };
const FILES_LABEL = TARGETS.treeFiles.toLocaleString('en-US');
/** States one child (one store) handles at most; the store grows by one indexed tree per state. */
const STATES_PER_CHILD = 16;

function parseArgs(args) {
  const opts = { set: null, out: null, repos: [], limit: null, json: false, keep: false, verbose: false, mirrors: null, perChild: STATES_PER_CHILD, checksOut: null };
  const value = (a, i) => (a.includes('=') ? [a.slice(a.indexOf('=') + 1), i] : [args[i + 1], i + 1]);
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    const name = a.split('=')[0];
    let v;
    if (a === '--json') opts.json = true;
    else if (a === '--keep') opts.keep = true;
    else if (a === '--verbose') opts.verbose = true;
    else if (['--set', '--out', '--repo', '--limit', '--mirrors', '--states-per-child', '--checks-out'].includes(name)) {
      [v, i] = value(a, i);
      if (v === undefined || v === '') throw new Error(`${name} needs a value`);
      if (name === '--set') opts.set = v;
      else if (name === '--out') opts.out = v;
      else if (name === '--repo') opts.repos.push(...v.split(',').filter(Boolean));
      else if (name === '--mirrors') opts.mirrors = v;
      else if (name === '--checks-out') opts.checksOut = v;
      else {
        const n = Number(v);
        if (!Number.isInteger(n) || n < 1) throw new Error(`${name} must be a positive integer (found ${v})`);
        if (name === '--limit') opts.limit = n;
        else opts.perChild = n;
      }
    } else throw new Error(`unknown option ${a}; options: --set FILE, --out FILE, --repo owner/name, --limit N, --mirrors DIR|FILE.json, --states-per-child N, --checks-out FILE, --keep, --verbose, --json`);
  }
  return opts;
}

/** Runs the states of one repository, STATES_PER_CHILD per child; sha → result (or { error }). */
function runRepository(repo, mirror, shas, opts, log) {
  const results = {};
  const children = [];
  for (let i = 0; i < shas.length; i += opts.perChild) {
    const chunk = shas.slice(i, i + opts.perChild);
    const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'sous-bench-drift-'));
    const job = path.join(scratch, 'job.json');
    const out = path.join(scratch, 'out.json');
    fs.writeFileSync(job, JSON.stringify({ repo, mirror, scratch, keep: opts.keep, states: chunk }));
    const env = { ...process.env };
    delete env.DATABASE_URL; // the embedded store, always
    const t = Date.now();
    const r = spawnSync(process.execPath, [path.join(__dirname, 'drift', 'cycle-child.js'), job, out], { env, stdio: ['ignore', 'ignore', 'inherit'] });
    let got = { store_ms: null, states: {} };
    try {
      if (fs.existsSync(out)) got = JSON.parse(fs.readFileSync(out, 'utf8'));
    } catch {
      // Cut short mid-write: the states it holds are lost with it, reported as not run.
    }
    const rss = Object.values(got.states).map((x) => x.max_rss_kb ?? 0);
    children.push({ states: chunk.length, store_ms: got.store_ms, ms: Date.now() - t, max_rss_mb: Math.round(Math.max(0, ...rss) / 1024), status: r.status, signal: r.signal });
    for (const sha of chunk) results[sha] = got.states[sha] ?? { error: `the child ended (${r.signal ?? `exit ${r.status}`}) before this state` };
    if (opts.checksOut !== null) {
      const lines = chunk.flatMap((sha) => (got.states[sha]?.checks ?? []).map((c) => JSON.stringify({ id: h.promptId(c.messages), repo, sha, ...c })));
      if (lines.length > 0) fs.appendFileSync(opts.checksOut, `${lines.join('\n')}\n`);
    }
    if (r.status !== 0) log(`drift: ${repo}: child ${r.signal ?? `exit ${r.status}`}; ${chunk.filter((s) => got.states[s] === undefined).length} state(s) not run`);
    if (opts.keep) log(`drift: kept ${scratch}`);
    else fs.rmSync(scratch, { recursive: true, force: true });
  }
  return { results, children };
}

/** Which engine ran: the commit, uncommitted source files, and when shared/engine/dist was last built. */
function engineBuild() {
  const root = path.join(__dirname, '..', '..');
  const git = (args) => {
    try {
      return spawnSync('git', args, { cwd: root, encoding: 'utf8' }).stdout.trim();
    } catch {
      return '';
    }
  };
  let newest = 0;
  const walk = (dir) => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name.endsWith('.js')) newest = Math.max(newest, fs.statSync(p).mtimeMs);
    }
  };
  const dist = path.join(root, 'shared', 'engine', 'dist');
  if (fs.existsSync(dist)) walk(dist);
  const dirty = git(['status', '--porcelain', '--untracked-files=no', '--', 'shared', 'services']).split('\n').filter(Boolean).length;
  return { commit: git(['rev-parse', '--short=10', 'HEAD']), modified_files: dirty, engine_dist_built: newest ? new Date(newest).toISOString() : null };
}

const isReady = (c) => c.state === 'ready';

/** A scenario's outcome from the results of its two states. */
function judge(s, results) {
  const parent = results[s.parent];
  const fix = results[s.fix];
  const out = { id: s.id, repo: s.repo, language: s.language ?? 'unknown', doc: s.doc, tokens: s.tokens.map((t) => t.value), ...(s.invalid ? { invalid: s.invalid } : {}), found: false, found_any: false, matched: [], any_state: [], false_flags: [], false_flags_any_state: [], doc_cards: [], errors: [] };
  if (parent === undefined || parent.error !== undefined) out.errors.push(`parent ${s.parent.slice(0, 10)}: ${parent?.error ?? 'not run'}`);
  if (fix === undefined || fix.error !== undefined) out.errors.push(`fix ${s.fix.slice(0, 10)}: ${fix?.error ?? 'not run'}`);
  for (const [role, r] of [['parent', parent], ['fix', fix]]) {
    const failed = (r?.cycle?.detectors ?? []).find((d) => d.name === 'docs_drift' && d.error);
    if (failed) out.errors.push(`docs_drift failed at the ${role}: ${failed.error}`);
  }
  const brief = (c) => ({ state: c.state, detector: c.detector, claim: c.claim, title: c.title, score: c.score, ...(c.held ? { held: true } : {}), ...(c.held_detector ? { held_detector: true } : {}) });
  for (const c of parent?.cards ?? []) {
    const token = h.matchedToken(c, s);
    if (token !== undefined) {
      out.any_state.push(brief(c));
      if (isReady(c)) out.matched.push(brief(c));
    }
    if (c.kind === 'docs_drift' && h.driftClaimOn(c.claim, s.doc) !== null) out.doc_cards.push(brief(c));
  }
  // Open cards only: a stale or superseded one at the fix is not offered anywhere.
  const open = (c) => c.state === 'ready' || c.state === 'candidate';
  for (const c of fix?.cards ?? []) {
    if (h.matchedToken(c, s) === undefined) continue;
    if (isReady(c)) out.false_flags.push(brief(c));
    if (open(c)) out.false_flags_any_state.push(brief(c));
  }
  // Token-level too: the issue's "stale tokens maintainers later fixed", each counted once.
  const tokenFound = (keep) => s.tokens.filter((t) => (parent?.cards ?? []).some((c) => keep(c) && h.matchedToken(c, { ...s, tokens: [t] }) !== undefined)).length;
  out.tokens_found = tokenFound(isReady);
  // Ready or candidate (the diagnostic view: held detectors, weaker evidence, the feed budget).
  out.tokens_found_any_state = tokenFound(open);
  out.found = out.matched.length > 0;
  out.found_any = out.any_state.length > 0;
  return out;
}

/** A tree's figures: one per distinct state that ran. */
function treeOf(repo, language, sha, r) {
  const ready = (r.cards ?? []).filter(isReady);
  const kinds = {};
  for (const c of ready) kinds[c.kind] = (kinds[c.kind] ?? 0) + 1;
  return {
    repo,
    language,
    sha,
    files: r.files,
    absent: r.absent ?? 0,
    checkout_s: r.checkout_ms / 1000,
    index_s: r.index_ms / 1000,
    cycle_s: r.cycle_ms / 1000,
    complete: r.error === undefined,
    error: r.error,
    ready: ready.length,
    kinds,
    drift_ready: kinds.docs_drift ?? 0,
    candidates: (r.cards ?? []).filter((c) => c.state === 'candidate').length,
    held_by_budget: (r.cards ?? []).filter((c) => c.state === 'candidate' && c.held).length,
    ready_cards: ready.map((c) => ({ kind: c.kind, detector: c.detector, claim: c.claim, title: c.title, score: c.score, ...(c.evidence ? { evidence: c.evidence } : {}) })),
    detectors: r.cycle?.detectors ?? [],
  };
}

const r1 = (x) => Math.round(x * 10) / 10;
const r2 = (x) => Math.round(x * 100) / 100;
const spreadOf = (values) => {
  const s = h.spread(values);
  return { mean: r2(s.mean), median: r2(s.median), max: s.max };
};

/** The figures of a group of scenarios and the trees they ran on. */
function figures(all, trees) {
  // Scenarios the manual review found not to be stale mentions (`invalid`, with the reason) are run
  // and reported, but count neither for recall nor as false flags.
  const judged = all.filter((j) => !j.invalid);
  const n = judged.length;
  const found = judged.filter((j) => j.found).length;
  const foundAny = judged.filter((j) => j.found_any).length;
  const complete = trees.filter((t) => t.complete);
  const ran = trees.filter((t) => t.files !== undefined);
  const kinds = [...new Set(complete.flatMap((t) => Object.keys(t.kinds)))].sort();
  return {
    scenarios: n,
    found,
    recall: n === 0 ? 0 : r1((100 * found) / n),
    tokens: judged.reduce((k, j) => k + j.tokens.length, 0),
    tokens_found: judged.reduce((k, j) => k + (j.tokens_found ?? 0), 0),
    tokens_found_any_state: judged.reduce((k, j) => k + (j.tokens_found_any_state ?? 0), 0),
    invalid: all.length - n,
    recall_with_invalid: all.length === 0 ? 0 : r1((100 * all.filter((j) => j.found).length) / all.length),
    found_any_state: foundAny,
    found_any_state_pct: n === 0 ? 0 : r1((100 * foundAny) / n),
    false_flags: judged.reduce((s, j) => s + j.false_flags.length, 0),
    false_flag_scenarios: judged.filter((j) => j.false_flags.length > 0).length,
    false_flags_any_state: judged.reduce((s, j) => s + j.false_flags_any_state.length, 0),
    scenario_errors: judged.filter((j) => j.errors.length > 0).length,
    trees: trees.length,
    trees_failed: trees.filter((t) => !t.complete).length,
    ready_per_tree: spreadOf(complete.map((t) => t.ready)),
    ready_per_tree_by_kind: Object.fromEntries(kinds.map((k) => [k, spreadOf(complete.map((t) => t.kinds[k] ?? 0))])),
    docs_drift_ready_per_tree: spreadOf(complete.map((t) => t.drift_ready)),
    held_by_budget_per_tree: spreadOf(complete.map((t) => t.held_by_budget)),
    trees_over_ready_target: complete.filter((t) => t.ready > TARGETS.readyPerTree).length,
    cycle_s: { p50: r2(h.percentile(ran.map((t) => t.cycle_s), 50) || 0), max: r2(Math.max(0, ...ran.map((t) => t.cycle_s))) },
    index_s: { p50: r2(h.percentile(ran.map((t) => t.index_s), 50) || 0), max: r2(Math.max(0, ...ran.map((t) => t.index_s))) },
    files: { median: h.spread(ran.map((t) => t.files)).median, max: Math.max(0, ...ran.map((t) => t.files)) },
  };
}

/** Per detector over all trees: p50 and max ms, candidates, failures. */
function detectorFigures(trees) {
  const by = new Map();
  for (const t of trees) for (const d of t.detectors) {
    const e = by.get(d.name) ?? { ms: [], candidates: 0, errors: [] };
    e.ms.push(d.ms);
    e.candidates += d.candidates;
    if (d.error) e.errors.push(`${t.repo}@${t.sha.slice(0, 10)}: ${d.error}`);
    by.set(d.name, e);
  }
  return Object.fromEntries([...by].sort().map(([name, e]) => [name, { p50_ms: h.percentile(e.ms, 50), max_ms: Math.max(...e.ms), candidates: e.candidates, errors: e.errors }]));
}

const fmtSpread = (s) => `${s.mean.toFixed(1)} / ${s.median} / ${s.max}`;

function renderTable(result) {
  const rows = [['', 'scen', 'found (recall)', 'any state', 'false flags', 'ready/tree mean/med/max', 'docs_drift ready/tree', 'cycle s p50/max', 'files med/max']];
  const row = (label, f) => [
    label,
    String(f.scenarios),
    `${f.found} (${f.recall.toFixed(1)} %)`,
    `${f.found_any_state} (${f.found_any_state_pct.toFixed(1)} %)`,
    String(f.false_flags),
    fmtSpread(f.ready_per_tree),
    fmtSpread(f.docs_drift_ready_per_tree),
    `${f.cycle_s.p50.toFixed(1)} / ${f.cycle_s.max.toFixed(1)}`,
    `${f.files.median} / ${f.files.max}`,
  ];
  for (const r of result.repositories) rows.push(row(`${r.repo} (${r.language})`, r));
  for (const [lang, f] of Object.entries(result.languages)) rows.push(row(`all ${lang}`, f));
  rows.push(row('all', result.overall));
  return renderRows(rows);
}

function writeText(result, judged, opts) {
  const o = result.overall;
  const ok = (b) => (b ? 'ok' : 'MISSED');
  const w = (s) => process.stdout.write(s);
  w(`set: ${result.set} (${result.scenarios_run} scenarios over ${result.repositories.length} repositories, ${o.trees} trees)\n`);
  w(`machine: ${result.machine}\n`);
  const b0 = result.build;
  w(`engine: commit ${b0.commit}${b0.modified_files ? ` + ${b0.modified_files} modified files` : ''}, shared/engine/dist built ${b0.engine_dist_built ?? 'never'}\n`);
  if (result.skipped.length > 0) w(`skipped: ${result.skipped.map((s) => `${s.repo} (${s.scenarios} scenario${s.scenarios === 1 ? '' : 's'}: ${s.reason})`).join('; ')}\n`);
  w(`\n${renderTable(result)}\n`);
  const kinds = Object.entries(o.ready_per_tree_by_kind).map(([k, s]) => `${k} ${fmtSpread(s)}`).join('; ');
  w(`ready cards per tree by kind (mean / median / max): ${kinds || 'none'}\n`);
  w(`cards held back by the feed budget (exploration.max_ready_cards) per tree (mean / median / max): ${fmtSpread(o.held_by_budget_per_tree)}\n`);
  w(`index s per tree: p50 ${o.index_s.p50.toFixed(1)}, max ${o.index_s.max.toFixed(1)}\n`);
  const dets = Object.entries(result.detectors).map(([n, d]) => `${n} p50 ${(d.p50_ms / 1000).toFixed(2)} s / max ${(d.max_ms / 1000).toFixed(2)} s (${d.candidates} candidates${d.errors.length ? `, ${d.errors.length} FAILED` : ''})`);
  w(`detector time per tree: ${dets.join('; ') || 'n/a'}\n`);
  for (const [n, d] of Object.entries(result.detectors)) for (const e of d.errors.slice(0, 5)) w(`  ${n} failed on ${e}\n`);
  const b = result.biggest_tree;
  if (b) w(`biggest tree: ${b.repo}@${b.sha.slice(0, 10)}, ${b.files} files: index ${b.index_s.toFixed(1)} s, cycle ${b.cycle_s.toFixed(1)} s${b.error ? ` (${b.error})` : ''}\n`);
  const big = result.trees_2000;
  w(`trees of >= ${FILES_LABEL} files: ${big.n}${big.n ? `, cycle p50 ${big.cycle_p50_s.toFixed(1)} s, max ${big.cycle_max_s.toFixed(1)} s` : ''}\n`);
  const sl = result.slowest_tree;
  if (sl) w(`slowest cycle: ${sl.repo}@${sl.sha.slice(0, 10)}, ${sl.files} files: cycle ${sl.cycle_s.toFixed(1)} s (${sl.slowest_detector}), index ${sl.index_s.toFixed(1)} s\n`);
  const failedDetector = result.trees.filter((t) => t.detector_errors > 0);
  if (failedDetector.length > 0) w(`trees where a detector failed: ${failedDetector.length} (scenarios touched: ${judged.filter((j) => j.errors.some((e) => e.startsWith('docs_drift failed'))).length})\n`);
  const partial = result.trees.filter((t) => t.absent > 0);
  if (partial.length > 0) w(`files absent from partial mirrors (left out of the tree, skip-worktree): ${partial.reduce((n, t) => n + t.absent, 0)} in ${partial.length} trees (${[...new Set(partial.map((t) => t.repo))].join(', ')})\n`);
  if (o.trees_failed > 0) w(`trees that failed or timed out: ${o.trees_failed} (${result.failed_trees.map((t) => `${t.repo}@${t.sha.slice(0, 10)}: ${t.error}`).join('; ')})\n`);
  w('\ntargets:\n');
  w(`  recall ${o.recall.toFixed(1)} % (${o.found}/${o.scenarios}; target >= ${TARGETS.recall} %): ${ok(o.recall >= TARGETS.recall)}${o.invalid ? ` (${o.recall_with_invalid.toFixed(1)} % counting the ${o.invalid} scenario(s) marked invalid)` : ''}\n`);
  w(`  stale tokens found: ${o.tokens_found}/${o.tokens} (${o.tokens === 0 ? '0.0' : ((100 * o.tokens_found) / o.tokens).toFixed(1)} %; a scenario counts as found above when one of its tokens is)\n`);
  w(`  stale tokens in the diagnostic view (ready or candidate): ${o.tokens_found_any_state}/${o.tokens} (${o.tokens === 0 ? '0.0' : ((100 * o.tokens_found_any_state) / o.tokens).toFixed(1)} %); open candidates at fix states naming a token: ${o.false_flags_any_state}\n`);
  w(`  false flags at fix states ${o.false_flags} (${o.false_flag_scenarios} scenarios; target ${TARGETS.falseFlags}): ${ok(o.false_flags <= TARGETS.falseFlags)}\n`);
  w(`  ready cards per tree: mean ${o.ready_per_tree.mean.toFixed(1)}, max ${o.ready_per_tree.max} (target <= ${TARGETS.readyPerTree} on every tree): ${ok(o.trees_over_ready_target === 0)}${o.trees_over_ready_target ? ` (${o.trees_over_ready_target} trees over)` : ''}\n`);
  const target = `target <= ${TARGETS.cycleSeconds} s for a ${FILES_LABEL}-file tree on 2 cores`;
  if (big.n > 0) {
    const t = big.slowest;
    w(`  cycle on trees of >= ${FILES_LABEL} files: max ${t.cycle_s.toFixed(1)} s (${t.repo}@${t.sha.slice(0, 10)}, ${t.files} files; ${target}): ${ok(t.cycle_s <= TARGETS.cycleSeconds)}\n`);
  } else if (b) w(`  cycle on the biggest tree (${b.files} files) ${b.cycle_s.toFixed(1)} s (${target}; no tree that big in this run): ${ok(b.cycle_s <= TARGETS.cycleSeconds)}\n`);
  w(`ran in ${(result.elapsed_ms / 1000).toFixed(0)} s (${result.children.length} child process${result.children.length === 1 ? '' : 'es'}, store open p50 ${((h.percentile(result.children.map((c) => c.store_ms ?? 0), 50) || 0) / 1000).toFixed(1)} s, child peak RSS ${Math.max(0, ...result.children.map((c) => c.max_rss_mb))} MB)\n`);
  if (!opts.verbose) return;
  for (const j of judged.filter((x) => x.invalid)) w(`\nINVALID ${j.id} ${j.doc}: ${j.tokens.join(', ')} (${j.found ? 'flagged' : 'not flagged'}; ${j.false_flags.length} flag(s) at the fix): ${j.invalid}\n`);
  for (const j of judged.filter((x) => !x.found && !x.invalid)) {
    w(`\nMISS ${j.id} ${j.doc}: ${j.tokens.join(', ')}${j.errors.length ? ` [${j.errors.join('; ')}]` : ''}\n`);
    if (j.doc_cards.length === 0) w('  no docs_drift card on the doc at the parent\n');
    for (const c of j.doc_cards) w(`  ${c.state}${c.held ? ' (held by the feed budget)' : ''} ${c.detector} ${c.claim} (score ${c.score})\n`);
  }
  for (const j of judged.filter((x) => x.false_flags.length > 0 && !x.invalid)) {
    w(`\nFALSE FLAG ${j.id} at fix ${result.scenarios.find((s) => s.id === j.id)?.fix?.slice(0, 10) ?? ''}:\n`);
    for (const c of j.false_flags) w(`  ${c.detector} ${c.claim}: ${c.title}\n`);
  }
}

exports.run = async function run(args) {
  const started = Date.now();
  const log = (m) => process.stderr.write(`${m}\n`);
  const fail = (m) => {
    process.stderr.write(`drift: ${m}\n`);
    process.exitCode = 2;
  };
  let opts;
  try {
    opts = parseArgs(args);
  } catch (err) {
    return fail(err.message);
  }
  const setFile = path.resolve(opts.set ?? h.DEFAULT_SET);
  let scenarios;
  try {
    scenarios = h.loadSet(setFile, { repos: opts.repos, limit: opts.limit });
  } catch (err) {
    return fail(err.message);
  }
  if (scenarios.length === 0) return fail(`no scenarios in ${setFile}${opts.repos.length ? ` for ${opts.repos.join(', ')}` : ''}`);
  const source = h.mirrorSource(opts.mirrors);

  // Mirrors and commits first: what cannot run is named before anything runs.
  const byRepo = new Map();
  for (const s of scenarios) byRepo.set(s.repo, [...(byRepo.get(s.repo) ?? []), s]);
  const skipped = [];
  const plan = [];
  for (const [repo, list] of byRepo) {
    const mirror = h.resolveMirror(repo, source);
    if (mirror === null) {
      log(`drift: no mirror of ${repo} under ${source.dir}${Object.keys(source.map).length ? ' nor in the mirrors map' : ''}: fetch github:${repo}; its ${list.length} scenario(s) are skipped`);
      skipped.push({ repo, scenarios: list.length, reason: 'no mirror' });
      continue;
    }
    const missing = new Set([...new Set(list.flatMap((s) => [s.parent, s.fix]))].filter((sha) => !h.hasCommit(mirror, sha)));
    const runnable = list.filter((s) => !missing.has(s.parent) && !missing.has(s.fix));
    if (missing.size > 0) {
      log(`drift: ${repo}: ${missing.size} commit(s) not in ${mirror} (${[...missing].map((x) => x.slice(0, 10)).join(', ')}): fetch github:${repo} again; ${list.length - runnable.length} scenario(s) skipped`);
      skipped.push({ repo, scenarios: list.length - runnable.length, reason: `commits missing from the mirror` });
    }
    if (runnable.length > 0) plan.push({ repo, mirror, list: runnable });
  }
  if (plan.length === 0) return fail(`nothing to run: no mirror holds the set's commits (fetch ${[...byRepo.keys()].map((r) => `github:${r}`).join(', ')})`);

  const build = engineBuild();
  const judged = [];
  const trees = [];
  const children = [];
  for (const [i, { repo, mirror, list }] of plan.entries()) {
    const shas = [...new Set(list.flatMap((s) => [s.parent, s.fix]))];
    log(`drift: ${repo} (${i + 1}/${plan.length}): ${list.length} scenario(s), ${shas.length} state(s)`);
    const { results, children: ran } = runRepository(repo, mirror, shas, opts, log);
    children.push(...ran.map((c) => ({ repo, ...c })));
    const language = list[0].language ?? 'unknown';
    for (const sha of shas) {
      const r = results[sha];
      trees.push(r.files === undefined ? { repo, language, sha, complete: false, error: r.error, detectors: [] } : treeOf(repo, language, sha, r));
    }
    for (const s of list) judged.push(judge(s, results));
  }

  const group = (keyOf) => {
    const keys = [...new Set(judged.map(keyOf))];
    return keys.map((k) => [k, figures(judged.filter((j) => keyOf(j) === k), trees.filter((t) => keyOf(t) === k))]);
  };
  const ran = trees.filter((t) => t.files !== undefined);
  const biggest = ran.reduce((a, t) => (a === null || t.files > a.files ? t : a), null);
  const big = ran.filter((t) => t.files >= TARGETS.treeFiles);
  const slowestOf = (list) => list.reduce((a, t) => (t.cycle_s > a.cycle_s ? t : a));
  const brief = (t) => ({ repo: t.repo, sha: t.sha, files: t.files, index_s: r2(t.index_s), cycle_s: r2(t.cycle_s) });
  const slowestDetector = (t) => {
    const d = [...t.detectors].sort((x, y) => y.ms - x.ms)[0];
    return d ? `${d.name} ${(d.ms / 1000).toFixed(1)} s` : 'no detector ran';
  };
  const result = {
    set: setFile,
    machine: `${os.cpus().length} cores, ${Math.round(os.totalmem() / 2 ** 30)} GiB, node ${process.version}`,
    build,
    scenarios_run: judged.length,
    skipped,
    targets: TARGETS,
    overall: figures(judged, trees),
    languages: Object.fromEntries(group((x) => x.language)),
    repositories: group((x) => x.repo).map(([repo, f]) => ({ repo, language: judged.find((j) => j.repo === repo).language, ...f })),
    detectors: detectorFigures(trees),
    biggest_tree: biggest && { repo: biggest.repo, sha: biggest.sha, files: biggest.files, index_s: r2(biggest.index_s), cycle_s: r2(biggest.cycle_s), ...(biggest.error ? { error: biggest.error } : {}) },
    trees_2000: { n: big.length, cycle_p50_s: r2(h.percentile(big.map((t) => t.cycle_s), 50) || 0), cycle_max_s: r2(Math.max(0, ...big.map((t) => t.cycle_s))), slowest: big.length ? brief(slowestOf(big)) : null },
    slowest_tree: ran.length ? { ...brief(slowestOf(ran)), slowest_detector: slowestDetector(slowestOf(ran)) } : null,
    failed_trees: trees.filter((t) => !t.complete).map((t) => ({ repo: t.repo, sha: t.sha, error: t.error })),
    children,
    elapsed_ms: Date.now() - started,
    scenarios: judged.map((j) => ({ ...j, parent: scenarios.find((s) => s.id === j.id).parent, fix: scenarios.find((s) => s.id === j.id).fix })),
    trees: trees.map((t) => ({ repo: t.repo, sha: t.sha, files: t.files, absent: t.absent, checkout_s: t.checkout_s && r2(t.checkout_s), index_s: t.index_s && r2(t.index_s), cycle_s: t.cycle_s && r2(t.cycle_s), ready: t.ready, kinds: t.kinds, candidates: t.candidates, held_by_budget: t.held_by_budget, ready_cards: t.ready_cards, detector_errors: (t.detectors ?? []).filter((d) => d.error).length, ...(t.error ? { error: t.error } : {}) })),
  };
  if (opts.out) fs.writeFileSync(opts.out, `${JSON.stringify(result, null, 1)}\n`);
  if (opts.json) {
    process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
    return result;
  }
  writeText(result, judged, opts);
  return result;
};
