import { stringify as stringifyYaml } from 'yaml';
import { OWNED_MARKER, ownedFile } from './edits';
import { PRIMER_BODY, SKILL_BODY, SKILL_DESCRIPTION, inProject, markdownFile } from './content';
import type { ClientDefinition, WiringTarget } from './types';

function block(target: WiringTarget) {
  return {
    name: 'Sous',
    version: '0.0.1',
    schema: 'v1',
    mcpServers: [{ name: 'sous', type: 'stdio', command: target.server.command, args: target.server.args }],
  };
}

/** Continue: an MCP block `.continue/mcpServers/sous.yaml`, a rule `.continue/rules/sous.md`, a prompt `.continue/prompts/sous.md`. */
export const continueDev: ClientDefinition = {
  id: 'continue',
  name: 'Continue',
  markers: () => ({ paths: ['~/.continue'], executables: ['cn'] }),
  layers: (target) => [
    { kind: 'mcp', edits: [ownedFile(inProject(target, '.continue', 'mcpServers', 'sous.yaml'), 'yaml', `# ${OWNED_MARKER}\n${stringifyYaml(block(target))}`)] },
    { kind: 'primer', edits: [ownedFile(inProject(target, '.continue', 'rules', 'sous.md'), 'markdown', markdownFile({ name: 'Sous', alwaysApply: true }, PRIMER_BODY))] },
    { kind: 'skill', edits: [ownedFile(inProject(target, '.continue', 'prompts', 'sous.md'), 'markdown', markdownFile({ name: 'sous', description: SKILL_DESCRIPTION, invokable: true }, SKILL_BODY))] },
    { kind: 'hooks', edits: [], unsupported: 'Continue is MCP-only here: the one composer adapter is Claude Code’s (spec 6.5)' },
  ],
  snippet: (target) => ({ file: '.continue/mcpServers/sous.yaml', language: 'yaml', text: stringifyYaml(block(target)).trim() }),
};
