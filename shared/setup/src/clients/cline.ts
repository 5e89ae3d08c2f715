import * as path from 'node:path';
import { jsonEntry, ownedFile } from './edits';
import { PRIMER_BODY, SKILL_BODY, markdownFile, inProject } from './content';
import type { ClientDefinition, WiringTarget } from './types';

/** Cline keeps its MCP settings in VS Code's global storage of its extension. */
export function clineSettingsDir(target: Pick<WiringTarget, 'home' | 'platform'>): string {
  const userDir =
    target.platform === 'darwin'
      ? path.join(target.home, 'Library', 'Application Support', 'Code', 'User')
      : target.platform === 'win32'
        ? path.join(target.home, 'AppData', 'Roaming', 'Code', 'User')
        : path.join(target.home, '.config', 'Code', 'User');
  return path.join(userDir, 'globalStorage', 'saoudrizwan.claude-dev', 'settings');
}

function entry(target: WiringTarget) {
  return { command: target.server.command, args: target.server.args, env: {}, disabled: false, autoApprove: [] };
}

/** Cline: `cline_mcp_settings.json` (`mcpServers`) in its VS Code global storage, a rule `.clinerules/sous.md`, a workflow `.clinerules/workflows/sous.md`. */
export const cline: ClientDefinition = {
  id: 'cline',
  name: 'Cline',
  markers: (t) => ({ paths: [path.join(clineSettingsDir(t), '..').replace(t.home, '~')], executables: ['cline'] }),
  layers: (target) => [
    { kind: 'mcp', edits: [jsonEntry(path.join(clineSettingsDir(target), 'cline_mcp_settings.json'), ['mcpServers', 'sous'], entry(target))] },
    { kind: 'primer', edits: [ownedFile(inProject(target, '.clinerules', 'sous.md'), 'markdown', markdownFile(undefined, PRIMER_BODY))] },
    { kind: 'skill', edits: [ownedFile(inProject(target, '.clinerules', 'workflows', 'sous.md'), 'markdown', markdownFile(undefined, `# Sous\n\n${SKILL_BODY}`))] },
    { kind: 'hooks', edits: [], unsupported: 'Cline is MCP-only here: the one composer adapter is Claude Code’s (spec 6.5)' },
  ],
  snippet: (target) => ({
    file: `${clineSettingsDir({ ...target, home: '~' })}/cline_mcp_settings.json`,
    language: 'json',
    text: JSON.stringify({ mcpServers: { sous: entry(target) } }, null, 2),
  }),
};
