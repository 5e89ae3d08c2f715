'use strict';
// Foundation figures: daemon start (cold = new PGlite data dir, warm = reopen), /status latency,
// config hot-reload latency, and job round trips on both queue backends.
// Reproduce: npm run build && npm run bench -- foundation   (REDIS_URL for BullMQ, default 127.0.0.1:6379)
const { spawnSync, execFileSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const http = require('node:http');
const { summary, round } = require('./stats');

const root = path.join(__dirname, '..', '..');
const CLI = path.join(root, 'services', 'cli', 'dist', 'main.js');

function env() {
  const e = { ...process.env };
  delete e.DATABASE_URL;
  delete e.REDIS_URL;
  return e;
}

function sous(args) {
  const t = process.hrtime.bigint();
  const r = spawnSync(process.execPath, [CLI, ...args], { env: env(), encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`sous ${args.join(' ')} failed: ${r.stderr}`);
  return { ms: Number(process.hrtime.bigint() - t) / 1e6, out: r.stdout };
}

function get(port, p) {
  return new Promise((resolve, reject) => {
    http.get({ host: '127.0.0.1', port, path: p }, (res) => {
      let body = '';
      res.on('data', (c) => (body += c));
      res.on('end', () => resolve(JSON.parse(body)));
    }).on('error', reject);
  });
}

async function freePort() {
  const net = require('node:net');
  return new Promise((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

async function daemonFigures() {
  const repo = fs.mkdtempSync(path.join(os.tmpdir(), 'sous-bench-'));
  const git = (...a) => execFileSync('git', a, { cwd: repo, stdio: 'pipe' });
  git('init', '-q');
  fs.writeFileSync(path.join(repo, 'README.md'), '# bench\n');
  git('add', '-A');
  git('-c', 'user.email=b@example.com', '-c', 'user.name=bench', 'commit', '-q', '-m', 'init');
  const port = await freePort();
  try {
    sous(['init', '--path', repo, '--non-interactive', '--json']);
    const cold = sous(['up', '--path', repo, '--port', String(port), '--json']).ms;
    sous(['down', '--path', repo]);
    const warm = [];
    for (let i = 0; i < 3; i++) {
      warm.push(sous(['up', '--path', repo, '--port', String(port), '--json']).ms);
      if (i < 2) sous(['down', '--path', repo]);
    }
    const lat = [];
    for (let i = 0; i < 500; i++) {
      const t = process.hrtime.bigint();
      await get(port, '/status');
      lat.push(Number(process.hrtime.bigint() - t) / 1e6);
    }
    const reload = [];
    const bundles = ['cost_saver', 'local_balanced'];
    for (let i = 0; i < 10; i++) {
      const want = bundles[i % 2];
      const t = Date.now();
      sous(['config', 'set', 'policy.bundle', want, '--path', repo]);
      while ((await get(port, '/status')).policy.bundle !== want) {
        if (Date.now() - t > 5000) throw new Error('hot reload did not arrive within 5 s');
        await new Promise((r) => setTimeout(r, 10));
      }
      reload.push(Date.now() - t);
    }
    sous(['down', '--path', repo]);
    return { up_cold_ms: round(cold), up_warm_ms: summary(warm), status_latency_ms: summary(lat), hot_reload_ms_including_cli: summary(reload) };
  } finally {
    spawnSync(process.execPath, [CLI, 'down', '--path', repo], { env: env() });
    fs.rmSync(repo, { recursive: true, force: true });
  }
}

async function queueFigures(kind) {
  const { createJobQueue } = require('@sous/jobs');
  const redisUrl = kind === 'bullmq' ? process.env.REDIS_URL || 'redis://127.0.0.1:6379' : undefined;
  const queue = createJobQueue({ redisUrl, queueName: `bench-${process.pid}-${Date.now()}`, concurrency: 1, timeoutSeconds: () => 300 });
  queue.register('bench.noop', async () => ({ ok: true }));
  await queue.start();
  const lat = [];
  try {
    for (let i = 0; i < 200; i++) {
      const t = process.hrtime.bigint();
      const job = await queue.enqueue('bench.noop', {});
      for (;;) {
        const info = await queue.get(job.id);
        if (info && info.state === 'completed') break;
        await new Promise((r) => setImmediate(r));
      }
      lat.push(Number(process.hrtime.bigint() - t) / 1e6);
    }
  } finally {
    await queue.close({ graceMs: 1000 });
  }
  return summary(lat);
}

exports.run = async function run(args) {
  const result = {
    machine: `${os.cpus().length} cores, ${Math.round(os.totalmem() / 2 ** 30)} GiB, node ${process.version}`,
    daemon: await daemonFigures(),
    job_round_trip_ms: { 'in-process': await queueFigures('in-process'), bullmq: await queueFigures('bullmq') },
  };
  if (args.includes('--json')) process.stdout.write(JSON.stringify(result, null, 2) + '\n');
  else {
    const d = result.daemon;
    process.stdout.write(`machine                      ${result.machine}\n`);
    process.stdout.write(`sous up, cold (initdb)       ${d.up_cold_ms} ms\n`);
    process.stdout.write(`sous up, warm                p50 ${d.up_warm_ms.p50} ms (n=${d.up_warm_ms.n})\n`);
    process.stdout.write(`GET /status                  p50 ${d.status_latency_ms.p50} ms, p99 ${d.status_latency_ms.p99} ms (n=${d.status_latency_ms.n})\n`);
    process.stdout.write(`config set -> daemon sees it p50 ${d.hot_reload_ms_including_cli.p50} ms, max ${d.hot_reload_ms_including_cli.max} ms (n=10, includes CLI start)\n`);
    for (const [k, v] of Object.entries(result.job_round_trip_ms)) process.stdout.write(`job enqueue->completed ${k.padEnd(10)} p50 ${v.p50} ms, p99 ${v.p99} ms (n=${v.n})\n`);
  }
};
