/**
 * Wiring AI clients (spec 4.7) through the built CLI, as a user runs it, for each of the ten clients:
 * a temporary HOME and repository per client, seeded with the user's own settings in each file Sous
 * merges into. Launch writes each format so its own parser reads it and every unrelated setting is
 * kept; a second launch changes no byte; verify reports each layer; uninstall gives back the original
 * bytes. Also: an unparsable file and a `sous` entry of the user's own are refused, not overwritten;
 * a file edited after launch loses only Sous's part; `init --clients` wires and sets the scope to
 * where the code is. The real HOME is never touched (HOME points at a temporary directory).
 */
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { parse as parseJsonc, type ParseError } from 'jsonc-parser';
import { parse as parseYaml } from 'yaml';
import { CLI, embeddedEnv, sous } from './support/cli';
import { makeGitRepo, makeTempDir, rmTempDir, writeFile } from './support/tmp';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { parse: parseToml } = require('smol-toml') as { parse(text: string): Record<string, unknown> };

type Seeds = { home?: Record<string, string>; project?: Record<string, string> };

/** The user's own settings, in each client's files, before Sous arrives. */
const SEEDS: Record<string, Seeds> = {
  'claude-code': {
    project: {
      '.mcp.json': '{\n  "mcpServers": {\n    "other": { "command": "other-server", "args": ["--flag"] }\n  }\n}\n',
      'CLAUDE.md': '# Project rules\n\nRun the tests before committing.\n',
      '.claude/settings.json': JSON.stringify({ permissions: { allow: ['Bash(ls)'] }, hooks: { UserPromptSubmit: [{ hooks: [{ type: 'command', command: 'echo mine' }] }] } }, null, 2) + '\n',
    },
  },
  cursor: { project: { '.cursor/mcp.json': '{\n\t"mcpServers": {\n\t\t"other": { "url": "http://localhost:9000/mcp" }\n\t}\n}\n' } },
  vscode: {
    project: { '.vscode/mcp.json': '{\n  // my own server\n  "inputs": [],\n  "servers": {\n    "other": { "type": "stdio", "command": "other-server" }, // trailing comment\n  },\n}\n' },
  },
  windsurf: { home: { '.codeium/windsurf/mcp_config.json': '{"mcpServers":{"other":{"command":"other-server"}}}' } },
  codex: {
    home: { '.codex/config.toml': '# my codex\nmodel = "o3" # keep this\n\n[mcp_servers.other]\ncommand = "other-server"\nargs = ["--flag"]\n' },
    project: { 'AGENTS.md': '# Agents\n\nUse pnpm.' },
  },
  gemini: { project: { '.gemini/settings.json': '{\n  "theme": "GitHub",\n  // comments are allowed here\n  "mcpServers": {}\n}\n', 'GEMINI.md': 'Be brief.\n' } },
  zed: { home: { '.config/zed/settings.json': '// Zed settings\n{\n  "theme": "One Dark",\n  "context_servers": {\n    "other": { "source": "custom", "command": "other-server", "args": [] },\n  },\n}\n' } },
  cline: { home: { '.config/Code/User/globalStorage/saoudrizwan.claude-dev/settings/cline_mcp_settings.json': '{\n  "mcpServers": {\n    "other": { "command": "other-server", "disabled": true }\n  }\n}\n' } },
  continue: { project: { '.continue/mcpServers/other.yaml': 'name: Other\nversion: 0.0.1\nschema: v1\nmcpServers:\n  - name: other\n    command: other-server\n' } },
  goose: {
    home: { '.config/goose/config.yaml': '# goose settings\nGOOSE_PROVIDER: openai\nextensions:\n  developer:\n    enabled: true # keep\n    name: developer\n    type: builtin\n' },
    project: { '.goosehints': 'Use pnpm.\n' },
  },
};

/** Every file below `dir` (but .git and .sous) with its bytes: the whole state a client sees. */
function tree(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string): void => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      if (e.name === '.git' || e.name === '.sous') continue;
      const p = path.join(d, e.name);
      if (e.isDirectory()) {
        out[path.relative(dir, p) + '/'] = '';
        walk(p);
      } else out[path.relative(dir, p)] = fs.readFileSync(p, 'latin1');
    }
  };
  walk(dir);
  return out;
}

/** The parsed value without Sous's part: every `sous` key and every hook group running the composer script. */
function withoutSous(value: unknown): unknown {
  if (Array.isArray(value)) return value.filter((v) => !JSON.stringify(v).includes('claude-prompt-submit')).map(withoutSous);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value as Record<string, unknown>).filter(([k]) => k !== 'sous').map(([k, v]) => [k, withoutSous(v)]));
  }
  return value;
}

/** Parses a file with its format's own parser; throws on any error. */
function parseFile(file: string, text: string): unknown {
  if (file.endsWith('.toml')) return parseToml(text);
  if (file.endsWith('.yaml') || file.endsWith('.yml')) return parseYaml(text);
  if (file.endsWith('.json')) {
    const errors: ParseError[] = [];
    const value = parseJsonc(text, errors, { allowTrailingComma: true });
    if (errors.length > 0) throw new Error(`${file}: JSON errors ${JSON.stringify(errors)}`);
    return value;
  }
  if (file.endsWith('.md') || file.endsWith('.mdc') || file.endsWith('.goosehints')) {
    const fm = /^---\n([\s\S]*?)\n---\n/.exec(text);
    return fm ? parseYaml(fm[1] as string) : text;
  }
  return text;
}

/** A strict-JSON client (not JSONC) must get strict JSON back. */
const STRICT_JSON = ['.mcp.json', '.claude/settings.json', '.cursor/mcp.json', 'mcp_config.json', 'cline_mcp_settings.json'];

describe('sous launch / clients verify / clients uninstall, per client, in temporary HOME and repository', () => {
  test.each(Object.keys(SEEDS))('%s: merges, parses, keeps the user settings, is idempotent, verifies, and uninstalls to the original bytes', async (id) => {
    const home = makeTempDir('sous-client-home-');
    const repo = makeGitRepo();
    try {
      const seeds = SEEDS[id] as Seeds;
      for (const [rel, text] of Object.entries(seeds.home ?? {})) writeFile(home, rel, text);
      for (const [rel, text] of Object.entries(seeds.project ?? {})) writeFile(repo, rel, text);
      const env = embeddedEnv({ HOME: home });
      const homeBefore = tree(home);
      const repoBefore = tree(repo);

      const launched = await sous(['launch', id, '--path', repo, '--composer', '--json'], { env });
      expect(launched.stderr).toBe('');
      expect(launched.code).toBe(0);
      const report = launched.json.clients[0];
      expect(report.client).toBe(id);
      expect(report.layers.map((l: { layer: string }) => l.layer)).toEqual(['mcp', 'primer', 'skill', 'hooks']);
      for (const l of report.layers) expect(['installed', 'unsupported']).toContain(l.status);
      expect(report.layers[0].status).toBe('installed');
      // Its manifest and backups live in .sous/, which keeps itself out of git.
      expect(fs.readFileSync(path.join(repo, '.sous', '.gitignore'), 'utf8')).toBe('*\n');

      // Every written file parses with its format's parser and keeps the user's settings.
      const written: string[] = report.layers.flatMap((l: { files: string[] }) => l.files);
      expect(written.length).toBeGreaterThan(0);
      for (const file of written) {
        expect(file.startsWith(home + path.sep) || file.startsWith(repo + path.sep)).toBe(true);
        const text = fs.readFileSync(file, 'utf8');
        const parsed = parseFile(file, text);
        if (STRICT_JSON.some((s) => file.endsWith(s))) expect(() => JSON.parse(text)).not.toThrow();
        const rel = file.startsWith(home) ? path.relative(home, file) : path.relative(repo, file);
        const seed = (file.startsWith(home) ? seeds.home : seeds.project)?.[rel];
        if (seed === undefined) continue;
        if (typeof parsed === 'string') expect(text.startsWith(seed.endsWith('\n') ? seed : seed + '\n') || text.startsWith(seed)).toBe(true);
        else expect(withoutSous(parsed)).toEqual(withoutSous(parseFile(file, seed)));
      }

      // The MCP entry starts this installation by absolute paths, never a bare `sous`.
      const mcpFile = report.layers[0].files[0] as string;
      const mcpText = fs.readFileSync(mcpFile, 'utf8');
      expect(mcpText).toContain(JSON.stringify(process.execPath).slice(1, -1));
      expect(mcpText).toContain(CLI);
      expect(mcpText).toContain(repo);

      // A second launch changes no byte anywhere.
      const homeAfter = tree(home);
      const repoAfter = tree(repo);
      const again = await sous(['launch', id, '--path', repo, '--composer', '--json'], { env });
      expect(again.code).toBe(0);
      for (const l of again.json.clients[0].layers) expect(['unchanged', 'unsupported']).toContain(l.status);
      expect(tree(home)).toEqual(homeAfter);
      expect(tree(repo)).toEqual(repoAfter);

      const verified = await sous(['clients', 'verify', '--path', repo, '--json'], { env });
      expect(verified.code).toBe(0);
      expect(verified.json.clients.map((c: { client: string }) => c.client)).toEqual([id]);
      for (const l of verified.json.clients[0].layers) expect(['ok', 'unsupported']).toContain(l.status);

      const removed = await sous(['clients', 'uninstall', id, '--path', repo, '--json'], { env });
      expect(removed.code).toBe(0);
      expect(tree(home)).toEqual(homeBefore);
      expect(tree(repo)).toEqual(repoBefore);

      const gone = await sous(['clients', 'verify', id, '--path', repo, '--json'], { env });
      expect(gone.code).toBe(1);
      expect(gone.json.clients[0].layers[0].status).toBe('missing');
    } finally {
      rmTempDir(home);
      rmTempDir(repo);
    }
  }, 180_000);
});

describe('launch refuses what it cannot merge safely, and uninstall keeps the user edits made since', () => {
  let home: string;
  let repo: string;
  let env: NodeJS.ProcessEnv;

  beforeEach(() => {
    home = makeTempDir('sous-client-home-');
    repo = makeGitRepo();
    env = embeddedEnv({ HOME: home });
  });

  afterEach(() => {
    rmTempDir(home);
    rmTempDir(repo);
  });

  test('an unparsable file and a `sous` entry of the user own are reported, never overwritten', async () => {
    writeFile(repo, '.cursor/mcp.json', '{ "mcpServers": { broken');
    writeFile(home, '.codex/config.toml', '[mcp_servers.sous]\ncommand = "my-own-sous"\n');
    const res = await sous(['launch', 'cursor', 'codex', '--path', repo, '--json'], { env });
    expect(res.code).toBe(1);
    const [cursor, codex] = res.json.clients;
    expect(cursor.layers[0]).toMatchObject({ layer: 'mcp', status: 'error' });
    expect(cursor.layers[0].detail).toMatch(/is not valid JSON.*fix it, then launch again/);
    expect(codex.layers[0]).toMatchObject({ layer: 'mcp', status: 'conflict' });
    expect(codex.layers[0].detail).toMatch(/already defines \[mcp_servers\.sous\] \(not written by Sous\)/);
    expect(fs.readFileSync(path.join(repo, '.cursor/mcp.json'), 'utf8')).toBe('{ "mcpServers": { broken');
    expect(fs.readFileSync(path.join(home, '.codex/config.toml'), 'utf8')).toBe('[mcp_servers.sous]\ncommand = "my-own-sous"\n');
    // The other layers of the same client were still installed.
    expect(cursor.layers[1]).toMatchObject({ layer: 'primer', status: 'installed' });
    const text = await sous(['launch', 'cursor', '--path', repo], { env });
    expect(text.code).toBe(1);
    expect(text.stdout).toMatch(/mcp +error +\S*\.cursor\/mcp\.json \(.*is not valid JSON/);
  }, 120_000);

  test('a rules file of the user own with the same name is a conflict; --force backs it up and replaces it; uninstall puts it back', async () => {
    writeFile(repo, '.cursor/rules/sous.mdc', '---\nalwaysApply: true\n---\nMy own notes on the sous chef.\n');
    const refused = await sous(['launch', 'cursor', '--path', repo, '--json'], { env });
    expect(refused.code).toBe(1);
    expect(refused.json.clients[0].layers[1]).toMatchObject({ layer: 'primer', status: 'conflict' });
    expect(refused.json.clients[0].layers[1].detail).toMatch(/was not written by Sous; move it away or pass --force/);
    expect(fs.readFileSync(path.join(repo, '.cursor/rules/sous.mdc'), 'utf8')).toContain('My own notes');
    const forced = await sous(['launch', 'cursor', '--path', repo, '--force', '--json'], { env });
    expect(forced.code).toBe(0);
    expect(forced.json.clients[0].layers[1]).toMatchObject({ layer: 'primer', status: 'installed' });
    expect(fs.readFileSync(path.join(repo, '.cursor/rules/sous.mdc'), 'utf8')).toContain('sous_prepared_work_dashboard');
    expect((await sous(['clients', 'uninstall', 'cursor', '--path', repo], { env })).code).toBe(0);
    expect(fs.readFileSync(path.join(repo, '.cursor/rules/sous.mdc'), 'utf8')).toBe('---\nalwaysApply: true\n---\nMy own notes on the sous chef.\n');
    expect(fs.existsSync(path.join(repo, '.cursor/mcp.json'))).toBe(false);
  }, 120_000);

  test('uninstall after the user edited the file removes only Sous part; an unknown id is one readable line', async () => {
    expect((await sous(['launch', 'claude-code', '--path', repo, '--json'], { env })).code).toBe(0);
    const file = path.join(repo, '.mcp.json');
    const mine = JSON.parse(fs.readFileSync(file, 'utf8'));
    mine.mcpServers.later = { command: 'added-after-launch' };
    fs.writeFileSync(file, JSON.stringify(mine, null, 2) + '\n');
    const verify = await sous(['clients', 'verify', '--path', repo, '--json'], { env });
    // Without --composer the hook layer is skipped, and says how to opt in.
    expect(verify.json.clients[0].layers[3]).toMatchObject({ layer: 'hooks', status: 'skipped' });
    expect(verify.json.clients[0].layers[3].detail).toMatch(/--composer/);
    expect((await sous(['clients', 'uninstall', 'claude-code', '--path', repo], { env })).code).toBe(0);
    expect(JSON.parse(fs.readFileSync(file, 'utf8'))).toEqual({ mcpServers: { later: { command: 'added-after-launch' } } });
    expect(fs.existsSync(path.join(repo, 'CLAUDE.md'))).toBe(false);
    expect(fs.existsSync(path.join(repo, '.claude'))).toBe(false);

    const notRepo = makeTempDir('sous-not-repo-');
    const refused = await sous(['launch', 'cursor', '--path', notRepo], { env });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/^sous: .* is not a git repository; run sous launch inside one/);
    expect(fs.readdirSync(notRepo)).toEqual([]);
    rmTempDir(notRepo);

    const bad = await sous(['launch', 'emacs', '--path', repo], { env });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toBe(`sous: unknown client "emacs"; known: claude-code, cursor, vscode, windsurf, codex, gemini, zed, cline, continue, goose\n`);
  }, 120_000);

  test('init --clients auto wires the clients installed here, and sets the scope to where the code is', async () => {
    fs.mkdirSync(path.join(home, '.cursor'));
    fs.mkdirSync(path.join(home, '.codex'));
    writeFile(repo, 'lib/app.py', 'def main():\n    return 1\n');
    writeFile(repo, 'app/models.py', 'class User:\n    pass\n');
    writeFile(repo, 'docs/guide.md', '# Guide\n');
    // PATH holds git (the scope needs it) and little else: clients are found by their folders under HOME.
    const gitDir = path.dirname(execFileSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).trim());
    const res = await sous(['init', '--path', repo, '--non-interactive', '--clients', 'auto', '--json'], { env: { ...env, PATH: gitDir } });
    expect(res.stderr).toBe('');
    expect(res.code).toBe(0);
    const installed = res.json.clients.detected.filter((d: { installed: boolean }) => d.installed).map((d: { id: string }) => d.id);
    expect(installed).toEqual(expect.arrayContaining(['cursor', 'codex']));
    expect(res.json.clients.detected.find((d: { id: string }) => d.id === 'cursor').evidence).toBe(path.join(home, '.cursor'));
    expect(res.json.clients.wired.map((r: { client: string }) => r.client)).toEqual(installed);
    expect(parseToml(fs.readFileSync(path.join(home, '.codex/config.toml'), 'utf8'))).toMatchObject({ mcp_servers: { sous: { command: process.execPath } } });
    expect(res.json.scope).toMatchObject({ allowed_paths: ['src/**', 'docs/**', 'app/**', 'lib/**'], added: ['app/**', 'lib/**'], code_left_out: 0 });
    const ctx = await sous(['context', '--path', repo, '--prompt', 'User models', '--json'], { env });
    expect(ctx.json.items.map((i: { path: string }) => i.path)).toContain('app/models.py');

    const text = await sous(['init', '--path', repo, '--non-interactive'], { env });
    expect(text.stdout).toMatch(/^Scope: src\/\*\*, docs\/\*\*, app\/\*\*, lib\/\*\*$/m);
    expect(text.stdout).toMatch(/^Coverage: \d+ of \d+ files in scope; no code file left out$/m);
  }, 180_000);
});
