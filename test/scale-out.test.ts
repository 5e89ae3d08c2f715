/**
 * Scale-out of preparation (docs/jobs.md, "Scale-out"): two daemons and a worker-only process of one
 * repository, against one PostgreSQL schema and one Redis queue of their own, as real processes.
 * Exactly one daemon holds the repository's lease (role `watcher`), the other is `standby`; the
 * preparation cycles queued through either daemon's API are shared among the three processes and each
 * runs exactly once; killing the watcher (SIGKILL) hands the repository to the standby within the lease
 * time, and the job the killed watcher was running is failed as interrupted, never run again.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Client } from 'pg';
import Redis from 'ioredis';
import { embeddedEnv, freePort, sous } from './support/cli';
import { startFakeBackend, type FakeBackend } from './support/fake-backend';
import { rawRequest } from './support/http';
import { postgresUrl, redisUrl, uniqueName } from './support/services';
import { git, makeGitRepo, makeTempDir, rmTempDir, writeFile } from './support/tmp';
import { until } from './support/wait';

const DIST = path.join(__dirname, '..', 'services', 'daemon', 'dist');
const LEASE_MS = 3_000;
const INTERRUPTED = /^interrupted: the process running it stopped \(killed or crashed\) before it finished/;

interface Proc {
  name: string;
  child: ChildProcess;
  exited: Promise<number | null>;
  stderr: () => string;
}

interface JobRow {
  id: string;
  name: string;
  state: string;
  runner?: string;
  error?: string;
}

const schema = uniqueName('scaleout');
const queueName = uniqueName('scaleoutq');
let env: NodeJS.ProcessEnv;
let repo: string;
let backend: FakeBackend;
let pg: Client;
const procs: Proc[] = [];
// A state folder per process, as each container has its own volume (config, logs, run files).
const states = { a: makeTempDir('sous-state-a-'), b: makeTempDir('sous-state-b-'), w: makeTempDir('sous-state-w-') };
const envFor = (state: string): NodeJS.ProcessEnv => ({ ...env, SOUS_STATE_DIR: state });

function start(name: string, entry: 'main.js' | 'worker.js', port: number, state: string): Proc {
  const child = spawn(process.execPath, [path.join(DIST, entry), '--path', repo, '--port', String(port)], { env: envFor(state), stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const proc = { name, child, exited, stderr: () => stderr };
  procs.push(proc);
  return proc;
}

async function status(port: number): Promise<{ pid: number; role: { role: string }; index: { state: string } } | undefined> {
  const res = await rawRequest({ port, path: '/status', timeoutMs: 2000 }).catch(() => undefined);
  return res?.status === 200 ? res.json : undefined;
}

/** Every job the runners mirrored as `running`, by job id: which pids ran it (from the logs of all processes). */
function runsByJob(): Map<string, number[]> {
  const runs = new Map<string, number[]>();
  const files = Object.values(states).flatMap((state) => {
    const logs = path.join(state, 'logs');
    return fs.existsSync(logs) ? fs.readdirSync(logs).filter((f) => f.endsWith('.log')).map((f) => path.join(logs, f)) : [];
  });
  for (const file of files) {
    for (const line of fs.readFileSync(file, 'utf8').split('\n')) {
      if (!line.includes('"msg":"job"')) continue;
      const entry = JSON.parse(line) as { pid: number; job: string; state: string };
      if (entry.state !== 'running') continue;
      runs.set(entry.job, [...(runs.get(entry.job) ?? []), entry.pid]);
    }
  }
  return runs;
}

beforeAll(async () => {
  pg = new Client({ connectionString: await postgresUrl() });
  await pg.connect();
  env = embeddedEnv({ DATABASE_URL: await postgresUrl(), SOUS_DB_SCHEMA: schema, REDIS_URL: await redisUrl(), SOUS_QUEUE_NAME: queueName, SOUS_LEASE_MS: String(LEASE_MS) });
  backend = await startFakeBackend();
  backend.holdEmbeddings = true; // the watcher's embedding job stays running until it is killed
  repo = makeGitRepo();
  writeFile(repo, 'src/ledger.ts', 'export function total(rows: number[]): number {\n  return rows.reduce((a, b) => a + b, 0);\n}\n');
  writeFile(repo, 'src/report.ts', "import { total } from './ledger';\nexport const report = (rows: number[]) => `total ${total(rows)}`;\n");
  git(repo, ['add', '-A']);
  git(repo, ['commit', '-q', '-m', 'ledger']);
  for (const state of [states.a, states.b]) {
    expect((await sous(['init', '--path', repo, '--non-interactive'], { env: envFor(state) })).code).toBe(0);
    for (const [key, value] of [['backend.base_url', backend.baseUrl], ['exploration.semantic', 'auto'], ['compute.idle_only', 'false']] as const) {
      expect((await sous(['config', 'set', key, value, '--path', repo], { env: envFor(state) })).code).toBe(0);
    }
  }
  expect((await sous(['focus', 'work-here', repo], { env })).code).toBe(0);
}, 60_000);

afterAll(async () => {
  for (const p of procs) if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill('SIGTERM');
  await Promise.all(procs.map((p) => p.exited));
  await backend?.close();
  await pg.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  await pg.end();
  const redis = new Redis(await redisUrl());
  const keys = [...(await redis.keys(`bull:${queueName}*`)), ...(await redis.keys(`sous:lease:${queueName}:*`))];
  if (keys.length) await redis.del(...keys);
  redis.disconnect();
  if (repo) rmTempDir(repo);
  for (const state of Object.values(states)) rmTempDir(state);
}, 60_000);

test('the worker refuses to start without PostgreSQL and Redis, in one line', async () => {
  const child = spawn(process.execPath, [path.join(DIST, 'worker.js'), '--path', makeGitRepo(), '--port', '0'], { env: embeddedEnv(), stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  expect(code).toBe(2);
  expect(stderr.trim().split('\n')).toEqual(['sous worker: the worker runs only in the server topology: set DATABASE_URL and REDIS_URL (the daemon of this repository uses the same)']);
});

test('two daemons and a worker share the work, each job runs once, and killing the watcher hands the repository over', async () => {
  const ports = [await freePort(), await freePort()];
  const daemons = [start('daemon A', 'main.js', ports[0]!, states.a), start('daemon B', 'main.js', ports[1]!, states.b)];
  const worker = start('worker', 'worker.js', await freePort(), states.w);

  // Exactly one watcher; the stored index is ready for the others to read.
  const roles = await until(async () => {
    const s = await Promise.all(ports.map(status));
    if (s.some((x) => x === undefined)) return undefined;
    return s.every((x) => x!.index.state === 'ready') ? s.map((x) => x!.role.role) : undefined;
  }, 90_000, 200);
  expect([...roles].sort()).toEqual(['standby', 'watcher']);
  const watcherAt = roles.indexOf('watcher');
  const standbyAt = 1 - watcherAt;
  const watcherPid = daemons[watcherAt]!.child.pid!;

  // Warm requests through both daemons' API until every process has run some.
  const ids: string[] = [];
  const pids = [daemons[0]!.child.pid!, daemons[1]!.child.pid!, worker.child.pid!];
  await until(async () => {
    for (const port of ports) {
      const res = await rawRequest({ port, method: 'POST', path: '/prepare', headers: { 'content-type': 'application/json' }, body: '{}' });
      expect(res.status).toBe(202);
      ids.push(res.json.job.id as string);
    }
    const jobs = await Promise.all(ids.map(async (id) => (await rawRequest({ port: ports[standbyAt]!, path: `/jobs/${id}` })).json.job as JobRow));
    if (jobs.some((j) => j.state === 'queued' || j.state === 'running')) return undefined;
    const ran = new Set(jobs.map((j) => Number(j.runner?.split(':')[1])));
    return pids.every((pid) => ran.has(pid)) ? true : undefined;
    // Which process takes a job is BullMQ's race: on a loaded 2-core machine one can lose it for minutes.
  }, 240_000, 100);

  // Every cycle completed, on one process, once.
  const runs = runsByJob();
  for (const id of ids) {
    const job = (await rawRequest({ port: ports[watcherAt]!, path: `/jobs/${id}` })).json.job as JobRow;
    expect(job).toMatchObject({ id, name: 'prepare.cycle', state: 'completed' });
    expect(runs.get(id)).toEqual([Number(job.runner!.split(':')[1])]);
  }

  // The watcher runs the embedding step (its own queue) and holds it: kill it mid-job.
  const embedding = await until(async () => {
    if (backend.held() === 0) return undefined;
    const rows = await pg.query(`SELECT id FROM "${schema}".jobs WHERE name = 'index.embed' AND state = 'running'`);
    return rows.rows[0]?.id as string | undefined;
  }, 60_000, 100);
  expect(runsByJob().get(embedding)).toEqual([watcherPid]);
  const killedAt = Date.now();
  daemons[watcherAt]!.child.kill('SIGKILL');

  // The standby takes over within the lease time (plus its renewal period and a margin).
  const promoted = await until(async () => ((await status(ports[standbyAt]!))?.role.role === 'watcher' ? Date.now() : undefined), LEASE_MS + 5_000, 100);
  expect(promoted - killedAt).toBeLessThan(LEASE_MS + 5_000);
  const cli = await sous(['status', '--path', repo], { env: envFor(standbyAt === 0 ? states.a : states.b) });
  expect(cli.stdout).toMatch(/role\s+watcher since/);

  // The killed watcher's job is failed as interrupted by BullMQ's stalled check, and never run again.
  const failed = await until(async () => {
    const res = await rawRequest({ port: ports[standbyAt]!, path: `/jobs/${embedding}` });
    return res.json.job?.state === 'failed' ? (res.json.job as JobRow) : undefined;
  }, 120_000, 250);
  expect(failed.error).toMatch(INTERRUPTED);
  // BullMQ hands a stalled job to a live worker to fail it: the record does not name a runner it cannot know.
  expect(failed.runner).toBeUndefined();
  expect(runsByJob().get(embedding)).toEqual([watcherPid]);
  expect(worker.child.exitCode).toBeNull();
}, 480_000);
