import * as path from 'node:path';
import { stringify as stringifyYaml } from 'yaml';
import { OWNED_MARKER } from './edits';
import type { ServerCommand, WiringTarget } from './types';

/**
 * What the primer, skill and prompt layers say. Short on purpose: it tells the agent that Sous has
 * prepared work and which MCP tools read it, nothing about the repository itself.
 */
export const PRIMER_BODY = [
  '## Sous (prepared context)',
  '',
  'This repository is prepared by Sous, a local engine that reads the code ahead of you. Its MCP server `sous` answers from what it has already prepared:',
  '',
  '- At the start of a task call `sous_prepared_work_dashboard` (small, fresh cards; an empty feed is a valid answer).',
  '- For the task itself call `sous_resolve` with the request: ranked evidence, matching cards and a briefing.',
  '- `sous_search` finds files by meaning; `sous_status` says whether the index is ready.',
  '',
  'Sous never edits files: what it prepares is a suggestion you check and apply yourself.',
].join('\n');

/** The body of a skill, workflow or prompt that walks through the same steps on demand. */
export const SKILL_BODY = [
  'Use the Sous MCP server to start this task from what it has prepared:',
  '',
  '1. Call `sous_prepared_work_dashboard` and read any card that matches the task.',
  '2. Call `sous_resolve` with the task in one sentence; read its evidence files first.',
  '3. If the index is not ready (`sous_status`), say so and continue without it.',
].join('\n');

export const SKILL_DESCRIPTION = 'Start a task from the context Sous prepared (dashboard, resolve, evidence).';

/** An owned Markdown file: optional front matter, then the marker as an HTML comment, then the body. */
export function markdownFile(frontMatter: Record<string, string | boolean> | undefined, body: string): string {
  // Front matter through the YAML library: a value such as `**` must be quoted (bare, it is an alias).
  const head = frontMatter ? `---\n${stringifyYaml(frontMatter).trimEnd()}\n---\n` : '';
  return `${head}<!-- ${OWNED_MARKER} -->\n\n${body.trim()}\n`;
}

/** POSIX shell quoting for a hook command line (paths may hold spaces). */
export function shellQuote(arg: string): string {
  return /^[A-Za-z0-9_\-./:=@]+$/.test(arg) ? arg : `'${arg.replace(/'/g, `'\\''`)}'`;
}

/** `sous mcp --path <project>` started by the absolute node and CLI entry the caller resolved. */
export function serverCommand(node: string, cliMain: string, project: string): ServerCommand {
  return { command: node, args: [cliMain, 'mcp', '--path', project] };
}

/** The one-line form (for `claude mcp add …` and the like). */
export function commandLine(server: ServerCommand): string {
  return [server.command, ...server.args].map(shellQuote).join(' ');
}

/** Home-relative path helper for a target. */
export function inHome(target: Pick<WiringTarget, 'home'>, ...parts: string[]): string {
  return path.join(target.home, ...parts);
}

export function inProject(target: Pick<WiringTarget, 'project'>, ...parts: string[]): string {
  return path.join(target.project, ...parts);
}
