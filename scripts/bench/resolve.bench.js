'use strict';
// `sous.resolve` latency (docs/resolve.md, docs/benchmarks.md): a daemon (embedded store) on a scratch
// clone of a real public repository (default: the casey/just mirror), a few goals declared from its
// recent history so ready predictions exist, then `POST /v1/resolve` timed over loopback for cache
// hits (each prediction's anticipated prompt, as written and reworded) and misses (commit subjects
// from `git log --format=%s`), then a replayed session: older commit subjects in the order they were
// written, each rated by a simulated user who knows which files that commit changed (`useful` when
// the briefing named one, `irrelevant` otherwise), so the history source prepares from the session's
// own past and later prompts can hit (by words, or by evidence; docs/resolve.md).
// Reproduce: npm run build && npm run bench -- resolve [--repo DIR] [--calls N] [--json]
//
// Nothing is written into the mirror: the daemon watches a `git clone --shared` in a temp dir, removed
// at the end with the Sous home, also when the benchmark fails (`sous down` first).
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { summary, renderRows } = require('./stats');

const { freePort, sousJson, until, openScratch } = require('./daemon-session');
const DEFAULT_REPO = '/work/.mirror/casey+just/repo';
const DEFAULTS = { calls: 300, goals: 3 };
/** Hit ≤ 20 ms p99, miss ≤ 150 ms p99 (no model). */
const TARGETS = { hitP99Ms: 20, missP99Ms: 150 };
const WARMUP = 10;

function parseArgs(args) {
  const opts = { ...DEFAULTS, repo: DEFAULT_REPO, json: false };
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (a === '--json') opts.json = true;
    else if (a === '--repo') opts.repo = args[++i];
    else if (a === '--calls' || a === '--goals') {
      const n = Number(args[++i]);
      if (!Number.isInteger(n) || n < 1) throw new Error(`${a} must be an integer >= 1`);
      opts[a.slice(2)] = n;
    } else throw new Error(`unknown option ${a}; options: --repo DIR, --calls N, --goals N, --json`);
  }
  if (!fs.existsSync(opts.repo)) throw new Error(`no repository at ${opts.repo} (--repo DIR)`);
  return opts;
}

async function call(base, method, route, body, headers = {}) {
  const res = await fetch(`${base}${route}`, { method, headers: { ...(body ? { 'content-type': 'application/json' } : {}), ...headers }, body: body ? JSON.stringify(body) : undefined });
  const json = await res.json().catch(() => ({}));
  if (!res.ok) throw new Error(`${method} ${route}: HTTP ${res.status} ${JSON.stringify(json)}`);
  return json;
}

/** Commits (newest first) with their subject and the files they touched that still exist. */
function history(repo) {
  const out = execFileSync('git', ['log', '--no-merges', '--format=%x00%s', '--name-only', '-n', '2000'], { cwd: repo, encoding: 'utf8', maxBuffer: 1 << 26 });
  return out
    .split('\0')
    .filter(Boolean)
    .map((chunk) => {
      const [subject, ...files] = chunk.split('\n').filter(Boolean);
      return { subject: subject.trim(), files: files.filter((f) => fs.existsSync(path.join(repo, f))) };
    })
    .filter((c) => c.subject.length > 0);
}

/** The same words in another order and case: what a user retyping the prompt might send. */
function reword(prompt) {
  const words = prompt.replace(/^continue:\s*/i, '').split(/\s+/);
  return `${words.reverse().join(' ').toLowerCase()}, continue`;
}

/**
 * The replayed session, oldest first: resolve each subject, note hit/miss (and how), whether the
 * briefing named a file the commit really changed, and rate it as that user would.
 */
async function replay(base, session) {
  const byMatch = { prompt: [], evidence: [], miss: [] };
  const named = { prompt: 0, evidence: 0, miss: 0 };
  let shifts = 0;
  for (const c of session) {
    const t = process.hrtime.bigint();
    const r = await call(base, 'POST', '/v1/resolve', { prompt: c.subject }, { 'x-sous-client': 'bench-session' });
    const ms = Number(process.hrtime.bigint() - t) / 1e6;
    const kind = r.cache === 'hit' ? r.match : 'miss';
    byMatch[kind].push(ms);
    if (r.category_shift) shifts += 1;
    const touched = new Set(c.files);
    const useful = r.evidence.some((e) => touched.has(e.path));
    if (useful) named[kind] += 1;
    await call(base, 'POST', `/v1/resolutions/${r.resolution_id}/feedback`, { value: useful ? 'useful' : 'irrelevant' });
  }
  const part = (k) => ({ ...(byMatch[k].length ? summary(byMatch[k]) : { n: 0 }), named_changed_file: named[k] });
  const hits = byMatch.prompt.length + byMatch.evidence.length;
  return { prompts: session.length, hits, hit_rate: session.length ? hits / session.length : 0, prompt: part('prompt'), evidence: part('evidence'), miss: part('miss'), category_shifts: shifts };
}

async function series(base, prompts, n, client) {
  const samples = [];
  let hits = 0;
  for (let i = 0; i < WARMUP + n; i++) {
    const t = process.hrtime.bigint();
    const r = await call(base, 'POST', '/v1/resolve', { prompt: prompts[i % prompts.length] }, { 'x-sous-client': client });
    const ms = Number(process.hrtime.bigint() - t) / 1e6;
    if (i >= WARMUP) {
      samples.push(ms);
      if (r.cache === 'hit') hits += 1;
    }
  }
  return { ...summary(samples), hits };
}

exports.run = async function run(args) {
  const opts = parseArgs(args);
  const log = opts.json ? () => {} : (m) => process.stderr.write(`\r\x1b[K${m}`);
  const { repo, env, close } = openScratch('sous-bench-resolve-', opts.repo);
  let result;
  try {
    const commits = history(repo);
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    log('daemon: starting and indexing');
    const t0 = Date.now();
    await sousJson(['up', '--path', repo, '--port', String(port), '--json'], env);
    const files = await until('index ready', async () => {
      const s = await call(base, 'GET', '/status');
      return s.index && s.index.state === 'ready' ? s.index.files_indexed ?? null : undefined;
    }, 15 * 60_000, 250);
    const indexMs = Date.now() - t0;
    // Goals from the most recent commits that touched files still present: what the user was working on.
    const seeds = commits.filter((c) => c.files.length > 0).slice(0, opts.goals);
    const goalIds = [];
    for (const c of seeds) goalIds.push((await call(base, 'POST', '/goals', { title: c.subject.slice(0, 200), related_files: c.files.slice(0, 10) })).goal.id);
    log('predictions: waiting until ready');
    const predictions = await until('ready predictions', async () => {
      const ready = (await call(base, 'GET', '/predictions')).predictions.filter((p) => goalIds.includes(p.goal_id) && p.state === 'ready');
      return ready.length === goalIds.length ? ready : undefined;
    }, 5 * 60_000, 200);
    const hitPrompts = predictions.flatMap((p) => [p.prompt, reword(p.prompt)]);
    // Misses: the older history (the seeds' own subjects excluded), as written.
    const older = commits.slice(opts.goals).slice(0, Math.max(opts.calls, 200));
    const session = older.map((c) => c.subject);
    log(`resolve: ${opts.calls} hits`);
    const hit = await series(base, hitPrompts, opts.calls, 'bench-hit');
    log(`resolve: ${opts.calls} misses`);
    const miss = await series(base, session, opts.calls, 'bench-miss');
    // The miss series' resolutions carry no feedback, so the session's history starts empty.
    log('resolve: replayed session');
    const replayed = await replay(base, older.filter((c) => c.files.length > 0).reverse());
    log('');
    result = {
      machine: `${os.cpus().length} cores, ${Math.round(os.totalmem() / 2 ** 30)} GiB, node ${process.version}`,
      repo: opts.repo,
      commits: commits.length,
      index: { files, ready_ms: indexMs },
      goals: seeds.map((c) => c.subject),
      hit,
      miss,
      session: replayed,
      targets: TARGETS,
    };
  } finally {
    close();
  }
  if (opts.json) {
    process.stdout.write(JSON.stringify(result, null, 2) + '\n');
    return;
  }
  const ok = (b) => (b ? 'ok' : 'MISSED');
  const rows = [['figure', 'measured', 'target', '']];
  rows.push(['repository', `${result.repo} (${result.commits} commits), ${result.index.files} files indexed in ${(result.index.ready_ms / 1000).toFixed(1)} s`, '', '']);
  rows.push(['goals declared', result.goals.join(' | '), '', '']);
  rows.push([`hit (${result.hit.n} calls, ${result.hit.hits} hits)`, `p50 ${result.hit.p50.toFixed(1)} ms, p99 ${result.hit.p99.toFixed(1)} ms, max ${result.hit.max.toFixed(1)} ms`, `p99 <= ${TARGETS.hitP99Ms} ms`, ok(result.hit.p99 <= TARGETS.hitP99Ms)]);
  rows.push([`miss (${result.miss.n} calls, ${result.miss.hits} hits)`, `p50 ${result.miss.p50.toFixed(1)} ms, p99 ${result.miss.p99.toFixed(1)} ms, max ${result.miss.max.toFixed(1)} ms`, `p99 <= ${TARGETS.missP99Ms} ms`, ok(result.miss.p99 <= TARGETS.missP99Ms)]);
  const s = result.session;
  const lat = (x) => (x.n ? `p50 ${x.p50.toFixed(1)} ms, p99 ${x.p99.toFixed(1)} ms` : 'none');
  rows.push(['replayed session (git log subjects, oldest first)', `${s.hits}/${s.prompts} hits (${(100 * s.hit_rate).toFixed(1)} %): ${s.prompt.n} by words, ${s.evidence.n} by evidence; ${s.category_shifts} category shifts`, '', '']);
  rows.push(['  session hits by words', `${lat(s.prompt)}; named a file the commit changed: ${s.prompt.named_changed_file}/${s.prompt.n}`, '', '']);
  rows.push(['  session hits by evidence', `${lat(s.evidence)}; named a file the commit changed: ${s.evidence.named_changed_file}/${s.evidence.n}`, '', '']);
  rows.push(['  session misses', `${lat(s.miss)}; named a file the commit changed: ${s.miss.named_changed_file}/${s.miss.n}`, '', '']);
  process.stdout.write(`machine: ${result.machine}\n\n${renderRows(rows)}`);
};
