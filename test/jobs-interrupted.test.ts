/**
 * A daemon killed (SIGKILL) in the middle of a job leaves no record `running` forever: once the
 * supervisor has it back, the job is recorded `failed` with the reason "interrupted …" in the `jobs`
 * table and in GET /jobs where the queue still knows it. In-process queue: settled at start. BullMQ:
 * failed by its stalled-job check once the dead worker's lock expires (about a minute).
 * PostgreSQL (a schema of its own) lets the test read the table while the daemon runs.
 */
import { Client } from 'pg';
import Redis from 'ioredis';
import { embeddedEnv, freePort, sous } from './support/cli';
import { startFakeBackend, type FakeBackend } from './support/fake-backend';
import { rawRequest } from './support/http';
import { postgresUrl, redisUrl, uniqueName } from './support/services';
import { makeGitRepo, rmTempDir, writeFile, git } from './support/tmp';
import { until } from './support/wait';

const INTERRUPTED = /^interrupted: the process running it stopped \(killed or crashed\) before it finished/;

describe.each([
  { name: 'in-process queue', redis: false },
  { name: 'BullMQ', redis: true },
])('a job whose daemon is killed mid-run ($name)', ({ redis }) => {
  const schema = uniqueName('jobkill');
  const queueName = uniqueName('jobkillq');
  let pg: Client;
  let backend: FakeBackend;
  let repo: string;
  let env: NodeJS.ProcessEnv;

  beforeAll(async () => {
    pg = new Client({ connectionString: await postgresUrl() });
    await pg.connect();
    env = embeddedEnv({ DATABASE_URL: await postgresUrl(), SOUS_DB_SCHEMA: schema, ...(redis ? { REDIS_URL: await redisUrl(), SOUS_QUEUE_NAME: queueName } : {}) });
    backend = await startFakeBackend();
    backend.holdEmbeddings = true; // the embedding job stays running until the test ends
  });

  afterAll(async () => {
    if (repo) await sous(['down', '--path', repo], { env });
    await backend.close();
    await pg.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await pg.end();
    if (redis) {
      const client = new Redis(await redisUrl());
      const keys = await client.keys(`bull:${queueName}:*`);
      if (keys.length) await client.del(...keys);
      client.disconnect();
    }
    if (repo) rmTempDir(repo);
  }, 60_000);

  test('is recorded failed as interrupted once the daemon is back, never running forever', async () => {
    repo = makeGitRepo();
    writeFile(repo, 'src/ledger.ts', 'export function total(rows: number[]): number {\n  return rows.reduce((a, b) => a + b, 0);\n}\n');
    git(repo, ['add', '-A']);
    git(repo, ['commit', '-q', '-m', 'ledger']);
    const port = await freePort();
    expect((await sous(['init', '--path', repo, '--non-interactive'], { env })).code).toBe(0);
    for (const [key, value] of [['backend.base_url', backend.baseUrl], ['exploration.semantic', 'auto'], ['compute.idle_only', 'false']] as const) {
      expect((await sous(['config', 'set', key, value, '--path', repo], { env })).code).toBe(0);
    }
    // Auto Focus: the user works here, so background work (the embedding job) may run at once.
    expect((await sous(['focus', 'work-here', repo], { env })).code).toBe(0);
    const up = await sous(['up', '--path', repo, '--port', String(port), '--json'], { env });
    expect(up.code).toBe(0);

    const running = await until(async () => {
      if (backend.held() === 0) return undefined;
      const rows = await pg.query(`SELECT id FROM "${schema}".jobs WHERE name = 'index.embed' AND state = 'running'`);
      return rows.rows[0]?.id as string | undefined;
    }, 90_000, 100);
    const daemonPid = up.json.daemon_pid as number;
    process.kill(daemonPid, 'SIGKILL');

    const settled = await until(async () => {
      const rows = await pg.query(`SELECT state, error, finished_at FROM "${schema}".jobs WHERE id = $1`, [running]);
      const row = rows.rows[0] as { state: string; error: string | null; finished_at: Date | null } | undefined;
      return row && row.state !== 'running' ? row : undefined;
    }, 150_000, 250);
    expect(settled.state).toBe('failed');
    expect(settled.error).toMatch(INTERRUPTED);
    expect(settled.finished_at).not.toBeNull();

    // The supervisor brought a daemon back; what the queue reports agrees with the table.
    const status = await until(async () => {
      const s = await rawRequest({ port, path: '/status', timeoutMs: 2000 }).catch(() => undefined);
      return s?.status === 200 && s.json.pid !== daemonPid ? s.json : undefined;
    }, 60_000, 200);
    expect(status.status).toBe('ok');
    const job = await rawRequest({ port, path: `/jobs/${running}` });
    if (redis) expect(job.json.job).toMatchObject({ id: running, state: 'failed', error: expect.stringMatching(INTERRUPTED) });
    else expect(job.status).toBe(404); // the in-process queue forgot it with its process; the table keeps it
  }, 300_000);
});
