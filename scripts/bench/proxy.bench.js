'use strict';
// Added latency of the chat-completions proxy (docs/proxy.md, docs/benchmarks.md): the same load sent
// directly to a fake upstream of ours and through `sous proxy` in one run, interleaved request by
// request so machine noise hits both paths alike. A daemon (embedded store) prepares a scratch
// repository with one goal, so proxied requests take the injection path (a prepared briefing is
// matched and added) — the path a user pays for, not the passthrough shortcut.
//  - non-streaming: open loop at --rate requests/s (default 200) for --seconds (default 10);
//    added latency = proxy percentile − direct percentile (p50, p99), and the proxy's own
//    X-Sous-Overhead-Ms;
//  - streaming: --streams requests (default 200) at 50/s; time to first token (first content chunk)
//    and to the last, direct vs proxied. The upstream sends its first token after 20 ms and four more
//    5 ms apart, so a proxy that buffered would show it in TTFT.
// Targets: added p50 ≤ 1 ms, p99 ≤ 5 ms at 200 req/s; TTFT within 2 ms.
// Reproduce: npm run build && npm run bench -- proxy [--rate N] [--seconds N] [--streams N] [--json]
const { spawn } = require('node:child_process');
const fs = require('node:fs');
const http = require('node:http');
const os = require('node:os');
const path = require('node:path');
const { percentile, round, renderRows } = require('./stats');
const { CLI, benchEnv, freePort, sousJson, until, makeCleanup } = require('./daemon-session');

const TARGETS = { addedP50Ms: 1, addedP99Ms: 5, ttftMs: 2 };
const DEFAULTS = { rate: 200, seconds: 10, streams: 200 };
const STREAM_RATE = 50;
const WARMUP = 200;

function parseArgs(args) {
  const opts = { ...DEFAULTS, json: false };
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (a === '--json') opts.json = true;
    else if (a === '--rate' || a === '--seconds' || a === '--streams') {
      const n = Number(args[++i]);
      if (!Number.isInteger(n) || n < 1) throw new Error(`${a} must be an integer >= 1`);
      opts[a.slice(2)] = n;
    } else throw new Error(`unknown option ${a}; options: --rate N, --seconds N, --streams N, --json`);
  }
  return opts;
}

const agent = new http.Agent({ keepAlive: true, maxSockets: 256 });

/** One POST; resolves with total ms, first-content-chunk ms, status and the overhead header. */
function post(port, body) {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const req = http.request({ host: '127.0.0.1', port, method: 'POST', path: '/v1/chat/completions', agent, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), authorization: 'Bearer bench' } }, (res) => {
      let first;
      res.on('data', (c) => {
        if (first === undefined && c.includes('"content"')) first = performance.now() - started;
      });
      res.on('end', () => resolve({ ms: performance.now() - started, first, status: res.statusCode, overhead: Number(res.headers['x-sous-overhead-ms']), context: res.headers['x-sous-context'] }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** Sends `count` request pairs (direct, proxied; order alternating) at `rate` pairs/s, open loop. */
async function load(count, rate, send) {
  const direct = [];
  const proxied = [];
  const pending = [];
  const start = performance.now();
  for (let i = 0; i < count; i++) {
    const due = start + (i * 1000) / rate;
    const wait = due - performance.now();
    if (wait > 1) await new Promise((r) => setTimeout(r, wait));
    const order = i % 2 === 0 ? ['direct', 'proxy'] : ['proxy', 'direct'];
    for (const which of order) pending.push(send(which).then((r) => (which === 'direct' ? direct : proxied).push(r)));
  }
  await Promise.all(pending);
  return { direct, proxied };
}

/** CPU time (user + system, ms) a process has used, from /proc (Linux); undefined elsewhere. */
function cpuMs(pid) {
  try {
    const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(fields[11]) + Number(fields[12])) * (1000 / 100);
  } catch {
    return undefined;
  }
}

/** The proxy process itself: `sous proxy` runs it as its only child. */
function proxyPid(cliPid) {
  try {
    const children = fs.readFileSync(`/proc/${cliPid}/task/${cliPid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean);
    return children.length === 1 ? Number(children[0]) : cliPid;
  } catch {
    return cliPid;
  }
}

function startUpstream() {
  const child = spawn(process.execPath, [path.join(__dirname, 'proxy', 'fake-upstream.js')], { stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    child.stdout.once('data', (d) => resolve({ child, port: JSON.parse(String(d)).port }));
    child.once('error', reject);
  });
}

async function run(args) {
  const opts = parseArgs(args);
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'sous-bench-proxy-'));
  const repo = path.join(tmp, 'repo');
  const env = benchEnv(path.join(tmp, 'home'), path.join(tmp, 'clients'));
  const cleanup = makeCleanup(tmp, repo, env);
  const children = [];
  process.once('exit', () => {
    for (const c of children) c.kill('SIGTERM');
    cleanup();
  });
  try {
    const upstream = await startUpstream();
    children.push(upstream.child);
    fs.mkdirSync(path.join(repo, 'src'), { recursive: true });
    fs.writeFileSync(path.join(repo, 'src', 'parser.ts'), 'export function parseGrammar(source: string): string[] {\n  return source.split("\\n");\n}\n');
    fs.writeFileSync(path.join(repo, 'src', 'lexer.ts'), 'export function lexTokens(text: string): string[] {\n  return text.split(" ");\n}\n');
    const git = (...a) => require('node:child_process').execFileSync('git', a, { cwd: repo, stdio: 'ignore', env: { ...process.env, GIT_AUTHOR_NAME: 'b', GIT_AUTHOR_EMAIL: 'b@b', GIT_COMMITTER_NAME: 'b', GIT_COMMITTER_EMAIL: 'b@b' } });
    git('init', '-q');
    git('add', '-A');
    git('commit', '-q', '-m', 'bench files');
    fs.mkdirSync(path.join(repo, '.sous'), { recursive: true });
    fs.writeFileSync(path.join(repo, '.sous', 'config.toml'), `[backend]\nbase_url = "http://127.0.0.1:${upstream.port}/v1"\n`);
    const daemonPort = await freePort();
    await sousJson(['up', '--path', repo, '--port', String(daemonPort), '--json'], env);
    const daemon = `http://127.0.0.1:${daemonPort}`;
    await until('index ready', async () => ((await (await fetch(`${daemon}/status`)).json()).index?.state === 'ready' ? true : undefined), 120_000);
    const goal = await (await fetch(`${daemon}/goals`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ title: 'Split the parser grammar', related_files: ['src/parser.ts'] }) })).json();
    const prompt = await until('ready prediction', async () => (await (await fetch(`${daemon}/predictions`)).json()).predictions.find((p) => p.goal_id === goal.goal.id && p.state === 'ready')?.prompt, 60_000);

    const proxyPort = await freePort();
    const proxy = spawn(process.execPath, [CLI, 'proxy', '--path', repo, '--port', String(proxyPort)], { env: { ...env, LOG_LEVEL: 'warn' }, stdio: 'ignore' });
    children.push(proxy);
    const body = JSON.stringify({ model: 'bench', messages: [{ role: 'system', content: 'You are terse.' }, { role: 'user', content: prompt }] });
    const streamBody = JSON.stringify({ model: 'bench', stream: true, messages: [{ role: 'user', content: prompt }] });
    await until('proxy up', () => fetch(`http://127.0.0.1:${proxyPort}/healthz`).then((r) => (r.ok ? true : undefined), () => undefined), 30_000);
    await until('prepared context hit', async () => ((await post(proxyPort, body)).context === 'hit' ? true : undefined), 30_000);

    const send = (b) => (which) => post(which === 'direct' ? upstream.port : proxyPort, b);
    await load(WARMUP, opts.rate, send(body));
    const cpuBefore = cpuMs(proxyPid(proxy.pid));
    const flat = await load(opts.rate * opts.seconds, opts.rate, send(body));
    const cpuPerRequest = cpuBefore === undefined ? NaN : (cpuMs(proxyPid(proxy.pid)) - cpuBefore) / flat.proxied.length;
    await load(20, STREAM_RATE, send(streamBody));
    const streams = await load(opts.streams, STREAM_RATE, send(streamBody));

    const bad = [...flat.direct, ...flat.proxied, ...streams.direct, ...streams.proxied].filter((r) => r.status !== 200).length;
    const hits = flat.proxied.filter((r) => r.context === 'hit').length;
    const p = (rs, key, q) => percentile(rs.map((r) => r[key]), q);
    const result = {
      rate: opts.rate,
      requests_per_path: flat.direct.length,
      errors: bad,
      injected_share: round(hits / flat.proxied.length),
      direct_p50_ms: round(p(flat.direct, 'ms', 50)),
      proxy_p50_ms: round(p(flat.proxied, 'ms', 50)),
      direct_p99_ms: round(p(flat.direct, 'ms', 99)),
      proxy_p99_ms: round(p(flat.proxied, 'ms', 99)),
      added_p50_ms: round(p(flat.proxied, 'ms', 50) - p(flat.direct, 'ms', 50)),
      added_p99_ms: round(p(flat.proxied, 'ms', 99) - p(flat.direct, 'ms', 99)),
      overhead_header_p50_ms: round(p(flat.proxied, 'overhead', 50)),
      overhead_header_p99_ms: round(p(flat.proxied, 'overhead', 99)),
      proxy_cpu_ms_per_request: round(cpuPerRequest),
      streams_per_path: streams.direct.length,
      ttft_direct_p50_ms: round(p(streams.direct, 'first', 50)),
      ttft_proxy_p50_ms: round(p(streams.proxied, 'first', 50)),
      ttft_added_p50_ms: round(p(streams.proxied, 'first', 50) - p(streams.direct, 'first', 50)),
      ttft_added_p99_ms: round(p(streams.proxied, 'first', 99) - p(streams.direct, 'first', 99)),
      stream_total_added_p50_ms: round(p(streams.proxied, 'ms', 50) - p(streams.direct, 'ms', 50)),
      cpus: os.cpus().length,
      loadavg_1m: round(os.loadavg()[0]),
    };
    result.meets_targets = bad === 0 && result.added_p50_ms <= TARGETS.addedP50Ms && result.added_p99_ms <= TARGETS.addedP99Ms && Math.abs(result.ttft_added_p50_ms) <= TARGETS.ttftMs;
    if (opts.json) process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
    else {
      process.stdout.write(
        renderRows([
          ['measure', 'direct', 'proxy', 'added', 'target'],
          [`chat p50 (${opts.rate} req/s)`, `${result.direct_p50_ms} ms`, `${result.proxy_p50_ms} ms`, `${result.added_p50_ms} ms`, `≤ ${TARGETS.addedP50Ms} ms`],
          [`chat p99 (${opts.rate} req/s)`, `${result.direct_p99_ms} ms`, `${result.proxy_p99_ms} ms`, `${result.added_p99_ms} ms`, `≤ ${TARGETS.addedP99Ms} ms`],
          ['X-Sous-Overhead-Ms p50 / p99', '', '', `${result.overhead_header_p50_ms} / ${result.overhead_header_p99_ms} ms`, ''],
          ['proxy CPU per request', '', '', `${result.proxy_cpu_ms_per_request} ms`, ''],
          ['stream TTFT p50', `${result.ttft_direct_p50_ms} ms`, `${result.ttft_proxy_p50_ms} ms`, `${result.ttft_added_p50_ms} ms`, `within ${TARGETS.ttftMs} ms`],
          ['stream TTFT p99 added', '', '', `${result.ttft_added_p99_ms} ms`, ''],
        ]),
      );
      process.stdout.write(`${result.requests_per_path} requests and ${result.streams_per_path} streams per path, ${result.errors} errors, briefing injected in ${Math.round(result.injected_share * 100)}% of proxied requests; ${result.cpus} CPUs, load ${result.loadavg_1m}; targets ${result.meets_targets ? 'met' : 'NOT met'}\n`);
    }
  } finally {
    for (const c of children) c.kill('SIGTERM');
    cleanup();
  }
}

module.exports = { run };
