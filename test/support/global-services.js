// Jest globalSetup: finds PostgreSQL and Redis once for the whole run, before any worker starts, and
// hands their URLs to every test file through SOUS_TEST_DATABASE_URL / SOUS_TEST_REDIS_URL (workers
// inherit this process's environment). Order, per service:
//  1. SOUS_TEST_*_URL, DATABASE_URL / REDIS_URL from the environment (must answer);
//  2. one testcontainers container per service when a Docker engine is reachable (stopped in
//     global-teardown.js);
//  3. the conventional local server (127.0.0.1:5432 database `test`, 127.0.0.1:6379).
// Nothing found is not an error here: suites that need a service fail when they ask for it
// (test/support/services.ts), and suites that need none still run. It never skips anything.
'use strict';
const fs = require('node:fs');
const net = require('node:net');
const os = require('node:os');
const path = require('node:path');

const LOCAL = { postgres: 'postgres://postgres@127.0.0.1:5432/test', redis: 'redis://127.0.0.1:6379' };
// Exact tags, as in docker-compose.yml: a test run must not change because a major tag moved.
const IMAGES = { postgres: 'postgres:16.10-bookworm', redis: 'redis:7.4.5-bookworm' };

function reachable(url, timeoutMs = 1500) {
  const u = new URL(url);
  const port = Number(u.port || (u.protocol.startsWith('redis') ? 6379 : 5432));
  return new Promise((resolve) => {
    const socket = net.connect({ host: u.hostname, port });
    const done = (ok) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

function redact(url) {
  const u = new URL(url);
  if (u.password) u.password = '***';
  return u.toString();
}

async function dockerReachable() {
  try {
    const { getContainerRuntimeClient } = require('testcontainers');
    await getContainerRuntimeClient();
    return true;
  } catch {
    return false;
  }
}

async function startContainer(kind) {
  const { GenericContainer, Wait } = require('testcontainers');
  if (kind === 'postgres') {
    const c = await new GenericContainer(IMAGES.postgres)
      .withEnvironment({ POSTGRES_PASSWORD: 'test', POSTGRES_DB: 'test' })
      .withExposedPorts(5432)
      .withWaitStrategy(Wait.forLogMessage(/database system is ready to accept connections/, 2))
      .start();
    return { container: c, url: `postgres://postgres:test@${c.getHost()}:${c.getMappedPort(5432)}/test` };
  }
  const c = await new GenericContainer(IMAGES.redis).withExposedPorts(6379).start();
  return { container: c, url: `redis://${c.getHost()}:${c.getMappedPort(6379)}` };
}

/** Where each service came from, for the one line printed at the start of the run. */
async function resolve(kind, envNames, docker) {
  for (const name of envNames) {
    const url = process.env[name];
    if (url) return { url, from: name, ok: await reachable(url) };
  }
  if (await docker()) {
    const { container, url } = await startContainer(kind);
    globalThis.__sousContainers = [...(globalThis.__sousContainers ?? []), container];
    return { url, from: `testcontainers ${IMAGES[kind]}`, ok: true };
  }
  return { url: LOCAL[kind], from: 'local default', ok: await reachable(LOCAL[kind]) };
}

async function globalSetup() {
  let probe;
  const docker = () => (probe ??= dockerReachable());
  const pg = await resolve('postgres', ['SOUS_TEST_DATABASE_URL', 'DATABASE_URL'], docker);
  const redis = await resolve('redis', ['SOUS_TEST_REDIS_URL', 'REDIS_URL'], docker);
  // Suites that can run the real containers (test/topology-https.test.ts) ask for them by this flag.
  process.env.SOUS_TEST_DOCKER = (await docker()) ? '1' : '0';
  const lines = [`Docker engine: ${process.env.SOUS_TEST_DOCKER === '1' ? 'reachable' : 'none'}`];
  for (const [kind, r, env] of [['PostgreSQL', pg, 'SOUS_TEST_DATABASE_URL'], ['Redis', redis, 'SOUS_TEST_REDIS_URL']]) {
    // An answering URL goes to the workers; one that does not is passed on too, so the suites that
    // need it fail saying which URL did not answer (services.ts), instead of finding another.
    process.env[env] = r.url;
    lines.push(`${kind}: ${redact(r.url)} (${r.from}${r.ok ? '' : ', NOT answering'})`);
  }
  process.stdout.write(`\ntest services: ${lines.join('; ')}\n`);
  // One cache directory for the run (the embedded store's template cluster, made once and copied
  // for every new workspace), not the machine's ~/.cache/sous; global-teardown.js removes it.
  if (!process.env.SOUS_CACHE_DIR) {
    process.env.SOUS_CACHE_DIR = fs.mkdtempSync(path.join(os.tmpdir(), 'sous-cache-'));
    globalThis.__sousCacheDir = process.env.SOUS_CACHE_DIR;
  }
};

module.exports = globalSetup;
/** Whether a TCP connection to the URL's host and port opens (services.ts asks it too). */
module.exports.reachable = reachable;
