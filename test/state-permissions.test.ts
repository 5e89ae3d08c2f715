/**
 * Sous's state is its user's alone: `.sous/` is 0700 and nothing under it (config, the embedded
 * store and its WAL, logs, run files) grants any permission to group or others, whether Sous created
 * it or found it wider (an older version made PGlite's files 0666), while the daemon runs and after it
 * stops; the one-shot CLI store is the same. The Sous home (Auto Focus registry) too.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { embeddedEnv, freePort, sous } from './support/cli';
import { rawRequest } from './support/http';
import { makeGitRepo, makeTempDir, rmTempDir, writeFile } from './support/tmp';
import { until } from './support/wait';

/** Every entry under `dir` (itself included) whose mode has a group or other bit, as `mode path`. */
function openToOthers(dir: string): string[] {
  const out: string[] = [];
  const visit = (p: string): void => {
    const stat = fs.lstatSync(p);
    if ((stat.mode & 0o077) !== 0) out.push(`${(stat.mode & 0o777).toString(8)} ${path.relative(dir, p) || '.'}`);
    if (stat.isDirectory()) for (const name of fs.readdirSync(p)) visit(path.join(p, name));
  };
  visit(dir);
  return out;
}

/** Number of entries under `dir`, so an empty walk cannot pass for a private one. */
function count(dir: string): number {
  return fs.readdirSync(dir, { recursive: true }).length;
}

test('a daemon session leaves .sous/ and everything in it (store, WAL, logs, run files) private, narrowing what it found wider', async () => {
  const repo = makeGitRepo();
  const home = makeTempDir('sous-home-');
  const env = embeddedEnv({ SOUS_HOME: home });
  const port = await freePort();
  try {
    // What an older Sous, or a umask of 022, left behind.
    const state = path.join(repo, '.sous');
    fs.mkdirSync(state, { mode: 0o755 });
    fs.chmodSync(state, 0o755);
    writeFile(repo, '.sous/logs/daemon.log', '{"msg":"old"}\n');
    fs.chmodSync(path.join(state, 'logs'), 0o755);
    fs.chmodSync(path.join(state, 'logs/daemon.log'), 0o666);
    fs.chmodSync(home, 0o755);

    expect((await sous(['up', '--path', repo, '--port', String(port)], { env })).code).toBe(0);
    await until(async () => ((await rawRequest({ port, path: '/status' })).json.index?.state === 'ready' ? true : undefined), 60_000);
    expect((await sous(['focus', 'work-here', repo], { env })).code).toBe(0);
    expect(fs.existsSync(path.join(state, 'data', 'pg_wal'))).toBe(true);
    expect(count(state)).toBeGreaterThan(100);
    expect(openToOthers(state)).toEqual([]);
    expect(openToOthers(home)).toEqual([]);

    expect((await sous(['down', '--path', repo], { env })).code).toBe(0);
    expect(openToOthers(state)).toEqual([]);
    expect(openToOthers(home)).toEqual([]);
  } finally {
    await sous(['down', '--path', repo], { env });
    rmTempDir(repo);
    rmTempDir(home);
  }
}, 120_000);

test('a one-shot sous prepare creates its store private', async () => {
  const repo = makeGitRepo();
  try {
    const res = await sous(['prepare', '--path', repo, '--json']);
    expect(res.code).toBe(0);
    const state = path.join(repo, '.sous');
    expect(count(path.join(state, 'data'))).toBeGreaterThan(100);
    expect(openToOthers(state)).toEqual([]);
  } finally {
    rmTempDir(repo);
  }
}, 120_000);
