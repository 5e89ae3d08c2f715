/**
 * The daemon on the embedded store when its disk fills up (issue 15, item 3): it keeps answering
 * HTTP, `/status` says `degraded` with the reason and since when, a file saved meanwhile is kept
 * and stored once space is freed, without another save. The data directory is a small tmpfs of
 * the test's own (see support/small-disk.ts); the daemon is a real process started by `sous up`.
 */
import * as path from 'node:path';
import { freePort, sous, embeddedEnv } from './support/cli';
import { rawRequest } from './support/http';
import { mountSmallDisk, type SmallDisk } from './support/small-disk';
import { makeGitRepo, rmTempDir, writeFile } from './support/tmp';
import { until } from './support/wait';

describe('embedded store, disk full and freed again', () => {
  let repo: string;
  let disk: SmallDisk;
  let env: NodeJS.ProcessEnv;
  let port: number;

  // A hung daemon fails these requests at their timeout instead of holding the test.
  const get = (p: string) => rawRequest({ port, path: p, timeoutMs: 10_000 });
  const status = async () => (await get('/status')).json;

  beforeAll(async () => {
    repo = makeGitRepo();
    disk = mountSmallDisk(path.join(repo, '.sous', 'data'), 96);
    env = embeddedEnv();
    port = await freePort();
    const up = await sous(['up', '--path', repo, '--port', String(port), '--json'], { env });
    expect(up.code).toBe(0);
    await until(async () => ((await status()).index?.state === 'ready' ? true : undefined), 60_000);
  }, 120_000);

  afterAll(async () => {
    disk?.free();
    await sous(['down', '--path', repo], { env });
    disk?.unmount();
    rmTempDir(repo);
  }, 60_000);

  test('keeps answering, says degraded with the reason, and stores the change made meanwhile once space is back', async () => {
    disk.fill();
    writeFile(repo, 'src/saved-while-full.ts', 'export const zanzibarLighthouse = 1;\n');

    const degraded = await until(async () => {
      const s = await status();
      return s.status === 'degraded' && s.index.unsaved !== null ? s : undefined;
    }, 30_000);
    const store = degraded.reasons.find((r: { dependency: string }) => r.dependency === 'store');
    expect(store.reason).toMatch(/disk full/);
    expect(Date.parse(store.since)).not.toBeNaN();
    expect(degraded.reasons.find((r: { dependency: string }) => r.dependency === 'index').reason).toMatch(/not saved/);
    expect((await get('/')).status).toBe(200);
    // Reading the feed writes nothing: it may go on (200), or, once PGlite itself failed a write and
    // its instance was dropped, answer 503 naming the store; never a 500.
    const feed = await get('/prepared-work');
    expect([200, 503]).toContain(feed.status);
    if (feed.status === 503) expect(feed.json.error).toMatchObject({ code: 'unavailable', details: { dependency: 'store' } });
    // Answers come from memory, with the new file.
    const answer = await rawRequest({ port, method: 'POST', path: '/v1/context', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ prompt: 'zanzibarLighthouse' }), timeoutMs: 10_000 });
    expect(answer.json.items[0].path).toBe('src/saved-while-full.ts');

    disk.free();

    const healthy = await until(async () => {
      const s = await status();
      return s.status === 'ok' ? s : undefined;
    }, 60_000);
    expect(healthy.index.unsaved).toBeNull();
    expect(healthy.store.ok).toBe(true);
    const stored = await get('/v1/index/changes?since=0');
    expect(stored.status).toBe(200);
    expect(stored.json.delta.upserted.map((f: { path: string }) => f.path)).toContain('src/saved-while-full.ts');
    expect(stored.json.generation).toBe(healthy.index.generation);
  }, 150_000);
});
