import { stringifyToml } from './toml';
import { markdownBlock, ownedFile, tomlTable } from './edits';
import { PRIMER_BODY, SKILL_BODY, SKILL_DESCRIPTION, commandLine, inHome, inProject, markdownFile } from './content';
import type { ClientDefinition, WiringTarget } from './types';

function fields(target: WiringTarget) {
  return { command: target.server.command, args: target.server.args };
}

/**
 * Codex CLI: `[mcp_servers.sous]` in the user's `~/.codex/config.toml` (TOML, not JSON; one file for
 * every workspace), an AGENTS.md block, a custom prompt `~/.codex/prompts/sous.md` (`/prompts:sous`).
 */
export const codex: ClientDefinition = {
  id: 'codex',
  name: 'Codex CLI',
  markers: () => ({ paths: ['~/.codex'], executables: ['codex'] }),
  layers: (target) => [
    { kind: 'mcp', edits: [tomlTable(inHome(target, '.codex', 'config.toml'), ['mcp_servers', 'sous'], fields(target))] },
    { kind: 'primer', edits: [markdownBlock(inProject(target, 'AGENTS.md'), PRIMER_BODY)] },
    { kind: 'skill', edits: [ownedFile(inHome(target, '.codex', 'prompts', 'sous.md'), 'markdown', markdownFile({ description: SKILL_DESCRIPTION }, SKILL_BODY))] },
    { kind: 'hooks', edits: [], unsupported: 'Codex CLI is MCP-only: the one composer adapter is Claude Code’s (spec 6.5)' },
  ],
  snippet: (target) => ({
    file: '~/.codex/config.toml',
    language: 'toml',
    text: stringifyToml({ mcp_servers: { sous: fields(target) } }).trim(),
    command: `codex mcp add sous -- ${commandLine(target.server)}`,
  }),
};
