/**
 * `sous mcp` as the MCP Inspector's CLI mode sees it (`mcp-inspector --cli <command> --method …`, the
 * devDependency @modelcontextprotocol/inspector): an independent client lists the tools and calls
 * them over stdio, and prints the JSON it got. The daemon is started first (`sous up`), so each call
 * answers instead of reporting a daemon that is still starting.
 *
 * The Inspector gives the server it spawns only the environment it is told with `-e` (v2 passes no
 * other variable), so the Sous home and the client folder of this test are passed that way.
 */
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { CLI, embeddedEnv, freePort, sous } from './support/cli';
import { git, makeGitRepo, makeTempDir, rmTempDir, writeFile } from './support/tmp';
import { until } from './support/wait';

const INSPECTOR = path.join(__dirname, '..', 'node_modules', '.bin', 'mcp-inspector');

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the Inspector's JSON is checked field by field
type Json = Record<string, any>;

interface Run {
  code: number;
  stdout: string;
  stderr: string;
  json: Json | undefined;
}

describe('sous mcp under the MCP Inspector CLI', () => {
  let repo: string;
  let cwd: string;
  const env = embeddedEnv();

  /** `mcp-inspector --cli node <sous> mcp --path <repo> <args>`; its stdout parsed as JSON. */
  function inspector(args: string[]): Promise<Run> {
    const passed = ['SOUS_HOME', 'SOUS_TEST_CLIENT_DIR'].flatMap((k) => ['-e', `${k}=${env[k] as string}`]);
    const argv = ['--cli', ...passed, process.execPath, CLI, 'mcp', '--path', repo, ...args];
    return new Promise((resolve, reject) => {
      // A cwd of its own: Inspector v1 picks its package.json by a path relative to the cwd.
      const child = spawn(INSPECTOR, argv, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
      let stdout = '';
      let stderr = '';
      child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
      child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
      const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
      child.once('error', reject);
      child.once('close', (code) => {
        clearTimeout(timer);
        let json: Json | undefined;
        try {
          json = JSON.parse(stdout) as Json;
        } catch {
          json = undefined;
        }
        resolve({ code: code ?? -1, stdout, stderr, json });
      });
    });
  }

  const text = (r: Run): string => ((r.json?.content ?? []) as Array<{ text?: string }>).map((c) => c.text ?? '').join('\n');

  beforeAll(async () => {
    if (!fs.existsSync(INSPECTOR)) throw new Error(`${INSPECTOR} is missing: run npm ci (the root devDependencies name @modelcontextprotocol/inspector)`);
    repo = makeGitRepo();
    cwd = makeTempDir('sous-inspector-');
    writeFile(repo, 'src/config.ts', 'export function loadConfig(text: string) {\n  return JSON.parse(text);\n}\n');
    git(repo, ['add', '-A']);
    git(repo, ['commit', '-q', '-m', 'config']);
    const up = await sous(['up', '--path', repo, '--port', String(await freePort()), '--json'], { env });
    if (up.code !== 0) throw new Error(`sous up failed: ${up.stderr}`);
  }, 120_000);

  afterAll(async () => {
    await sous(['down', '--path', repo], { env });
    rmTempDir(repo);
    rmTempDir(cwd);
    rmTempDir(env.SOUS_HOME as string);
  }, 60_000);

  test('--method tools/list: every tool with a name clients accept and an object input schema', async () => {
    const r = await inspector(['--method', 'tools/list']);
    expect(r.json).toBeDefined(); // nothing but the Inspector's JSON on stdout
    expect(r.code).toBe(0);
    const tools = r.json?.tools as Array<{ name: string; description?: string; inputSchema?: { type?: string } }>;
    expect(tools.length).toBeGreaterThan(20);
    expect(tools.map((t) => t.name)).toEqual(expect.arrayContaining(['sous_prepared_work_dashboard', 'sous_search', 'sous_status']));
    for (const t of tools) {
      expect(t.name).toMatch(/^[a-zA-Z0-9_-]{1,64}$/);
      expect(t.description).toBeTruthy();
      expect(t.inputSchema?.type).toBe('object');
    }
  }, 90_000);

  test('--method tools/call: sous_status answers for this workspace; sous_search takes --tool-arg', async () => {
    // The index of a fresh daemon may still be building: sous_status says so until it is ready.
    const status = await until(async () => {
      const r = await inspector(['--method', 'tools/call', '--tool-name', 'sous_status']);
      return r.json?.isError !== true && r.json?.structuredContent?.index?.state === 'ready' ? r : undefined;
    }, 60_000, 500);
    expect(status.code).toBe(0);
    const data = status.json?.structuredContent as Json;
    expect(data.status).toBe('ok');
    expect([repo, fs.realpathSync(repo)]).toContain(data.workspace.root);
    expect(text(status)).toMatch(/^Sous \S+ ok for /);

    const search = await inspector(['--method', 'tools/call', '--tool-name', 'sous_search', '--tool-arg', 'query=where is loadConfig defined']);
    expect(search.code).toBe(0);
    expect(search.json?.isError).not.toBe(true);
    expect(JSON.stringify(search.json?.structuredContent)).toContain('src/config.ts');

    // A wrong argument is the tool's error result, which the Inspector prints (v2 also exits non-zero).
    const bad = await inspector(['--method', 'tools/call', '--tool-name', 'sous_status', '--tool-arg', 'verbose=1']);
    expect(bad.json?.isError).toBe(true);
    expect(text(bad)).toMatch(/verbose/);
  }, 120_000);
});
