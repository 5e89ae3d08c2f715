'use strict';
// `npm run bench -- composer-hook`: what the Claude Code L0 composer hook costs per submitted prompt,
// run as Claude Code runs it (`sh -c <command from .claude/settings.json>`, the hook JSON on stdin),
// against a live daemon (`sous up` on a scratch repository), a dead port and a port that never
// answers. Target (spec 6.5): never more than ~1 s, whatever the daemon does; the live case is the
// node start plus one loopback POST.
const { spawn, execFileSync } = require('node:child_process');
const fs = require('node:fs');
const net = require('node:net');
const os = require('node:os');
const path = require('node:path');
const { benchEnv, freePort, sousJson, makeCleanup } = require('./daemon-session');
const { percentile } = require('./stats');

const RUNS = 15;

function runHook(command, cwd, env) {
  const input = JSON.stringify({ session_id: 'bench', cwd, hook_event_name: 'UserPromptSubmit', prompt: 'refactor the parser so tokens carry their source span' });
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const child = spawn('/bin/sh', ['-c', command], { cwd, env, stdio: ['pipe', 'pipe', 'ignore'] });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.once('error', reject);
    child.once('close', (code) => resolve({ ms: Number(process.hrtime.bigint() - started) / 1e6, code, out }));
    child.stdin.end(input);
  });
}

async function series(label, command, cwd, env) {
  const ms = [];
  for (let i = 0; i < RUNS; i++) {
    const r = await runHook(command, cwd, env);
    if (r.code !== 0 || r.out !== '') throw new Error(`${label}: exit ${r.code}, stdout ${JSON.stringify(r.out)}`);
    ms.push(r.ms);
  }
  ms.sort((a, b) => a - b);
  const row = { case: label, runs: RUNS, p50_ms: Math.round(percentile(ms, 50)), p95_ms: Math.round(percentile(ms, 95)), max_ms: Math.round(ms[ms.length - 1]) };
  process.stdout.write(`${label.padEnd(12)} p50 ${row.p50_ms} ms  p95 ${row.p95_ms} ms  max ${row.max_ms} ms  (${RUNS} runs, exit 0, nothing printed)\n`);
  return row;
}

async function run(args = []) {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'sous-bench-hook-'));
  const repo = path.join(tmp, 'repo');
  const home = path.join(tmp, 'home');
  fs.mkdirSync(home);
  fs.mkdirSync(path.join(repo, 'src'), { recursive: true });
  fs.writeFileSync(path.join(repo, 'src', 'parser.ts'), 'export function parse(text: string) { return text.split(" "); }\n');
  execFileSync('git', ['init', '-q'], { cwd: repo });
  const env = { ...benchEnv(path.join(tmp, 'sous-home'), path.join(tmp, 'clients')), HOME: home };
  fs.mkdirSync(env.SOUS_HOME);
  fs.mkdirSync(env.SOUS_TEST_CLIENT_DIR);
  const cleanup = makeCleanup(tmp, repo, env);
  const silent = net.createServer(() => undefined);
  try {
    await sousJson(['launch', 'claude-code', '--composer', '--path', repo, '--json'], env);
    const settings = JSON.parse(fs.readFileSync(path.join(repo, '.claude', 'settings.json'), 'utf8'));
    const command = settings.hooks.UserPromptSubmit[0].hooks[0].command;
    await sousJson(['up', '--path', repo, '--port', String(await freePort()), '--json'], env);
    const rows = [await series('live daemon', command, repo, env)];
    const state = path.join(tmp, 'daemon.json');
    fs.writeFileSync(state, JSON.stringify({ host: '127.0.0.1', port: await freePort() }));
    const other = command.replace(/--run-state \S+/, `--run-state ${state}`);
    rows.push(await series('dead port', other, repo, env));
    await new Promise((r) => silent.listen(0, '127.0.0.1', r));
    fs.writeFileSync(state, JSON.stringify({ host: '127.0.0.1', port: silent.address().port }));
    rows.push(await series('silent port', other, repo, env));
    if (args.includes('--json')) process.stdout.write(JSON.stringify(rows) + '\n');
  } finally {
    silent.close();
    cleanup();
  }
}

module.exports = { run };
