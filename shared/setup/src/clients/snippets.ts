import { allClients } from './registry';
import type { WiringTarget } from './types';

/** Placeholder paths the docs show; `sous clients snippet <id>` prints the real ones. */
export const DOC_TARGET: WiringTarget = {
  project: '/path/to/repo',
  home: '~',
  platform: 'linux',
  server: { command: '/usr/local/bin/node', args: ['/opt/sous/services/cli/dist/main.js', 'mcp', '--path', '/path/to/repo'] },
};

/**
 * The per-client section of docs/clients.md: each client's MCP file and snippet (and one-line command),
 * produced by the same client modules `sous launch` uses, so the docs cannot drift from the code.
 */
export function clientSnippetsMarkdown(target: WiringTarget = DOC_TARGET): string {
  const parts: string[] = [];
  for (const client of allClients()) {
    const s = client.snippet(target);
    const layers = client
      .layers(target)
      .map((l) => (l.unsupported !== undefined ? `${l.kind}: none` : `${l.kind}: ${l.edits.map((e) => '`' + e.file.replace(target.project + '/', '').replace(target.home + '/', '~/') + '`').join(', ')}${l.optIn !== undefined ? ' (opt-in, `--composer`)' : ''}`))
      .join('; ');
    parts.push(`### ${client.name} (\`${client.id}\`)\n\n${layers}.\n\nMCP entry in \`${s.file}\`:\n\n\`\`\`${s.language}\n${s.text}\n\`\`\``);
    if (s.command) parts.push(`Or: \`${s.command}\``);
  }
  return parts.join('\n\n') + '\n';
}
