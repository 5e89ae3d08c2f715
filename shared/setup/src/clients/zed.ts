import { jsonEntry } from './edits';
import { inHome } from './content';
import type { ClientDefinition, WiringTarget } from './types';

function entry(target: WiringTarget) {
  return { source: 'custom', command: target.server.command, args: target.server.args, env: {} };
}

/**
 * Zed: `context_servers.sous` in the user's `~/.config/zed/settings.json` (JSONC: comments and
 * trailing commas are kept). Zed reads one rules file per project, the first it finds (`.rules`,
 * `AGENTS.md`, `CLAUDE.md`, …): Sous adds none rather than shadow yours.
 */
export const zed: ClientDefinition = {
  id: 'zed',
  name: 'Zed',
  markers: () => ({ paths: ['~/.config/zed'], executables: ['zed', 'zeditor'] }),
  layers: (target) => [
    { kind: 'mcp', edits: [jsonEntry(inHome(target, '.config', 'zed', 'settings.json'), ['context_servers', 'sous'], entry(target), 'jsonc')] },
    { kind: 'primer', edits: [], unsupported: 'Zed reads only the first rules file it finds (.rules, AGENTS.md, CLAUDE.md, …); Sous does not add one that would shadow yours' },
    { kind: 'skill', edits: [], unsupported: 'Zed takes prompts from MCP servers (the sous server lists its tools); it has no prompt files' },
    { kind: 'hooks', edits: [], unsupported: 'Zed is MCP-only: the one composer adapter is Claude Code’s (spec 6.5)' },
  ],
  snippet: (target) => ({ file: '~/.config/zed/settings.json', language: 'jsonc', text: JSON.stringify({ context_servers: { sous: entry(target) } }, null, 2) }),
};
