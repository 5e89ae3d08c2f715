import { jsonEntry, ownedFile } from './edits';
import { PRIMER_BODY, SKILL_BODY, SKILL_DESCRIPTION, inProject, shellQuote, markdownFile } from './content';
import type { ClientDefinition, WiringTarget } from './types';

function entry(target: WiringTarget) {
  return { type: 'stdio', command: target.server.command, args: target.server.args };
}

/**
 * VS Code (Copilot agent mode): `.vscode/mcp.json` with `servers` (not `mcpServers`) and
 * `type: "stdio"`; instructions `.github/instructions/sous.instructions.md` (`applyTo: "**"`); a
 * prompt file `.github/prompts/sous.prompt.md`.
 */
export const vscode: ClientDefinition = {
  id: 'vscode',
  name: 'VS Code',
  markers: (t) => ({ paths: ['~/.vscode', t.platform === 'darwin' ? '~/Library/Application Support/Code' : '~/.config/Code'], executables: ['code'] }),
  layers: (target) => [
    { kind: 'mcp', edits: [jsonEntry(inProject(target, '.vscode', 'mcp.json'), ['servers', 'sous'], entry(target), 'jsonc')] },
    { kind: 'primer', edits: [ownedFile(inProject(target, '.github', 'instructions', 'sous.instructions.md'), 'markdown', markdownFile({ applyTo: '**' }, PRIMER_BODY))] },
    { kind: 'skill', edits: [ownedFile(inProject(target, '.github', 'prompts', 'sous.prompt.md'), 'markdown', markdownFile({ description: SKILL_DESCRIPTION, mode: 'agent' }, SKILL_BODY))] },
    { kind: 'hooks', edits: [], unsupported: 'VS Code surfaces are MCP-only: the one composer adapter is Claude Code’s (spec 6.5)' },
  ],
  snippet: (target) => ({
    file: '.vscode/mcp.json',
    language: 'json',
    text: JSON.stringify({ servers: { sous: entry(target) } }, null, 2),
    command: `code --add-mcp ${shellQuote(JSON.stringify({ name: 'sous', ...entry(target) }))}`,
  }),
};
