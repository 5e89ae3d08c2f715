import { jsonEntry, ownedFile } from './edits';
import { PRIMER_BODY, SKILL_BODY, SKILL_DESCRIPTION, inProject, markdownFile } from './content';
import type { ClientDefinition, WiringTarget } from './types';

function entry(target: WiringTarget) {
  return { command: target.server.command, args: target.server.args, env: {} };
}

/** Cursor: project `.cursor/mcp.json` (`mcpServers`), an always-applied rule `.cursor/rules/sous.mdc`, a command `.cursor/commands/sous.md`. */
export const cursor: ClientDefinition = {
  id: 'cursor',
  name: 'Cursor',
  markers: () => ({ paths: ['~/.cursor'], executables: ['cursor', 'cursor-agent'] }),
  layers: (target) => [
    { kind: 'mcp', edits: [jsonEntry(inProject(target, '.cursor', 'mcp.json'), ['mcpServers', 'sous'], entry(target))] },
    { kind: 'primer', edits: [ownedFile(inProject(target, '.cursor', 'rules', 'sous.mdc'), 'markdown', markdownFile({ description: 'Sous prepared context', alwaysApply: true }, PRIMER_BODY))] },
    { kind: 'skill', edits: [ownedFile(inProject(target, '.cursor', 'commands', 'sous.md'), 'markdown', markdownFile(undefined, `# Sous\n\n${SKILL_DESCRIPTION}\n\n${SKILL_BODY}`))] },
    { kind: 'hooks', edits: [], unsupported: 'Cursor surfaces are MCP-only: the one composer adapter is Claude Code’s (spec 6.5)' },
  ],
  snippet: (target) => ({ file: '.cursor/mcp.json', language: 'json', text: JSON.stringify({ mcpServers: { sous: entry(target) } }, null, 2) }),
};
