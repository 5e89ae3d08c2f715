'use strict';
// What the benchmarks that run a real daemon on a scratch clone share (mcp, resolve): the user's
// environment, a free port, the CLI run for its JSON, polling, and a cleanup that stops the daemon.
const { execFile, execFileSync, spawnSync } = require('node:child_process');
const fs = require('node:fs');
const net = require('node:net');
const os = require('node:os');
const path = require('node:path');

const CLI = path.join(__dirname, '..', '..', 'services', 'cli', 'dist', 'main.js');

/** The environment of a user on the embedded default, with a Sous home and client folder of its own. */
function benchEnv(home, clients) {
  const env = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (k === 'DATABASE_URL' || k === 'REDIS_URL' || k === 'NODE_OPTIONS' || k.startsWith('SOUS_')) continue;
    env[k] = v;
  }
  return { ...env, SOUS_HOME: home, SOUS_TEST_CLIENT_DIR: clients };
}

function freePort() {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

/** Runs `sous <args>` (which must print JSON) and resolves with what it printed, parsed. */
function sousJson(args, env) {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [CLI, ...args], { env, timeout: 180_000, maxBuffer: 1 << 24 }, (err, stdout, stderr) => {
      if (err) return reject(new Error(`sous ${args.join(' ')} failed: ${stderr || err.message}`));
      try {
        resolve(JSON.parse(stdout));
      } catch {
        reject(new Error(`sous ${args.join(' ')} printed no JSON: ${stdout}`));
      }
    });
  });
}

/** Polls `fn` until it returns something other than undefined; fails after `ms`. */
async function until(what, fn, ms, intervalMs = 100) {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`${what}: not within ${Math.round(ms / 1000)} s`);
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}

/** Stops the daemon of `repo` (if one was started) and removes `tmp`; once, whatever calls it. */
function makeCleanup(tmp, repo, env) {
  let done = false;
  return () => {
    if (done) return;
    done = true;
    if (fs.existsSync(path.join(repo, '.sous'))) spawnSync(process.execPath, [CLI, 'down', '--path', repo, '--json'], { env, stdio: 'ignore', timeout: 60_000 });
    fs.rmSync(tmp, { recursive: true, force: true });
  };
}

/**
 * A scratch session for a benchmark: a temp dir holding a `git clone --shared` of `source` and the
 * user environment (empty SOUS_HOME and client folder); Ctrl-C or a kill stops its daemon and
 * removes it. `close()` does the same at the end and forgets the signal handlers.
 */
function openScratch(prefix, source) {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  const repo = path.join(tmp, 'repo');
  const env = benchEnv(path.join(tmp, 'home'), path.join(tmp, 'clients'));
  const cleanup = makeCleanup(tmp, repo, env);
  const onSignal = (sig) => {
    cleanup();
    process.exit(sig === 'SIGINT' ? 130 : 143);
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  const close = () => {
    cleanup();
    process.removeListener('SIGINT', onSignal);
    process.removeListener('SIGTERM', onSignal);
  };
  try {
    fs.mkdirSync(env.SOUS_HOME);
    fs.mkdirSync(env.SOUS_TEST_CLIENT_DIR);
    execFileSync('git', ['clone', '-q', '--shared', source, repo], { stdio: 'pipe' });
  } catch (err) {
    close();
    throw err;
  }
  return { tmp, repo, env, close };
}

module.exports = { CLI, benchEnv, freePort, sousJson, until, makeCleanup, openScratch };
