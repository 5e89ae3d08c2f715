import { spawn, execFileSync } from 'node:child_process';
import * as net from 'node:net';
import * as path from 'node:path';
import { rawRequest } from './http';
import { makeTempDir } from './tmp';
import { until } from './wait';

export const CLI = path.join(__dirname, '..', '..', 'services', 'cli', 'dist', 'main.js');

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
  json: any; // eslint-disable-line @typescript-eslint/no-explicit-any -- parsed --json output
}

/** What the first one-shot command on a workspace prints on stderr before creating its embedded database (docs/errors.md). */
export function firstRunNotice(repo: string): string {
  return `creating the embedded database in ${path.join(repo, '.sous', 'data')} (first run only; about 1 s, up to 15 s for the first workspace on this machine)\n`;
}

/**
 * The environment of a user on the embedded default: no DATABASE_URL/REDIS_URL, SOUS_* or
 * NODE_OPTIONS settings leak in from the test runner (CI exports them for the server-topology suites).
 */
export function embeddedEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) {
    // NODE_OPTIONS carries jest's --experimental-vm-modules, which would add warnings to stderr.
    if (k === 'DATABASE_URL' || k === 'REDIS_URL' || k === 'NODE_OPTIONS' || k.startsWith('SOUS_')) continue;
    env[k] = v;
  }
  // A Sous home of its own (Auto Focus registry), and AI clients looked for only in an empty folder of
  // its own: daemons of different tests never see each other, nor the machine's running editors.
  // The run's own cache (test/support/global-services.js): PGlite templates never land in ~/.cache/sous.
  const cache = process.env.SOUS_CACHE_DIR !== undefined ? { SOUS_CACHE_DIR: process.env.SOUS_CACHE_DIR } : {};
  return { ...env, ...cache, SOUS_HOME: makeTempDir('sous-home-'), SOUS_TEST_CLIENT_DIR: process.env.SOUS_TEST_CLIENT_DIR ?? makeTempDir('sous-clients-'), ...extra };
}

/**
 * Runs the built `sous` CLI as a user would (no TTY on stdin). Asynchronous on purpose: servers the
 * test runs in this process (a fake model backend) must keep answering while the CLI works.
 */
export function sous(args: string[], options: { cwd?: string; env?: NodeJS.ProcessEnv; timeoutMs?: number } = {}): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], { cwd: options.cwd, env: options.env ?? embeddedEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 120_000);
    child.once('error', reject);
    child.once('close', (code) => {
      clearTimeout(timer);
      let json: unknown;
      try {
        json = JSON.parse(stdout);
      } catch {
        json = undefined;
      }
      resolve({ code: code ?? -1, stdout, stderr, json });
    });
  });
}

/** A port nobody listens on right now. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
  });
}

/** `git status --porcelain` plus HEAD, to prove Sous changed nothing in the repository. */
export function gitSnapshot(repo: string): { porcelain: string; head: string } {
  // GIT_OPTIONAL_LOCKS=0: `git status` must not refresh .git/index, which read-only tests compare.
  const git = (...a: string[]) => execFileSync('git', a, { cwd: repo, encoding: 'utf8', env: { ...process.env, GIT_OPTIONAL_LOCKS: '0' } });
  return { porcelain: git('status', '--porcelain', '--ignored=no'), head: git('rev-parse', 'HEAD').trim() };
}

/**
 * Initialises `.sous/` and applies `bundle` (default local_balanced, the shipped defaults) before the
 * first `sous up`: the bundle `sous up` would pick depends on the machine's hardware tier, and its
 * dimensions change prediction weights and briefings (docs/predictions.md#policy-bundle).
 */
export async function pinBundle(repo: string, env: NodeJS.ProcessEnv, bundle = 'local_balanced'): Promise<void> {
  for (const args of [['init', '--path', repo, '--non-interactive', '--json'], ['setup', 'apply', bundle, '--tier', 'capable', '--path', repo, '--json']]) {
    const r = await sous(args, { env });
    if (r.code !== 0) throw new Error(`sous ${args.join(' ')} failed: ${r.stderr.trim()}`);
  }
}

/** `sous up` on `port`, then waits until the daemon reports its index ready (the start every daemon test needs). */
export async function upAndIndexed(repo: string, port: number, env: NodeJS.ProcessEnv): Promise<void> {
  const up = await sous(['up', '--path', repo, '--port', String(port), '--json'], { env });
  if (up.code !== 0) throw new Error(`sous up exited ${up.code}: ${up.stderr.trim() || up.stdout.trim()}`);
  await until(async () => ((await rawRequest({ port, path: '/status' })).json?.index?.state === 'ready' ? true : undefined), 60_000, 100);
}
