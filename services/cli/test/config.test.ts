import * as fs from 'node:fs';
import * as path from 'node:path';
import { CONFIG_KEYS, defaultConfig, ensureConfigFile, loadConfig, parseConfigToml, sousPaths } from '@sous/config';
import { makeTempDir, rmTempDir } from '../../../test/support/tmp';
import { embeddedEnv, sous as runCli } from '../../../test/support/cli';

const REPO = path.resolve(__dirname, '../../..');
const MAIN = path.join(REPO, 'services/cli/dist/main.js');

/** The CLI tests run the compiled entry point; a stale build would test old code. */
function assertBuilt(): void {
  const pairs = [
    ['services/cli/src/commands/config.ts', 'services/cli/dist/commands/config.js'],
    ['shared/config/src/index.ts', 'shared/config/dist/index.js'],
  ];
  for (const [src, out] of pairs) {
    const built = path.join(REPO, out as string);
    if (!fs.existsSync(built) || fs.statSync(built).mtimeMs < fs.statSync(path.join(REPO, src as string)).mtimeMs) {
      throw new Error(`${out} is missing or older than ${src}; run \`npx tsc -b services/cli\` first`);
    }
  }
}

interface Result {
  status: number | null;
  stdout: string;
  stderr: string;
}

async function sous(args: string[], options: { cwd?: string; env?: Record<string, string> } = {}): Promise<Result> {
  const env: NodeJS.ProcessEnv = { ...embeddedEnv(), ...options.env };
  if (!options.env?.VISUAL) delete env.VISUAL;
  const r = await runCli(args, { cwd: options.cwd ?? REPO, env, timeoutMs: 30_000 });
  return { status: r.code, stdout: r.stdout, stderr: r.stderr };
}

/** stderr is exactly one `sous: …` line. */
function oneErrorLine(r: Result): string {
  expect(r.status).not.toBe(0);
  const lines = r.stderr.split('\n').filter((l) => l.length > 0);
  expect(lines).toHaveLength(1);
  expect(lines[0]).toMatch(/^sous: /);
  return lines[0] as string;
}

describe('sous config', () => {
  let root: string;
  beforeAll(assertBuilt);
  beforeEach(() => {
    root = makeTempDir('sous-cli-config-');
  });
  afterEach(() => rmTempDir(root));

  async function init(): Promise<string> {
    await ensureConfigFile(sousPaths(root));
    return sousPaths(root).config;
  }

  it('shows the defaults, as TOML or JSON, and says so when there is no config file', async () => {
    const text = await sous(['config', 'show', '--path', root]);
    expect(text.status).toBe(0);
    expect(text.stdout.split('\n')[0]).toMatch(/^# no config file at .*; showing the defaults/);
    expect(parseConfigToml(text.stdout, 'stdout')).toEqual(defaultConfig());

    const json = await sous(['config', 'show', '--json', '--path', root]);
    expect(json.status).toBe(0);
    expect(JSON.parse(json.stdout)).toEqual(defaultConfig());
    expect(fs.existsSync(path.join(root, '.sous'))).toBe(false);
  });

  it('lists every key with its type and default', async () => {
    const json = await sous(['config', 'keys', '--json', '--path', root]);
    expect(json.status).toBe(0);
    const keys = JSON.parse(json.stdout) as Array<{ key: string; type: string; default: unknown }>;
    expect(keys.map((k) => k.key)).toEqual(CONFIG_KEYS.map((k) => k.key));
    expect(keys.find((k) => k.key === 'compute.cpu_fraction')).toMatchObject({ type: 'number', default: 0.25 });

    const text = await sous(['config', 'keys', '--path', root]);
    expect(text.status).toBe(0);
    expect(text.stdout).toMatch(/^compute\.max_cycle_seconds +integer +300$/m);
  });

  it('marks the keys nothing reads yet as reserved, with a reason', async () => {
    const json = await sous(['config', 'keys', '--json', '--path', root]);
    const keys = JSON.parse(json.stdout) as Array<{ key: string; reserved: boolean; reserved_reason?: string }>;
    const reserved = keys.filter((k) => k.reserved);
    expect(reserved.map((k) => k.key)).toEqual(
      expect.arrayContaining([
        'backend.prefer_local',
        'compute.gpu_memory_fraction',
        'exploration.backend',
        'exploration.api_key',
      ]),
    );
    for (const k of reserved) expect(k.reserved_reason).toMatch(/\w{3,}/);
    // Refinement and skills act now (docs/predictions.md, docs/skills.md): no longer reserved.
    for (const key of ['intent.enabled', 'intent.include_global_skills', 'intent.skill_roots', 'intent.skills_loop.enabled', 'intent.skills_loop.max_feedback_events_per_cycle', 'compute.max_cycle_seconds', 'mcp.transport', 'mcp.http_port', 'policy.work_style', 'policy.bundle', 'backend.model', 'exploration.llm_gate', 'refinement.enabled', 'refinement.adoption_pending_confirm_seconds']) {
      expect(keys.find((k) => k.key === key)).toMatchObject({ reserved: false });
    }

    const text = await sous(['config', 'keys', '--path', root]);
    expect(text.stdout).toMatch(/^exploration\.backend +reserved +/m);
    expect(text.stdout).not.toMatch(/^compute\.max_cycle_seconds +reserved/m);
    expect(text.stdout).not.toMatch(/^refinement\.enabled +reserved/m);
  });

  it('sets and gets values, finding the workspace upward from the current directory', async () => {
    const file = await init();
    fs.mkdirSync(path.join(root, 'src', 'deep'), { recursive: true });
    const cwd = path.join(root, 'src', 'deep');

    const set = await sous(['config', 'set', 'compute.cpu_fraction', '0.5'], { cwd });
    expect(set).toEqual({ status: 0, stdout: 'compute.cpu_fraction = 0.5\n', stderr: '' });
    expect(loadConfig(file).compute.cpu_fraction).toBe(0.5);

    const list = await sous(['config', 'set', 'privacy.allowed_paths', '["src/**","lib/**"]', '--path', root]);
    expect(list.stdout).toBe('privacy.allowed_paths = ["src/**", "lib/**"]\n');

    expect((await sous(['config', 'get', 'compute.cpu_fraction'], { cwd })).stdout).toBe('0.5\n');
    expect((await sous(['config', 'get', 'backend.model', '--path', root])).stdout).toBe('qwen2.5-coder:1.5b\n');
    const json = await sous(['config', 'get', 'privacy.allowed_paths', '--json', '--path', root]);
    expect(JSON.parse(json.stdout)).toEqual({ key: 'privacy.allowed_paths', value: ['src/**', 'lib/**'] });
  });

  it('refuses an invalid value in one line and leaves the file untouched', async () => {
    const file = await init();
    const before = fs.readFileSync(file);
    const r = await sous(['config', 'set', 'compute.cpu_fraction', '1.5', '--path', root]);
    expect(oneErrorLine(r)).toBe('sous: compute.cpu_fraction must be a number between 0 and 1 (found 1.5)');
    expect(r.stdout).toBe('');
    expect(fs.readFileSync(file).equals(before)).toBe(true);
  });

  it('refuses unknown keys with a hint, on get and set', async () => {
    await init();
    expect(oneErrorLine(await sous(['config', 'get', 'compute.cpu_fractoin', '--path', root]))).toBe(
      'sous: unknown key compute.cpu_fractoin; did you mean compute.cpu_fraction?',
    );
    expect(oneErrorLine(await sous(['config', 'set', 'exploration.llm_gat', 'always', '--path', root]))).toContain('did you mean exploration.llm_gate?');
  });

  it('refuses a key value and never echoes it', async () => {
    const file = await init();
    const secret = 'sk-' + 'Zq9_'.repeat(8);
    const r = await sous(['config', 'set', 'backend.api_key_env', secret, '--path', root]);
    const line = oneErrorLine(r);
    expect(line).toContain('Sous never stores keys in config');
    expect(r.stderr + r.stdout).not.toContain(secret);
    expect(fs.readFileSync(file, 'utf8')).not.toContain(secret);
  });

  it('tells the user to run sous init before set or edit', async () => {
    for (const args of [['config', 'set', 'compute.cpu_fraction', '0.5'], ['config', 'edit']]) {
      const line = oneErrorLine(await sous([...args, '--path', root]));
      expect(line).toContain(`run \`sous init --path ${root}\` first`);
    }
    expect(fs.existsSync(path.join(root, '.sous'))).toBe(false);
  });

  it('reports a syntax error in the file with file, line and column', async () => {
    const file = await init();
    fs.writeFileSync(file, '[compute]\ncpu_fraction = = 0.5\n');
    expect(oneErrorLine(await sous(['config', 'show', '--path', root]))).toMatch(new RegExp(`^sous: ${file.replace(/[.]/g, '\\.')}:2:16: TOML syntax error`));
  });

  describe('edit', () => {
    function editorScript(name: string, body: string): string {
      const script = path.join(root, name);
      fs.writeFileSync(script, `#!/bin/sh\n${body}\n`, { mode: 0o755 });
      return script;
    }

    it('replaces the config with a valid edit and cleans up its copy', async () => {
      const file = await init();
      const editor = editorScript('valid.sh', `printf '# edited by hand\\n[compute]\\ncpu_fraction = 0.75\\n' > "$1"`);
      const r = await sous(['config', 'edit', '--path', root], { env: { EDITOR: `sh ${editor}` } });
      expect(r.status).toBe(0);
      expect(r.stdout).toBe(`saved ${file}\n`);
      expect(fs.readFileSync(file, 'utf8')).toBe('# edited by hand\n[compute]\ncpu_fraction = 0.75\n');
      expect(fs.readdirSync(path.dirname(file)).sort()).toEqual(['.gitignore', 'config.toml']);
    });

    it('keeps the original and the rejected copy when the edit is invalid', async () => {
      const file = await init();
      const before = fs.readFileSync(file);
      const editor = editorScript('invalid.sh', `printf '[compute]\\ncpu_fraction = 2\\n' > "$1"`);
      const r = await sous(['config', 'edit', '--path', root], { env: { EDITOR: editor } });
      const line = oneErrorLine(r);
      expect(line).toContain('compute.cpu_fraction must be a number between 0 and 1 (found 2)');
      expect(fs.readFileSync(file).equals(before)).toBe(true);
      const copy = /your edits are kept in (\S+)/.exec(line)?.[1];
      expect(copy && path.dirname(copy)).toBe(path.dirname(file));
      expect(fs.readFileSync(copy as string, 'utf8')).toBe('[compute]\ncpu_fraction = 2\n');
    });

    it('prefers $VISUAL and leaves everything alone when the editor fails', async () => {
      const file = await init();
      const before = fs.readFileSync(file);
      const failing = editorScript('fail.sh', 'exit 3');
      const r = await sous(['config', 'edit', '--path', root], { env: { VISUAL: failing, EDITOR: 'true' } });
      expect(oneErrorLine(r)).toContain('exited with 3');
      expect(fs.readFileSync(file).equals(before)).toBe(true);
    });
  });
});
