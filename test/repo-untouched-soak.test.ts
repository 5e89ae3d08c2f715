/**
 * Soak: no byte of the repository changes because of Sous. The test plays the user (edits, a touch
 * that changes only an mtime, new and deleted files, commits, branch switches) and Sous's own life
 * (start, cycles, exports, `sous prepare` through the daemon and alone, a daemon crash the supervisor
 * recovers from, a restart). Around every step, scripts/ci/repo-untouched.js snapshots the work tree
 * and .git (every path, content hash, mode, mtime, ctime; .sous/ aside): the repository is unchanged
 * between the previous step's end and this step's start (Sous idle), and between the user's action and
 * the end of Sous's reaction (the index caught up, a cycle ran, the queue drained).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { embeddedEnv, freePort, sous } from './support/cli';
import { rawRequest } from './support/http';
import { makeRenameDriftRepo, warmCycle } from './support/prepared-work';
import { git, rmTempDir, writeFile } from './support/tmp';
import { until } from './support/wait';

interface Snapshot {
  root: string;
  entries: Record<string, unknown>;
}
// eslint-disable-next-line @typescript-eslint/no-require-imports -- the CI script is plain JavaScript
const untouched = require('../scripts/ci/repo-untouched.js') as { snapshot(root: string): Snapshot; differences(a: Snapshot, b: Snapshot): string[] };

test('the repository is byte-for-byte and mtime-for-mtime the user\'s across edits, commits, branch switches, cycles, exports and restarts', async () => {
  const repo = makeRenameDriftRepo();
  const env = embeddedEnv();
  const port = await freePort();
  const get = async (p: string) => (await rawRequest({ port, path: p })).json;
  const status = async () => (await rawRequest({ port, path: '/status' }).catch(() => undefined))?.json;
  const head = () => git(repo, ['rev-parse', 'HEAD']).trim();

  /** Sous has taken the repository's current state in: index caught up, a cycle ran, no job left. */
  const settled = async (indexed: (index: { generation: number; head: string | null; state: string }) => boolean) => {
    await until(async () => ((await status())?.index && indexed((await status()).index) ? true : undefined), 30_000, 100);
    expect(await warmCycle(port)).toMatchObject({ state: 'completed' });
    await until(async () => {
      const jobs = (await get('/jobs?limit=50')).jobs as Array<{ state: string }>;
      return jobs.some((j) => j.state === 'queued' || j.state === 'running') ? undefined : true;
    }, 30_000, 100);
  };
  const generation = async (): Promise<number> => (await status()).index.generation;
  const up = async () => {
    expect((await sous(['up', '--path', repo, '--port', String(port)], { env })).code).toBe(0);
    await settled((i) => i.state === 'ready');
  };

  let last: Snapshot;
  /** One step: `user` acts (or not), then `react` waits for Sous; both gaps must leave the repository as found. */
  const step = async (name: string, user: () => void, react: () => Promise<void>) => {
    expect({ step: name, while: 'idle', differences: untouched.differences(last, untouched.snapshot(repo)) }).toEqual({ step: name, while: 'idle', differences: [] });
    user();
    const mine = untouched.snapshot(repo);
    await react();
    last = untouched.snapshot(repo);
    expect({ step: name, while: 'sous reacted', differences: untouched.differences(mine, last) }).toEqual({ step: name, while: 'sous reacted', differences: [] });
  };
  const nothing = () => undefined;

  try {
    expect((await sous(['init', '--path', repo, '--non-interactive', '--json'], { env })).code).toBe(0);
    last = untouched.snapshot(repo);

    await step('sous up, first cycles', nothing, async () => {
      await up();
      expect((await sous(['focus', 'work-here', repo], { env })).code).toBe(0);
    });
    let g = await generation();
    await step('edit a tracked file', () => writeFile(repo, 'src/server.ts', "import { loadConfig } from './config';\nexport function startServer(raw: string) {\n  return loadConfig(raw.trim());\n}\n"), () => settled((i) => i.generation > g));
    await step('touch a tracked file (mtime only)', () => fs.utimesSync(path.join(repo, 'docs/guide.md'), new Date(Date.now() + 60_000), new Date(Date.now() + 60_000)), () => settled(() => true));
    g = await generation();
    await step('add an untracked file', () => writeFile(repo, 'src/extra.ts', 'export const extra = 1;\n'), () => settled((i) => i.generation > g));
    await step('commit everything', () => {
      git(repo, ['add', '-A']);
      git(repo, ['commit', '-q', '-m', 'Trim the raw config; extra']);
    }, () => settled((i) => i.head === head()));
    await step('switch to a new branch and commit there', () => {
      git(repo, ['checkout', '-q', '-b', 'feature']);
      writeFile(repo, 'src/feature.ts', 'export const feature = true;\n');
      git(repo, ['add', '-A']);
      git(repo, ['commit', '-q', '-m', 'Feature flag']);
    }, () => settled((i) => i.head === head()));
    await step('switch back to main', () => git(repo, ['checkout', '-q', 'main']), () => settled((i) => i.head === head()));
    g = await generation();
    await step('delete a tracked file', () => fs.rmSync(path.join(repo, 'src/extra.ts')), () => settled((i) => i.generation > g));

    await step('export every ready card', nothing, async () => {
      const cards = (await get('/work-products?state=ready')).items as Array<{ id: string }>;
      expect(cards.length).toBeGreaterThan(0);
      for (const card of cards) expect((await rawRequest({ port, method: 'POST', path: `/work-products/${card.id}/export` })).status).toBe(200);
    });
    await step('sous prepare through the daemon', nothing, async () => {
      const res = await sous(['prepare', '--path', repo, '--json'], { env });
      expect(res.json?.cycle?.answered_by).toBe('daemon');
    });
    await step('the daemon crashes; the supervisor restarts it', nothing, async () => {
      const crashed = (await status()).pid as number;
      process.kill(crashed, 'SIGKILL');
      await until(async () => {
        const s = await status();
        return s !== undefined && s.pid !== crashed && s.index?.state === 'ready' ? true : undefined;
      }, 60_000, 200);
      await settled(() => true);
    });
    await step('sous down and up again', nothing, async () => {
      expect((await sous(['down', '--path', repo], { env })).code).toBe(0);
      await up();
    });
    await step('sous down, then a one-shot sous prepare', nothing, async () => {
      expect((await sous(['down', '--path', repo], { env })).code).toBe(0);
      const res = await sous(['prepare', '--path', repo, '--json'], { env });
      expect(res.json?.cycle?.answered_by).toBe('cli');
    });
  } finally {
    await sous(['down', '--path', repo], { env });
    rmTempDir(repo);
  }
}, 180_000);
