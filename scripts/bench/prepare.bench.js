'use strict';
// Preparation figures on the retrieval corpus: index a scratch clone of the corpus into a fresh
// embedded store, run two warm preparation cycles (cold; then nothing changed: cards are kept), then
// plant work in the clone (a renamed function that a README still names, committed; a debug
// statement left uncommitted), restart the index (it re-reads only what moved) and run a third cycle.
// Reports the frontier, candidates, ready and landed cards, per-detector time and the peak RSS of the
// process that did it. See docs/benchmarks.md.
// Reproduce: npm run build && npm run bench -- prepare [--files N] [--json]
//
// The work runs in a child process (this file with `--child`), so its peak RSS is the index's and
// the cycles', not the benchmark's. The store lives in a temp dir: nothing is written into the corpus.
const { execFileSync, spawnSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { round, renderRows } = require('./stats');
const { ensureCorpus } = require('./retrieval/corpus');
const { loadFixtures, fixturePackages } = require('./retrieval/quality');

const DEFAULT_FILES = 5000;
/** Reference budget: the longest cycle the config allows by default (compute.max_cycle_seconds). */
const TARGETS = { cycleSeconds: 300 };

function parseArgs(args) {
  const opts = { files: DEFAULT_FILES, json: false };
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (a === '--json') opts.json = true;
    else if (a === '--files' || a.startsWith('--files=')) {
      const raw = a.includes('=') ? a.slice(a.indexOf('=') + 1) : args[++i];
      const n = Number(raw);
      if (!Number.isInteger(n) || n < 100) throw new Error(`--files must be an integer >= 100 (found ${raw})`);
      opts.files = n;
    } else throw new Error(`unknown option ${a}; options: --files N, --json`);
  }
  return opts;
}

// ---- child: index + two cycles, in its own process ----

async function child(repo, dataDir, outFile) {
  const root = path.join(__dirname, '..', '..');
  const { openStore } = require(path.join(root, 'shared', 'store', 'dist'));
  const { LiveIndex, scopePolicyFromConfig } = require(path.join(root, 'shared', 'retrieval', 'dist'));
  const { loadConfig, sousPaths } = require(path.join(root, 'shared', 'config', 'dist'));
  const { createRepositoryView, defaultDetectors, runCycle } = require(path.join(root, 'shared', 'engine', 'dist'));

  // The workspace config when `sous init` ran there, else the defaults (src/**, docs/**); read only.
  const config = loadConfig(sousPaths(repo).config);
  const policy = scopePolicyFromConfig(config);
  const ms = (t) => Number(process.hrtime.bigint() - t) / 1e6;

  let t = process.hrtime.bigint();
  const store = await openStore({ dataDir });
  const storeMs = ms(t);
  try {
    const workspaceId = (await store.workspaces.upsertByRoot({ rootPath: repo })).id;
    const live = new LiveIndex({ root: repo, policy, store, workspaceId, watch: false });
    t = process.hrtime.bigint();
    await live.start();
    const indexMs = ms(t);
    const indexRssKb = process.resourceUsage().maxRSS;
    const detectors = defaultDetectors();
    const cycle = async () => {
      // A fresh view per cycle, as the daemon does: nothing cached from the previous one.
      const view = createRepositoryView(live.reader(), policy);
      const result = await runCycle({ store, workspaceId, view, trigger: { kind: 'warm' }, config, detectors });
      const ready = await store.workProducts.list({ workspaceId, states: ['ready'], limit: 500 });
      const kinds = {};
      for (const card of ready) kinds[card.kind] = (kinds[card.kind] || 0) + 1;
      return { ...result, ready_count: result.ready.length, ready_total: ready.length, kinds };
    };
    const first = await cycle();
    const second = await cycle();
    const cyclesRssKb = process.resourceUsage().maxRSS;
    const status = live.status();
    const planted = plant(repo, createRepositoryView(live.reader(), policy));
    await live.stop();
    // A restart after the planted changes: the stored index is restored and only moved files are read.
    // Watching, with the daemon's staleness hook: a save marks the cards citing the file stale.
    let onSignal = () => {};
    const again = new LiveIndex({ root: repo, policy, store, workspaceId, watch: {}, onSignal: (signal) => onSignal(signal) });
    t = process.hrtime.bigint();
    await again.start();
    const restartMs = ms(t);
    const restartReads = again.status().reads;
    const reader = again.reader();
    const cycle3 = await (async () => {
      const view = createRepositoryView(reader, policy);
      const result = await runCycle({ store, workspaceId, view, trigger: { kind: 'warm' }, config, detectors });
      const ready = await store.workProducts.list({ workspaceId, states: ['ready'], limit: 500 });
      const kinds = {};
      for (const card of ready) kinds[card.kind] = (kinds[card.kind] || 0) + 1;
      return { ...result, ready_count: result.ready.length, ready_total: ready.length, kinds };
    })();
    const staleMs = await staleLatency(again, { store, workspaceId, repo, policy, config, detectors, setOnSignal: (fn) => (onSignal = fn) });
    await again.stop();
    fs.writeFileSync(
      outFile,
      JSON.stringify({ storeMs, indexMs, files: status.files_indexed, detectors: detectors.map((d) => d.name), cycles: [first, second, cycle3], planted, staleMs, restartMs, restartReads, indexRssKb, cyclesRssKb, maxRssKb: process.resourceUsage().maxRSS }),
    );
  } finally {
    await store.close();
  }
}

/**
 * Plants work in the scratch clone: the first name (by doc path) that a Markdown doc names in
 * backticks and exactly one code file defines and uses is renamed there and committed; a debug statement is
 * then appended to that file, uncommitted. Returns what was planted, or a reason nothing could be.
 */
function plant(repo, view) {
  // Files (other than docs) each word appears in: the renamed name must be gone from code afterwards.
  const filesWith = new Map();
  for (const p of view.paths()) {
    if (p.endsWith('.md')) continue;
    for (const w of new Set((view.text(p) || '').match(/[A-Za-z_$][\w$]*/g) || [])) filesWith.set(w, (filesWith.get(w) || 0) + 1);
  }
  const git = (args) => execFileSync('git', args, { cwd: repo, stdio: 'pipe', encoding: 'utf8', env: { ...process.env, GIT_AUTHOR_NAME: 'bench', GIT_AUTHOR_EMAIL: 'bench@sous.invalid', GIT_COMMITTER_NAME: 'bench', GIT_COMMITTER_EMAIL: 'bench@sous.invalid' } });
  for (const doc of view.paths().filter((p) => p.endsWith('.md')).sort()) {
    for (const m of (view.text(doc) || '').matchAll(/`([A-Za-z_$][\w$]{5,})(?:\(\))?`/g)) {
      const name = m[1];
      const definers = view.definers(name);
      if (definers.length !== 1 || !/\.(js|ts|mjs|cjs)$/.test(definers[0]) || filesWith.get(name) !== 1) continue;
      const file = definers[0];
      const word = new RegExp(`\\b${name.replace(/\$/g, '\\$')}\\b`, 'g');
      const full = path.join(repo, file);
      fs.writeFileSync(full, fs.readFileSync(full, 'utf8').replace(word, `${name}Renamed`));
      git(['commit', '-q', '-am', `Rename ${name} to ${name}Renamed`]);
      fs.appendFileSync(full, "\nconsole.log('sous bench probe');\n");
      return { doc, name, file };
    }
  }
  return { none: 'no doc names a function defined in exactly one code file' };
}

/** Saves measured for save → stale. */
const STALE_SAMPLES = 5;

/**
 * Save → virtual diff stale, as the daemon wires it (services/daemon/src/preparation.ts): the
 * watcher's signal marks cards whose evidence no longer matches stale. Each sample edits the target of
 * a ready virtual diff, waits for the card to go stale, restores the file and regenerates the diff.
 */
async function staleLatency(live, { store, workspaceId, repo, policy, config, detectors, setOnSignal }) {
  const root = path.join(__dirname, '..', '..');
  const { createRepositoryView, markStale, runCycle } = require(path.join(root, 'shared', 'engine', 'dist'));
  const hash = async (p) => live.reader().file(p)?.sha256 ?? null;
  setOnSignal((signal) => void markStale({ store, workspaceId }, signal.kind === 'file_change' ? signal.paths : 'all', hash));
  const samples = [];
  for (let i = 0; i < STALE_SAMPLES; i++) {
    const [card] = await store.workProducts.list({ workspaceId, states: ['ready'], kinds: ['virtual_diff'], limit: 1 });
    if (card === undefined) break;
    const target = card.details.diff.targets[0].path;
    const full = path.join(repo, target);
    const original = fs.readFileSync(full);
    const t = process.hrtime.bigint();
    fs.appendFileSync(full, `\nEdited by the benchmark (${i}).\n`);
    const deadline = Date.now() + 10_000;
    while ((await store.workProducts.get(card.id)).state !== 'stale' && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
    samples.push(Number(process.hrtime.bigint() - t) / 1e6);
    fs.writeFileSync(full, original);
    const sha = card.details.diff.targets[0].sha256;
    while ((await hash(target)) !== sha && Date.now() < deadline + 10_000) await new Promise((r) => setTimeout(r, 10));
    await runCycle({ store, workspaceId, view: createRepositoryView(live.reader(), policy), trigger: { kind: 'warm' }, config, detectors });
  }
  return samples;
}

// ---- parent: corpus, child, table ----

function runChild(corpus) {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'sous-bench-prepare-'));
  try {
    const out = path.join(tmp, 'out.json');
    // A scratch clone (objects shared with the corpus): the planted changes never touch the corpus.
    const repo = path.join(tmp, 'repo');
    execFileSync('git', ['clone', '-q', '--shared', corpus, repo], { stdio: 'pipe' });
    const env = { ...process.env };
    delete env.DATABASE_URL;
    const r = spawnSync(process.execPath, [__filename, '--child', repo, path.join(tmp, 'data'), out], { encoding: 'utf8', env, stdio: ['ignore', 'ignore', 'pipe'] });
    if (r.status !== 0) throw new Error(`prepare child failed: ${r.stderr}`);
    return JSON.parse(fs.readFileSync(out, 'utf8'));
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

function cycleFigures(c) {
  return {
    duration_ms: c.duration_ms,
    frontier: c.frontier,
    candidates: c.candidates,
    ready: c.ready_count,
    landed: c.landed,
    // Ready cards found again unchanged: what "nothing changed" should mostly be.
    kept: c.ready_count - c.landed,
    held: c.held,
    superseded: c.superseded,
    stale: c.stale,
    ready_in_store: c.ready_total,
    kinds: c.kinds,
    detectors: c.detectors.map((d) => ({ name: d.name, ms: d.ms, candidates: d.candidates, ...(d.error ? { error: d.error } : {}) })),
  };
}

function renderTable(r) {
  const status = (ok) => (ok ? 'ok' : 'MISSED');
  const mb = (kb) => Math.round(kb / 1024);
  const rows = [['figure', 'measured', 'target', '']];
  const c = r.corpus;
  rows.push(['corpus', `${c.files} files, ${(c.bytes / 2 ** 20).toFixed(1)} MiB, ${c.commits} commits${c.cached ? ' (cached)' : `, built in ${(c.build_ms / 1000).toFixed(1)} s`}`, '', '']);
  rows.push(['store open (fresh PGlite)', `${(r.store_ms / 1000).toFixed(2)} s`, '', '']);
  rows.push(['index (LiveIndex start, cold)', `${(r.index.ms / 1000).toFixed(2)} s, ${r.index.files} files`, '', '']);
  rows.push(['detectors', r.detectors.length ? r.detectors.join(', ') : 'none registered', '', '']);
  const cycleTarget = `<= ${TARGETS.cycleSeconds} s`;
  const plantedLabel = r.planted.none ? `cycle 3 (nothing planted: ${r.planted.none})` : `cycle 3 (renamed ${r.planted.name} in ${r.planted.file}, named in ${r.planted.doc}; debug line)`;
  for (const [label, cy] of [['cycle 1 (cold)', r.cycle1], ['cycle 2 (nothing changed)', r.cycle2], [plantedLabel, r.cycle3]]) {
    rows.push([label, `${(cy.duration_ms / 1000).toFixed(2)} s`, cycleTarget, status(cy.duration_ms <= TARGETS.cycleSeconds * 1000)]);
    rows.push(['  frontier / candidates', `${cy.frontier} files / ${cy.candidates}`, '', '']);
    rows.push(['  ready: landed / kept', `${cy.ready}: ${cy.landed} / ${cy.kept} (held ${cy.held}, superseded ${cy.superseded}, stale ${cy.stale})`, '', '']);
    const kinds = Object.entries(cy.kinds).map(([k, n]) => `${k} ${n}`).join(', ');
    if (kinds) rows.push(['  ready cards by kind', kinds, '', '']);
    for (const d of cy.detectors) rows.push([`  ${d.name}`, `${d.ms} ms, ${d.candidates} candidates${d.error ? `; failed: ${d.error}` : ''}`, '', d.error ? 'ERROR' : '']);
  }
  rows.splice(rows.findIndex((row) => row[0].startsWith('cycle 3')), 0, ['index restart after planting', `${(r.restart_ms / 1000).toFixed(2)} s, ${r.restart_reads} files read`, '', '']);
  if (r.stale_ms.length > 0) {
    const sorted = [...r.stale_ms].sort((a, b) => a - b);
    const p50 = sorted[Math.floor((sorted.length - 1) / 2)];
    const max = sorted[sorted.length - 1];
    rows.push([`save -> virtual diff stale (${sorted.length} saves)`, `p50 ${p50.toFixed(0)} ms, max ${max.toFixed(0)} ms`, '<= 1000 ms', status(max <= 1000)]);
  } else rows.push(['save -> virtual diff stale', 'n/a (no virtual diff landed)', '<= 1000 ms', '-']);
  rows.push(['peak RSS after index (child)', `${mb(r.index.max_rss_kb)} MB`, '', '']);
  // Index, embedded PostgreSQL and cycles in one process: the daemon's share (docs/benchmarks.md).
  rows.push(['peak RSS after cycles 1-2 (child)', `${mb(r.cycles_max_rss_kb)} MB`, '', '']);
  // The restart builds a second index while the first is still reachable: a benchmark artefact.
  rows.push(['peak RSS at the end (child, two indexes)', `${mb(r.max_rss_kb)} MB`, '', '']);
  return renderRows(rows);
}

exports.run = async function run(args) {
  const opts = parseArgs(args);
  const log = opts.json ? () => {} : (m) => process.stderr.write(`\r\x1b[K${m}`);
  const t = Date.now();
  log('corpus: preparing');
  // The retrieval corpus, with the same fixture packages first, so both benchmarks share one cache.
  const corpus = ensureCorpus({ files: opts.files, firstPackages: fixturePackages(loadFixtures()), log });
  corpus.build_ms = Date.now() - t;
  log(`index and two cycles: ${corpus.files} files`);
  const out = runChild(corpus.dir);
  log('');
  const result = {
    machine: `${os.cpus().length} cores, ${Math.round(os.totalmem() / 2 ** 30)} GiB, node ${process.version}`,
    corpus,
    store_ms: round(out.storeMs),
    index: { ms: round(out.indexMs), files: out.files, max_rss_kb: out.indexRssKb },
    detectors: out.detectors,
    cycle1: cycleFigures(out.cycles[0]),
    cycle2: cycleFigures(out.cycles[1]),
    planted: out.planted,
    restart_ms: round(out.restartMs),
    restart_reads: out.restartReads,
    stale_ms: out.staleMs.map((v) => round(v)),
    cycle3: cycleFigures(out.cycles[2]),
    cycles_max_rss_kb: out.cyclesRssKb,
    max_rss_kb: out.maxRssKb,
    targets: TARGETS,
  };
  if (opts.json) {
    process.stdout.write(JSON.stringify(result, null, 2) + '\n');
    return;
  }
  process.stdout.write(`machine: ${result.machine}; corpus at ${corpus.dir}\n\n`);
  process.stdout.write(renderTable(result));
};

if (require.main === module && process.argv[2] === '--child') {
  const [repo, dataDir, outFile] = process.argv.slice(3);
  child(repo, dataDir, outFile).catch((err) => {
    process.stderr.write(`prepare child: ${err && err.stack ? err.stack : err}\n`);
    process.exit(1);
  });
}
