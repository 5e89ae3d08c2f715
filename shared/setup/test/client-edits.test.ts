/**
 * The managed edits behind `sous launch`, as pure text in / text out in each format: applying twice
 * changes nothing, removal takes out only Sous's part (byte for byte where the format allows), and
 * the user's comments and settings survive. The end-to-end runs per client are in test/clients.test.ts.
 */
import { parse as parseJsonc } from 'jsonc-parser';
import { parse as parseYaml } from 'yaml';
import { jsonArrayItem, jsonEntry, markdownBlock, ownedFile, tomlTable, yamlEntry } from '../src/clients/edits';
import { WiringError } from '../src/clients/types';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { parse: parseToml } = require('smol-toml') as { parse(text: string): Record<string, unknown> };

const ENTRY = { command: '/usr/bin/node', args: ['/opt/sous/main.js', 'mcp', '--path', '/repo'] };

describe('client wiring edits', () => {
  test('JSONC: the entry is added beside the user servers, comments kept; applying again is a no-op; removal keeps the rest', () => {
    const edit = jsonEntry('/x/settings.json', ['context_servers', 'sous'], ENTRY, 'jsonc');
    const mine = '// Zed settings\n{\n  "theme": "One Dark", // mine\n  "context_servers": {\n    "other": { "command": "x" },\n  },\n}\n';
    const once = edit.apply(mine);
    expect(once).toContain('// Zed settings');
    expect(once).toContain('"theme": "One Dark", // mine');
    expect(parseJsonc(once, [], { allowTrailingComma: true })).toEqual({ theme: 'One Dark', context_servers: { other: { command: 'x' }, sous: ENTRY } });
    expect(edit.apply(once)).toBe(once);
    expect(edit.present(once)).toBe('ok');
    const removed = edit.remove(once) as string;
    expect(removed).toContain('// mine');
    expect(parseJsonc(removed, [], { allowTrailingComma: true })).toEqual({ theme: 'One Dark', context_servers: { other: { command: 'x' } } });
    // A file that held only Sous's entry goes away entirely.
    expect(edit.remove(edit.apply(undefined))).toBeUndefined();
    expect(() => edit.apply('{ "context_servers": ')).toThrow(WiringError);
  });

  test('JSON array item: the user hooks stay, ours is appended once and found again', () => {
    const ours = { hooks: [{ type: 'command', command: 'node /opt/claude-prompt-submit.js', timeout: 5 }] };
    const edit = jsonArrayItem('/x/settings.json', ['hooks', 'UserPromptSubmit'], ours, (c) => JSON.stringify(c).includes('claude-prompt-submit'));
    const mine = JSON.stringify({ hooks: { UserPromptSubmit: [{ hooks: [{ type: 'command', command: 'echo mine' }] }] } }, null, 2) + '\n';
    const once = edit.apply(mine);
    expect(JSON.parse(once).hooks.UserPromptSubmit).toEqual([{ hooks: [{ type: 'command', command: 'echo mine' }] }, ours]);
    expect(edit.apply(once)).toBe(once);
    expect(JSON.parse(edit.remove(once) as string)).toEqual(JSON.parse(mine));
  });

  test('TOML: a marked table appended as text, removed byte for byte; a table of the user own is a conflict', () => {
    const edit = tomlTable('/x/config.toml', ['mcp_servers', 'sous'], ENTRY);
    const mine = '# my codex\nmodel = "o3" # keep\n\n[mcp_servers.other]\ncommand = "x"\n';
    const once = edit.apply(mine);
    expect(parseToml(once)).toEqual({ model: 'o3', mcp_servers: { other: { command: 'x' }, sous: ENTRY } });
    expect(once.startsWith(mine)).toBe(true);
    expect(edit.apply(once)).toBe(once);
    expect(edit.remove(once)).toBe(mine);
    expect(() => edit.apply('[mcp_servers.sous]\ncommand = "mine"\n')).toThrow(/already defines \[mcp_servers\.sous\]/);
    expect(() => edit.apply('model = ')).toThrow(/is not valid TOML/);
  });

  test('YAML: the extension is set under extensions, comments kept; removal keeps the user extensions', () => {
    const edit = yamlEntry('/x/config.yaml', ['extensions', 'sous'], { enabled: true, type: 'stdio', cmd: ENTRY.command, args: ENTRY.args });
    const mine = '# goose\nGOOSE_PROVIDER: openai # keep\nextensions:\n  developer:\n    enabled: true\n';
    const once = edit.apply(mine);
    expect(once).toContain('GOOSE_PROVIDER: openai # keep');
    expect(parseYaml(once).extensions.sous.cmd).toBe(ENTRY.command);
    expect(edit.apply(once)).toBe(once);
    expect(parseYaml(edit.remove(once) as string)).toEqual(parseYaml(mine));
  });

  test('Markdown: a marked block after the user text, removed byte for byte; an owned file never replaces one of the user', () => {
    const edit = markdownBlock('/x/CLAUDE.md', 'Call sous_prepared_work_dashboard first.');
    const mine = '# Rules\n\nRun the tests.\n';
    const once = edit.apply(mine);
    expect(once.startsWith(mine)).toBe(true);
    expect(edit.apply(once)).toBe(once);
    expect(edit.remove(once)).toBe(mine);
    expect(edit.remove(edit.apply(undefined))).toBeUndefined();

    const owned = ownedFile('/x/.cursor/rules/sous.mdc', 'markdown', 'managed by sous: `sous clients uninstall` removes this file\n');
    expect(() => owned.apply('my own rules\n')).toThrow(/exists and was not written by Sous/);
    expect(owned.remove('my own rules\n')).toBe('my own rules\n');
  });
});
