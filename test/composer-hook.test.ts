/**
 * The Claude Code L0 composer adapter (spec 6.5), run the way Claude Code runs a UserPromptSubmit hook:
 * the command `sous launch claude-code --composer` wrote into `.claude/settings.json`, through a shell,
 * with the hook's JSON on stdin. Against a live daemon the signal arrives (text_hash and length_chars,
 * never the text, which no table holds); against a dead port, a port that never answers, or bad
 * input, it exits 0 promptly and prints nothing (stdout would be added to the prompt).
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as path from 'node:path';
import { sql } from 'drizzle-orm';
import { sousPaths } from '@sous/config';
import { parseProcessOptions } from '@sous/runtime';
import { startDaemon, type RunningDaemon } from '../services/daemon/src/daemon';
import { embeddedEnv, freePort, sous } from './support/cli';
import { makeGitRepo, makeTempDir, rmTempDir } from './support/tmp';
import { until } from './support/wait';

const PROMPT = 'rename the zebra-crossing quantifier in parser 9c1e, ünïcödé included';
const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');

interface HookRun {
  code: number | null;
  stdout: string;
  stderr: string;
  ms: number;
}

/** Runs a hook command as Claude Code does: `sh -c <command>`, JSON on stdin, in the project directory. */
function runHook(command: string, stdin: string, cwd: string): Promise<HookRun> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const child = spawn('/bin/sh', ['-c', command], { cwd, env: embeddedEnv({ CLAUDE_PROJECT_DIR: cwd }), stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    child.once('error', reject);
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr, ms: Date.now() - started });
    });
    child.stdin.end(stdin);
  });
}

function hookInput(repo: string, prompt: string): string {
  return JSON.stringify({ session_id: 'claude-session-1', transcript_path: path.join(repo, 'transcript.jsonl'), cwd: repo, hook_event_name: 'UserPromptSubmit', prompt });
}

describe('the Claude Code UserPromptSubmit hook (L0 composer adapter)', () => {
  let repo: string;
  let home: string;
  let sousHome: string;
  let previousHome: string | undefined;
  let daemon: RunningDaemon;
  let hookCommand: string;

  beforeAll(async () => {
    previousHome = process.env.SOUS_HOME;
    sousHome = makeTempDir('sous-home-');
    process.env.SOUS_HOME = sousHome;
    home = makeTempDir('sous-client-home-');
    repo = makeGitRepo();
    fs.mkdirSync(sousPaths(repo).dir, { recursive: true });
    const launched = await sous(['launch', 'claude-code', '--composer', '--path', repo, '--json'], { env: embeddedEnv({ HOME: home }) });
    expect(launched.code).toBe(0);
    expect(launched.json.clients[0].layers[3]).toMatchObject({ layer: 'hooks', status: 'installed' });
    const settings = JSON.parse(fs.readFileSync(path.join(repo, '.claude', 'settings.json'), 'utf8'));
    hookCommand = settings.hooks.UserPromptSubmit[0].hooks[0].command;
    expect(settings.hooks.UserPromptSubmit[0].hooks[0]).toMatchObject({ type: 'command' });
    daemon = await startDaemon(parseProcessOptions(['--path', repo, '--port', '0'], { LOG_LEVEL: 'warn' }, { port: 0 }));
  }, 180_000);

  afterAll(async () => {
    await daemon?.close('test done');
    if (previousHome === undefined) delete process.env.SOUS_HOME;
    else process.env.SOUS_HOME = previousHome;
    rmTempDir(repo);
    rmTempDir(home);
    rmTempDir(sousHome);
  });

  test('against the live daemon: one composer_lifecycle event with the hash and length, no text anywhere, nothing printed', async () => {
    const events = () => daemon.context.store.signals.listRecent('composer_lifecycle', { workspaceId: daemon.context.workspaceId, limit: 50 });
    const before = (await events()).length;
    const run = await runHook(hookCommand, hookInput(repo, PROMPT), repo);
    expect(run).toMatchObject({ code: 0, stdout: '', stderr: '' });
    await until(async () => (await events()).length > before, 10_000);
    const all = await events();
    expect(all.length).toBe(before + 1);
    const stored = all.find((e) => (e.payload as { text_hash?: string }).text_hash === sha256(PROMPT));
    expect(stored?.payload).toMatchObject({
      session_id: 'claude-session-1',
      lifecycle_state: 'submitted',
      text_hash: sha256(PROMPT),
      length_chars: [...PROMPT].length,
      capabilities: { level: 'L0', emits: ['submitted'], host_app: 'claude-code', host_kind: 'cli' },
      workspace_id: repo,
    });
    // No table holds the prompt, nor a slice of it.
    const rows = async <T>(q: ReturnType<typeof sql>): Promise<T[]> => ((await daemon.context.store.db.execute(q)) as unknown as { rows: T[] }).rows;
    const tables = await rows<{ table_name: string }>(sql`SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'`);
    for (const { table_name } of tables) {
      const hits = await rows<{ n: number }>(sql`SELECT count(*)::int AS n FROM ${sql.identifier(table_name)} t WHERE t::text LIKE ${'%zebra-crossing%'}`);
      expect({ table_name, hits: hits[0]?.n }).toEqual({ table_name, hits: 0 });
    }
  }, 60_000);

  test('against a dead port, a port that never answers, and input that is not a hook event: exit 0, nothing printed', async () => {
    const runState = path.join(makeTempDir('sous-run-'), 'daemon.json');
    const dead = await freePort();
    fs.writeFileSync(runState, JSON.stringify({ pid: 1, host: '127.0.0.1', port: dead }));
    const deadCommand = hookCommand.replace(/--run-state \S+/, `--run-state ${runState}`);
    expect(deadCommand).not.toBe(hookCommand);
    const refused = await runHook(deadCommand, hookInput(repo, PROMPT), repo);
    expect(refused).toMatchObject({ code: 0, stdout: '', stderr: '' });

    // A server that accepts the connection and never answers: the hook gives up on its own.
    const sockets: net.Socket[] = [];
    const silent = net.createServer((s) => sockets.push(s));
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', () => r()));
    try {
      fs.writeFileSync(runState, JSON.stringify({ pid: 1, host: '127.0.0.1', port: (silent.address() as net.AddressInfo).port }));
      const hung = await runHook(deadCommand, hookInput(repo, PROMPT), repo);
      expect(hung).toMatchObject({ code: 0, stdout: '', stderr: '' });
      // Its own budget is 1 s; the bound here is generous (process start on a loaded machine).
      expect(hung.ms).toBeLessThan(10_000);
    } finally {
      for (const s of sockets) s.destroy();
      silent.close();
    }

    for (const input of ['not json', '{"hook_event_name":"UserPromptSubmit"}', '']) {
      expect(await runHook(hookCommand, input, repo)).toMatchObject({ code: 0, stdout: '', stderr: '' });
    }
    fs.rmSync(path.dirname(runState), { recursive: true, force: true });
  }, 90_000);
});
