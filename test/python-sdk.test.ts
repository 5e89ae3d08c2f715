/**
 * The Python SDK (spec 4.8; sdk/python, docs/proxy.md#python-sdk) against a live context API: a real
 * daemon (`sous up`, embedded PGlite) prepares a temporary repository, `sous proxy --context-only`
 * serves it, and `python3 -m unittest discover sdk/python` runs with the API's URL in
 * SOUS_CONTEXT_URL. Without that wiring the SDK's live tests fail (they are never skipped).
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import * as path from 'node:path';
import { CLI, embeddedEnv, freePort, sous } from './support/cli';
import { rawRequest } from './support/http';
import { git, makeGitRepo, rmTempDir, writeFile } from './support/tmp';
import { until } from './support/wait';

const ROOT = path.join(__dirname, '..');
let repo: string;
let env: NodeJS.ProcessEnv;
let context: ChildProcess | undefined;
let contextPort: number;

beforeAll(async () => {
  repo = makeGitRepo();
  writeFile(repo, 'src/parser.ts', 'export function parseGrammar(source: string): string[] {\n  return source.split("\\n");\n}\n');
  writeFile(repo, 'src/lexer.ts', 'export function lexTokens(text: string): string[] {\n  return text.split(" ");\n}\n');
  git(repo, ['add', '-A']);
  git(repo, ['commit', '-q', '-m', 'sdk files']);
  env = embeddedEnv();
  const daemonPort = await freePort();
  expect((await sous(['up', '--path', repo, '--port', String(daemonPort), '--json'], { env })).code).toBe(0);
  contextPort = await freePort();
  context = spawn(process.execPath, [CLI, 'proxy', '--context-only', '--path', repo, '--port', String(contextPort)], { env, stdio: 'ignore' });
  const probe = JSON.stringify({ prompt: 'parseGrammar', top_n: 1 });
  await until(async () => ((await rawRequest({ port: contextPort, method: 'POST', path: '/v1/context', headers: { 'content-type': 'application/json' }, body: probe }).catch(() => undefined))?.json?.items?.length ? true : undefined), 90_000, 200);
}, 150_000);

afterAll(async () => {
  if (context && context.exitCode === null) {
    context.kill('SIGTERM');
    await new Promise((r) => context?.once('exit', r));
  }
  await sous(['down', '--path', repo], { env });
  rmTempDir(repo);
  if (env?.SOUS_HOME) rmTempDir(env.SOUS_HOME);
}, 60_000);

test('python3 -m unittest discover sdk/python passes against the live context API, with no test skipped', () => {
  const run = spawnSync('python3', ['-B', '-m', 'unittest', 'discover', '-v', 'sdk/python'], {
    cwd: ROOT,
    env: { ...process.env, CI: 'true', SOUS_CONTEXT_URL: `http://127.0.0.1:${contextPort}`, SOUS_TEST_REPO: repo },
    encoding: 'utf8',
    timeout: 120_000,
  });
  // unittest reports on stderr.
  const report = `${run.stdout}\n${run.stderr}`;
  expect({ code: run.status, report }).toEqual({ code: 0, report: expect.stringMatching(/\nOK\n/) });
  expect(report).not.toMatch(/skipped/);
  expect(report).toMatch(/test_query_returns_a_package_with_injected_context \(.*\) \.\.\. ok/);
}, 150_000);
