'use strict';
// The daemon and the context API over HTTP: `sous up` indexes the corpus in the background,
// `sous proxy --context-only` answers /v1/context from the index the daemon stored. Measures time
// to ready, daemon RSS, /v1/context latency (1 and 50 clients, closed and open loop, and a
// hello-world server under the same load for the machine's ceiling) and save-to-visible latency.
// Every figure that cannot be measured comes back as `{ na: reason }`; everything started is stopped.
const { spawn, spawnSync } = require('node:child_process');
const crypto = require('node:crypto');
const fs = require('node:fs');
const http = require('node:http');
const path = require('node:path');
const { request, send, poll, freePort, processMemory, processTree } = require('./client');
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

/**
 * The prompt of call `n`: one of the 20 prompts, which repeat as agents and teams repeat questions,
 * or with `unique` one never asked before (a nonce appended), so its answer cannot come from the
 * answer cache.
 */
const promptFor = (n, unique) => (unique ? `${PROMPTS[n % PROMPTS.length]} (case ${n}-${process.pid}-${Date.now()})` : PROMPTS[n % PROMPTS.length]);

/** Collects latencies and failures of one load level. */
function recorder() {
  const lat = [];
  const errorKinds = {};
  let errors = 0;
  return {
    async call(agent, port, prompt, dueMs) {
      const res = await send(agent, port, '/v1/context', { prompt, top_n: 10 }).catch((err) => ({ status: /timed out/.test(err.message) ? 'timeout' : err.code || 'error' }));
      lat.push(performance.now() - dueMs);
      if (res.status !== 200) {
        errors++;
        errorKinds[res.status] = (errorKinds[res.status] || 0) + 1;
      }
    },
    figures: (seconds) => ({ n: lat.length, p50: round(percentile(lat, 50)), p99: round(percentile(lat, 99)), rps: round(lat.length / seconds), errors, errorKinds }),
  };
}

/**
 * Closed loop: `clients` concurrent keep-alive clients, each sending its next call as soon as its
 * last one is answered, `count` calls in all. Latency is then about clients / throughput.
 * Unmeasured first: the same clients send 4 calls each of the 20 repeated prompts, so every
 * connection is open and every worker process of the server has seen each prompt (each worker
 * keeps its own answer cache, and node:cluster spreads connections over them).
 */
async function loadTest(port, clients, count, unique = false) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: clients });
  const run = async (calls, uniquePrompts, rec) => {
    let next = 0;
    const client = async () => {
      while (next < calls) {
        const n = next++;
        await rec.call(agent, port, promptFor(n, uniquePrompts), performance.now());
      }
    };
    await Promise.all(Array.from({ length: clients }, client));
  };
  await run(clients * 4, false, recorder());
  const rec = recorder();
  const started = performance.now();
  await run(count, unique, rec);
  agent.destroy();
  return rec.figures((performance.now() - started) / 1000);
}

/**
 * Open loop, the realistic agent load: `clients` clients, each on its own keep-alive connection,
 * each due to send a call every `intervalMs` (staggered over the first interval), `count` calls in
 * all. A call due while the client's last one is unanswered queues behind it, and its latency runs
 * from when it was due, so waiting for a slow answer counts (no coordinated omission).
 */
async function openLoopTest(port, { clients = 50, intervalMs = 100, count = 2000, unique = false } = {}) {
  const agents = Array.from({ length: clients }, () => new http.Agent({ keepAlive: true, maxSockets: 1 }));
  // One unmeasured call per connection first (a repeated prompt, answered at once): the figures are
  // about serving connected keep-alive clients, not about a burst of connections arriving at once.
  await Promise.all(agents.map((agent, i) => send(agent, port, '/v1/context', { prompt: promptFor(i, false), top_n: 10 }).catch(() => undefined)));
  const rec = recorder();
  const perClient = Math.ceil(count / clients);
  const started = performance.now() + 10;
  const client = (c) => {
    const calls = [];
    return new Promise((resolve) => {
      const fire = (k) => {
        const due = started + (c / clients) * intervalMs + k * intervalMs;
        // A timer may fire up to a millisecond early: then the call's time runs from its sending.
        calls.push(rec.call(agents[c], port, promptFor(c * perClient + k, unique), Math.min(due, performance.now())));
        if (k + 1 < perClient) setTimeout(() => fire(k + 1), Math.max(0, due + intervalMs - performance.now()));
        else resolve(Promise.all(calls));
      };
      setTimeout(() => fire(0), Math.max(0, started + (c / clients) * intervalMs - performance.now()));
    });
  };
  await Promise.all(agents.map((_, c) => client(c)));
  for (const agent of agents) agent.destroy();
  const figures = rec.figures((performance.now() - started) / 1000);
  return { ...figures, offeredRps: (clients * 1000) / intervalMs };
}

// The machine's ceiling for this load generator: node:http answering every call with a fixed
// body of the size of a real answer, nothing else (no express, no guards, no query).
const REFERENCE_SERVER = `
const http = require('node:http');
const body = Buffer.from(JSON.stringify({ items: [], pad: 'x'.repeat(Math.max(0, Number(process.argv[1]) - 22)) }));
http.createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': body.length });
    res.end(body);
  });
}).listen(Number(process.argv[2]), '127.0.0.1');
`;

/** The closed 50-client and the open-loop levels against the reference server; `{ bytes, closed, open }`. */
async function referenceFigures(bytes, { clients, count, openCount }) {
  const port = await freePort();
  const child = spawn(process.execPath, ['-e', REFERENCE_SERVER, String(bytes), String(port)], { stdio: 'ignore' });
  try {
    const agent = new http.Agent({ keepAlive: true });
    const up = await poll(async () => (await send(agent, port, '/', {})).status === 200, { everyMs: 50, timeoutMs: 10_000 });
    agent.destroy();
    if (!up) return { na: 'reference server did not start' };
    await loadTest(port, 1, 20); // warm-up, as for the context process
    return { bytes, closed: await loadTest(port, clients, count), open: await openLoopTest(port, { clients, count: openCount }) };
  } finally {
    child.kill('SIGKILL');
  }
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

/**
 * Starts the context process; resolves `{ child, port, answerBytes }` once /v1/context answers 200
 * (`answerBytes`: the size of that answer), else `{ child, na }`.
 */
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
        return res.status === 200 && Array.isArray(res.body.items) && Buffer.byteLength(JSON.stringify(res.body));
      },
      { everyMs: 200, timeoutMs: CONTEXT_TIMEOUT_MS },
    );
    if (!answering) return { child, na: `POST /v1/context never answered 200 (last: ${lastStatus || 'no answer'})` };
    return { child, port, answerBytes: answering };
  } finally {
    agent.destroy();
  }
}

/**
 * Memory of the context server: every process under the `sous proxy` wrapper (the process itself,
 * or with workers the primary and each worker). `hwmMb` adds each process's own peak.
 */
function contextMemory(child) {
  const pids = processTree(child.pid).slice(1);
  const mems = pids.map(processMemory).filter(Boolean);
  if (mems.length === 0) return null;
  return { rssMb: mems.reduce((a, m) => a + m.rssMb, 0), hwmMb: mems.reduce((a, m) => a + m.hwmMb, 0), processes: mems.length };
}

async function stopContext(child) {
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  child.kill('SIGTERM');
  const gone = await poll(async () => child.exitCode !== null || child.signalCode !== null, { everyMs: 50, timeoutMs: 5000 });
  if (!gone) child.kill('SIGKILL');
}

/**
 * All HTTP figures for the corpus at `repo`. `samples` save-to-visible probes; `requests` calls
 * for 1 client and for unique prompts, `closedRequests` for 50 clients with repeated prompts (and
 * the reference), `openRequests` per open-loop level. Each figure is a value or `{ na: reason }`.
 */
async function httpFigures(repo, { samples = 20, requests = 400, closedRequests = 4000, openRequests = 2000, log = () => {} } = {}) {
  const na = (reason) => ({ na: reason });
  const contextKeys = ['contextMemory', 'latency1', 'latency50', 'latency50Unique', 'latencyOpen', 'latencyOpenUnique', 'latencyOpenUniqueSteady', 'reference', 'visible'];
  const out = { ready: na('not run'), daemonMemory: na('not run'), ...Object.fromEntries(contextKeys.map((k) => [k, na('not run')])) };
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
      for (const k of contextKeys) out[k] = na(context.na);
      return out;
    }
    const ctxPort = context.port;
    log('context: 1 client');
    await loadTest(ctxPort, 1, 20); // warm-up
    out.latency1 = await loadTest(ctxPort, 1, requests);
    log('context: 50 clients');
    out.latency50 = await loadTest(ctxPort, 50, closedRequests);
    log('context: 50 clients, unique prompts');
    out.latency50Unique = await loadTest(ctxPort, 50, requests, true);
    log('context: open loop, 50 clients x 10/s');
    out.latencyOpen = await openLoopTest(ctxPort, { clients: 50, intervalMs: 100, count: openRequests });
    log('context: open loop, 50 clients x 1/s, unique prompts');
    out.latencyOpenUniqueSteady = await openLoopTest(ctxPort, { clients: 50, intervalMs: 1000, count: openRequests / 4, unique: true });
    log('context: open loop, 50 clients x 10/s, unique prompts');
    out.latencyOpenUnique = await openLoopTest(ctxPort, { clients: 50, intervalMs: 100, count: openRequests, unique: true });
    log('reference: node:http hello-world');
    out.reference = await referenceFigures(context.answerBytes, { clients: 50, count: closedRequests, openCount: openRequests });
    log('context: save-to-visible');
    out.visible = await saveToVisible(repo, ctxPort, samples);
    out.contextMemory = contextMemory(context.child) || na('context process not found');
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

module.exports = { httpFigures, loadTest, openLoopTest, referenceFigures };
