import { stringify as stringifyYaml } from 'yaml';
import { markdownBlock, yamlEntry } from './edits';
import { PRIMER_BODY, inHome, inProject } from './content';
import type { ClientDefinition, WiringTarget } from './types';

function extension(target: WiringTarget) {
  return {
    enabled: true,
    name: 'sous',
    type: 'stdio',
    cmd: target.server.command,
    args: target.server.args,
    envs: {},
    timeout: 300,
    description: 'Sous: prepared context for this repository',
  };
}

/**
 * Goose: `extensions.sous` in the user's `~/.config/goose/config.yaml` (comments and other keys
 * kept; one file for every workspace) and a `.goosehints` block.
 */
export const goose: ClientDefinition = {
  id: 'goose',
  name: 'Goose',
  markers: () => ({ paths: ['~/.config/goose'], executables: ['goose'] }),
  layers: (target) => [
    { kind: 'mcp', edits: [yamlEntry(inHome(target, '.config', 'goose', 'config.yaml'), ['extensions', 'sous'], extension(target))] },
    { kind: 'primer', edits: [markdownBlock(inProject(target, '.goosehints'), PRIMER_BODY)] },
    { kind: 'skill', edits: [], unsupported: 'Goose recipes are run by file, not discovered; the primer names the tools instead' },
    { kind: 'hooks', edits: [], unsupported: 'Goose is MCP-only: the one composer adapter is Claude Code’s (spec 6.5)' },
  ],
  snippet: (target) => ({
    file: '~/.config/goose/config.yaml',
    language: 'yaml',
    text: stringifyYaml({ extensions: { sous: extension(target) } }).trim(),
  }),
};
