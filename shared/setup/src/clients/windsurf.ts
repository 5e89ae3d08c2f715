import { jsonEntry, ownedFile } from './edits';
import { PRIMER_BODY, SKILL_BODY, SKILL_DESCRIPTION, inHome, inProject, markdownFile } from './content';
import type { ClientDefinition, WiringTarget } from './types';

function entry(target: WiringTarget) {
  return { command: target.server.command, args: target.server.args, env: {} };
}

/**
 * Windsurf: the user's `~/.codeium/windsurf/mcp_config.json` (`mcpServers`; one file for every
 * workspace, so the `sous` entry points at the workspace launched last), an always-on rule
 * `.windsurf/rules/sous.md`, a workflow `.windsurf/workflows/sous.md`.
 */
export const windsurf: ClientDefinition = {
  id: 'windsurf',
  name: 'Windsurf',
  markers: () => ({ paths: ['~/.codeium/windsurf'], executables: ['windsurf'] }),
  layers: (target) => [
    { kind: 'mcp', edits: [jsonEntry(inHome(target, '.codeium', 'windsurf', 'mcp_config.json'), ['mcpServers', 'sous'], entry(target))] },
    { kind: 'primer', edits: [ownedFile(inProject(target, '.windsurf', 'rules', 'sous.md'), 'markdown', markdownFile({ trigger: 'always_on' }, PRIMER_BODY))] },
    { kind: 'skill', edits: [ownedFile(inProject(target, '.windsurf', 'workflows', 'sous.md'), 'markdown', markdownFile({ description: SKILL_DESCRIPTION }, SKILL_BODY))] },
    { kind: 'hooks', edits: [], unsupported: 'Windsurf surfaces are MCP-only: the one composer adapter is Claude Code’s (spec 6.5)' },
  ],
  snippet: (target) => ({ file: '~/.codeium/windsurf/mcp_config.json', language: 'json', text: JSON.stringify({ mcpServers: { sous: entry(target) } }, null, 2) }),
};
