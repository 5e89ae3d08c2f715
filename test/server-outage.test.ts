/**
 * The server topology when PostgreSQL or Redis goes away and comes back (issue 15, items 4 and 8):
 * the daemon and the context process talk to the machine's real PostgreSQL and Redis through TCP
 * proxies of this test, which cut and restore them (the shared servers themselves never stop).
 * Real repository, real HTTP over loopback, real store schema and queue of this file's own.
 */
import { Client } from 'pg';
import Redis from 'ioredis';
import { parseProcessOptions } from '@sous/runtime';
import { startContextSurface, type RunningSurface } from '@sous/http';
import { startDaemon, type RunningDaemon } from '../services/daemon/src/daemon';
import { embeddedEnv } from './support/cli';
import { rawRequest } from './support/http';
import { postgresUrl, redisUrl, uniqueName } from './support/services';
import { startTcpProxy, type TcpProxy } from './support/tcp-proxy';
import { makeGitRepo, rmTempDir, writeFile } from './support/tmp';
import { until } from './support/wait';

describe('server topology, PostgreSQL and Redis cut and restored', () => {
  const schema = uniqueName('outage');
  const queueName = uniqueName('outageq');
  let pg: TcpProxy;
  let redis: TcpProxy;
  let repo: string;
  let daemon: RunningDaemon;
  let context: RunningSurface;

  const get = (port: number, path: string) => rawRequest({ port, path, timeoutMs: 15_000 });
  const ask = (prompt: string) =>
    rawRequest({ port: context.port, method: 'POST', path: '/v1/context', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ prompt, top_n: 5 }), timeoutMs: 15_000 });
  const status = async () => (await get(daemon.port, '/status')).json;

  beforeAll(async () => {
    pg = await startTcpProxy(await postgresUrl());
    redis = await startTcpProxy(await redisUrl());
    repo = makeGitRepo();
    const env = embeddedEnv({ DATABASE_URL: pg.url, SOUS_DB_SCHEMA: schema, REDIS_URL: redis.url, SOUS_QUEUE_NAME: queueName });
    daemon = await startDaemon(parseProcessOptions(['--path', repo, '--port', '0'], env, { port: 0 }));
    await until(async () => ((await status()).index.state === 'ready' ? true : undefined), 60_000);
    context = await startContextSurface('context', parseProcessOptions(['--path', repo, '--port', '0'], env, { port: 0 }), { workers: 1 });
  }, 120_000);

  afterAll(async () => {
    await pg?.restore();
    await redis?.restore();
    await context?.close();
    await daemon?.close('test done');
    await pg?.close();
    await redis?.close();
    const client = new Client({ connectionString: await postgresUrl() });
    await client.connect();
    await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await client.end();
    const r = new Redis(await redisUrl());
    const keys = await r.keys(`bull:${queueName}:*`);
    if (keys.length) await r.del(...keys);
    r.disconnect();
    rmTempDir(repo);
  }, 60_000);

  test('a file saved while PostgreSQL is down is stored when it is back; meanwhile both processes say so instead of ready', async () => {
    await pg.cut();
    writeFile(repo, 'src/outage.ts', 'export function quetzalcoatlFeathers(): number {\n  return 7;\n}\n');

    // The daemon keeps answering, says what is wrong (and since when), and keeps the change.
    const degraded = await until(async () => {
      const s = await status();
      return s.status === 'degraded' && s.reasons?.some((r: { dependency: string }) => r.dependency === 'index') ? s : undefined;
    }, 30_000);
    expect(degraded.index.unsaved).toMatchObject({ files: 1 });
    const store = degraded.reasons.find((r: { dependency: string }) => r.dependency === 'store');
    expect(store.reason).toMatch(/postgres/i);
    expect(Date.parse(store.since)).not.toBeNaN();
    expect((await get(daemon.port, '/')).status).toBe(200);
    // The daemon's own answer already knows the file (its index lives in memory).
    const fromDaemon = await rawRequest({ port: daemon.port, method: 'POST', path: '/v1/context', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ prompt: 'quetzalcoatlFeathers' }) });
    expect(fromDaemon.json.items[0].path).toBe('src/outage.ts');

    // The context process cannot see the change: it must not claim to be ready.
    const health = await until(async () => {
      const h = (await get(context.port, '/healthz')).json;
      return h.status === 'degraded' ? h : undefined;
    }, 30_000);
    expect(health.reasons[0]).toMatchObject({ dependency: 'store' });
    const stale = await ask('quetzalcoatlFeathers');
    expect(stale.status).toBe(200);
    expect(stale.json.stats.index_state).toBe('stale');
    expect(stale.json.stats.stale_reason).toMatch(/cannot read the stored index/);

    await pg.restore();

    // Back: the change reaches PostgreSQL without another save, and the context process serves it.
    const answer = await until(async () => {
      const res = await ask('quetzalcoatlFeathers');
      return res.status === 200 && res.json.items[0]?.path === 'src/outage.ts' && res.json.stats.index_state === 'ready' ? res.json : undefined;
    }, 30_000);
    const after = await until(async () => {
      const s = await status();
      return s.status === 'ok' ? s : undefined;
    }, 30_000);
    expect(after.index.unsaved).toBeNull();
    expect(answer.stats.generation).toBe(after.index.generation);
    expect((await get(context.port, '/healthz')).json.status).toBe('ok');

    // Nothing lost: the file_change signal of the save was recorded too.
    const client = new Client({ connectionString: await postgresUrl() });
    await client.connect();
    try {
      const rows = await client.query(`SELECT payload FROM "${schema}".signal_events WHERE kind = 'file_change'`);
      expect(rows.rows.some((r: { payload: { paths: string[] } }) => r.payload.paths.includes('src/outage.ts'))).toBe(true);
    } finally {
      await client.end();
    }
  }, 120_000);

  test('with PostgreSQL down, store-backed routes answer 503 naming the store, never 500', async () => {
    await pg.cut();
    try {
      for (const path of ['/prepared-work', '/work-products']) {
        const res = await get(daemon.port, path);
        expect({ path, status: res.status }).toEqual({ path, status: 503 });
        expect(res.json.error).toMatchObject({ code: 'unavailable', details: { dependency: 'store' } });
        expect(res.json.error.message).toMatch(/PostgreSQL/);
      }
    } finally {
      await pg.restore();
    }
    await until(async () => ((await get(daemon.port, '/prepared-work')).status === 200 ? true : undefined), 30_000);
  }, 60_000);

  test('with Redis down, POST /prepare and GET /jobs answer 503 naming Redis, never 500', async () => {
    await redis.cut();
    try {
      const prepare = await rawRequest({ port: daemon.port, method: 'POST', path: '/prepare', headers: { 'content-type': 'application/json' }, body: '{}', timeoutMs: 30_000 });
      expect(prepare.status).toBe(503);
      expect(prepare.json.error).toMatchObject({ code: 'unavailable', details: { dependency: 'queue' } });
      expect(prepare.json.error.message).toMatch(/Redis/);
      const jobs = await get(daemon.port, '/jobs');
      expect(jobs.status).toBe(503);
      expect(jobs.json.error).toMatchObject({ code: 'unavailable', details: { dependency: 'queue' } });
      const s = await status();
      expect(s.status).toBe('degraded');
      expect(s.reasons.map((r: { dependency: string }) => r.dependency)).toContain('queue');
    } finally {
      await redis.restore();
    }
    await until(async () => ((await get(daemon.port, '/jobs')).status === 200 ? true : undefined), 30_000);
  }, 90_000);
});
