'use strict';
// The daemon and the context API over HTTP: `sous up` indexes the corpus in the background,
// `sous proxy --context-only` answers /v1/context from the index the daemon stored. Measures time
// to ready, daemon RSS, /v1/context latency (1 and 50 clients) and save-to-visible latency.
// Every figure that cannot be measured comes back as `{ na: reason }`; everything started is stopped.
const { spawn, spawnSync } = require('node:child_process');
const crypto = require('node:crypto');
const fs = require('node:fs');
const http = require('node:http');
const path = require('node:path');
const { request, poll, freePort, processMemory } = require('./client');
const { PROMPTS } = require('./prompts');
const { percentile, round } = require('../stats');

const CLI = path.join(__dirname, '..', '..', '..', 'services', 'cli', 'dist', 'main.js');
const READY_TIMEOUT_MS = 240_000;
const CONTEXT_TIMEOUT_MS = 120_000;
const VISIBLE_TIMEOUT_MS = 10_000;
/** Files the save-to-visible probes edit, in turn (code files of fixture packages). */
const PROBE_FILES = ['src/qs/lib/utils.js', 'src/router/lib/layer.js', 'src/finalhandler/index.js', 'src/source-map/lib/util.js', 'src/async-lock/lib/index.js'];

function env() {
  const e = { ...process.env };
  delete e.DATABASE_URL; // the embedded store and queue, as a fresh laptop install has
  delete e.REDIS_URL;
  return e;
}

function sous(args) {
  return spawnSync(process.execPath, [CLI, ...args], { env: env(), encoding: 'utf8', timeout: 120_000 });
}

const firstLine = (text) => String(text || '').trim().split('\n').find((l) => l.trim() !== '') || 'no output';

/** Latency of `count` POST /v1/context calls with `clients` concurrent keep-alive clients. */
// `unique`: every request a prompt never asked before (a nonce appended), so answers cannot come
// from the answer cache; otherwise the 20 prompts repeat, as agents and teams repeat questions.
async function loadTest(port, clients, count, unique = false) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: clients });
  const lat = [];
  let next = 0;
  let errors = 0;
  const errorKinds = {};
  const worker = async () => {
    while (next < count) {
      const n = next++;
      const prompt = unique ? `${PROMPTS[n % PROMPTS.length]} (case ${n}-${process.pid}-${Date.now()})` : PROMPTS[n % PROMPTS.length];
      const t = process.hrtime.bigint();
      const res = await request(agent, port, 'POST', '/v1/context', { prompt, top_n: 10 }).catch((err) => ({ status: /timed out/.test(err.message) ? 'timeout' : err.code || 'error' }));
      lat.push(Number(process.hrtime.bigint() - t) / 1e6);
      if (res.status !== 200) {
        errors++;
        errorKinds[res.status] = (errorKinds[res.status] || 0) + 1;
      }
    }
  };
  const started = Date.now();
  await Promise.all(Array.from({ length: clients }, worker));
  const seconds = (Date.now() - started) / 1000;
  agent.destroy();
  return { n: lat.length, p50: round(percentile(lat, 50)), p99: round(percentile(lat, 99)), rps: round(lat.length / seconds), errors, errorKinds };
}

/** Save-to-visible: append a fresh identifier to a file and poll until that file ranks first. */
async function saveToVisible(repo, port, samples) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const files = PROBE_FILES.filter((f) => fs.existsSync(path.join(repo, f)));
  const lat = [];
  let timeouts = 0;
  const topPath = async (prompt) => {
    const res = await request(agent, port, 'POST', '/v1/context', { prompt, top_n: 3 });
    return res.status === 200 && res.body.items && res.body.items[0] ? res.body.items[0].path : undefined;
  };
  try {
    for (let i = 0; i < samples && files.length > 0; i++) {
      const rel = files[i % files.length];
      const abs = path.join(repo, rel);
      const original = fs.readFileSync(abs);
      const id = `sousProbe${crypto.randomBytes(6).toString('hex')}`;
      try {
        const t = process.hrtime.bigint();
        fs.writeFileSync(abs, Buffer.concat([original, Buffer.from(`\nexport const ${id} = 1;\n`)]));
        const seen = await poll(async () => (await topPath(id)) === rel, { everyMs: 10, timeoutMs: VISIBLE_TIMEOUT_MS });
        if (seen) lat.push(Number(process.hrtime.bigint() - t) / 1e6);
        else timeouts++;
      } finally {
        fs.writeFileSync(abs, original);
      }
      // Let the restore land before the next probe, so samples do not overlap.
      await poll(async () => (await topPath(id)) !== rel, { everyMs: 20, timeoutMs: VISIBLE_TIMEOUT_MS });
    }
  } finally {
    agent.destroy();
  }
  if (lat.length === 0) return { na: `no probe became visible within ${VISIBLE_TIMEOUT_MS / 1000} s (${timeouts} tries)` };
  return { n: lat.length, p50: round(percentile(lat, 50)), p95: round(percentile(lat, 95)), max: round(Math.max(...lat)), timeouts };
}

/** Starts the daemon and waits for its index; returns `{ pid, readyMs, filesIndexed }` or `{ na }`. */
async function startDaemon(repo, port, log) {
  const agent = new http.Agent({ keepAlive: true });
  const started = Date.now();
  const up = sous(['up', '--path', repo, '--port', String(port), '--json']);
  if (up.status !== 0) return { na: `sous up failed: ${firstLine(up.stderr || up.stdout)}` };
  let pid;
  try {
    pid = JSON.parse(up.stdout).daemon_pid;
  } catch {
    return { na: 'sous up --json printed no JSON' };
  }
  let last;
  const ready = await poll(
    async () => {
      const res = await request(agent, port, 'GET', '/status');
      last = res.body && res.body.index;
      if (last) log(`daemon: ${last.state}, ${last.files_indexed} files, ${((Date.now() - started) / 1000).toFixed(0)} s`);
      return last && (last.state === 'ready' || last.state === 'failed');
    },
    { everyMs: 200, timeoutMs: READY_TIMEOUT_MS },
  );
  agent.destroy();
  if (!ready) return { pid, na: last ? `index still ${last.state} after ${READY_TIMEOUT_MS / 1000} s` : 'GET /status has no index field' };
  if (last.state === 'failed') return { pid, na: `daemon index failed: ${firstLine(last.error || last.message || JSON.stringify(last))}` };
  return { pid, readyMs: Date.now() - started, filesIndexed: last.files_indexed };
}

/** Starts the context process; resolves `{ child, port }` once /v1/context answers 200, else `{ child, na }`. */
async function startContext(repo, port) {
  const child = spawn(process.execPath, [CLI, 'proxy', '--context-only', '--path', repo, '--port', String(port)], { env: env(), stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  let exited = null;
  child.stderr.on('data', (c) => (stderr = (stderr + c).slice(-4000)));
  child.on('exit', (code) => (exited = code));
  const agent = new http.Agent({ keepAlive: true });
  try {
    const alive = () => exited === null;
    const healthy = await poll(async () => alive() && (await request(agent, port, 'GET', '/healthz')).status === 200 || !alive(), { everyMs: 100, timeoutMs: 60_000 });
    if (!healthy || !alive()) return { child, na: `context process ${alive() ? 'not healthy after 60 s' : `exited (${exited})`}: ${firstLine(stderr)}` };
    let lastStatus;
    const answering = await poll(
      async () => {
        const res = await request(agent, port, 'POST', '/v1/context', { prompt: PROMPTS[0], top_n: 10 });
        lastStatus = `${res.status} ${typeof res.body === 'object' ? JSON.stringify(res.body).slice(0, 200) : String(res.body).slice(0, 200)}`;
        return res.status === 200 && Array.isArray(res.body.items);
      },
      { everyMs: 200, timeoutMs: CONTEXT_TIMEOUT_MS },
    );
    if (!answering) return { child, na: `POST /v1/context never answered 200 (last: ${lastStatus || 'no answer'})` };
    return { child, port };
  } finally {
    agent.destroy();
  }
}

async function stopContext(child) {
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  child.kill('SIGTERM');
  const gone = await poll(async () => child.exitCode !== null || child.signalCode !== null, { everyMs: 50, timeoutMs: 5000 });
  if (!gone) child.kill('SIGKILL');
}

/**
 * All HTTP figures for the corpus at `repo`. `samples` save-to-visible probes, `requests` per load
 * level. Each figure is a value or `{ na: reason }`.
 */
async function httpFigures(repo, { samples = 20, requests = 400, log = () => {} } = {}) {
  const na = (reason) => ({ na: reason });
  const out = { ready: na('not run'), daemonMemory: na('not run'), contextMemory: na('not run'), latency1: na('not run'), latency50: na('not run'), latency50Unique: na('not run'), visible: na('not run') };
  if (!fs.existsSync(CLI)) return Object.fromEntries(Object.keys(out).map((k) => [k, na('build first')]));
  sous(['down', '--path', repo]); // a daemon left by an interrupted run
  fs.rmSync(path.join(repo, '.sous'), { recursive: true, force: true }); // measure a cold daemon index
  let context;
  // Ctrl-C during the run still stops what was started.
  const onSigint = () => {
    if (context && context.child && context.child.exitCode === null) context.child.kill('SIGKILL');
    sous(['down', '--path', repo]);
    process.exit(130);
  };
  process.once('SIGINT', onSigint);
  try {
    const daemon = await startDaemon(repo, await freePort(), log);
    if (daemon.na) {
      for (const k of Object.keys(out)) out[k] = na(daemon.na);
      return out;
    }
    out.ready = { ms: daemon.readyMs, files: daemon.filesIndexed };
    out.daemonMemory = processMemory(daemon.pid) || na('daemon process not found');
    log('context: starting');
    context = await startContext(repo, await freePort());
    if (context.na) {
      for (const k of ['contextMemory', 'latency1', 'latency50', 'latency50Unique', 'visible']) out[k] = na(context.na);
      return out;
    }
    const ctxPort = context.port;
    log('context: 1 client');
    await loadTest(ctxPort, 1, 20); // warm-up
    out.latency1 = await loadTest(ctxPort, 1, requests);
    log('context: 50 clients');
    out.latency50 = await loadTest(ctxPort, 50, requests);
    log('context: 50 clients, unique prompts');
    out.latency50Unique = await loadTest(ctxPort, 50, requests, true);
    log('context: save-to-visible');
    out.visible = await saveToVisible(repo, ctxPort, samples);
    out.contextMemory = processMemory(context.child.pid) || na('context process not found');
    const after = processMemory(daemon.pid);
    if (after && !out.daemonMemory.na) out.daemonMemory = { rssMb: after.rssMb, hwmMb: Math.max(after.hwmMb, out.daemonMemory.hwmMb) };
    return out;
  } finally {
    process.removeListener('SIGINT', onSigint);
    await stopContext(context && context.child);
    const down = sous(['down', '--path', repo]);
    if (down.status !== 0) log(`sous down: ${firstLine(down.stderr || down.stdout)}`);
  }
}

module.exports = { httpFigures };
