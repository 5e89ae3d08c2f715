import { stringifyToml } from './toml';
import { OWNED_MARKER, jsonEntry, markdownBlock, ownedFile } from './edits';
import { PRIMER_BODY, SKILL_BODY, SKILL_DESCRIPTION, inProject } from './content';
import type { ClientDefinition, WiringTarget } from './types';

function entry(target: WiringTarget) {
  return { command: target.server.command, args: target.server.args };
}

/** A Gemini CLI custom command is a TOML file (`description`, `prompt`); the marker is its first comment. */
function commandToml(): string {
  return `# ${OWNED_MARKER}\n${stringifyToml({ description: SKILL_DESCRIPTION, prompt: SKILL_BODY })}\n`;
}

/** Gemini CLI: project `.gemini/settings.json` (`mcpServers`), a GEMINI.md block, a command `.gemini/commands/sous.toml` (`/sous`). */
export const gemini: ClientDefinition = {
  id: 'gemini',
  name: 'Gemini CLI',
  markers: () => ({ paths: ['~/.gemini'], executables: ['gemini'] }),
  layers: (target) => [
    { kind: 'mcp', edits: [jsonEntry(inProject(target, '.gemini', 'settings.json'), ['mcpServers', 'sous'], entry(target), 'jsonc')] },
    { kind: 'primer', edits: [markdownBlock(inProject(target, 'GEMINI.md'), PRIMER_BODY)] },
    { kind: 'skill', edits: [ownedFile(inProject(target, '.gemini', 'commands', 'sous.toml'), 'toml', commandToml())] },
    { kind: 'hooks', edits: [], unsupported: 'Gemini CLI is MCP-only here: the one composer adapter is Claude Code’s (spec 6.5)' },
  ],
  snippet: (target) => ({
    file: '.gemini/settings.json',
    language: 'json',
    text: JSON.stringify({ mcpServers: { sous: entry(target) } }, null, 2),
  }),
};
