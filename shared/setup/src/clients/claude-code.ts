import { jsonArrayItem, jsonEntry, markdownBlock, ownedFile } from './edits';
import { PRIMER_BODY, SKILL_BODY, SKILL_DESCRIPTION, commandLine, inProject, markdownFile } from './content';
import type { ClientDefinition, WiringTarget } from './types';

/** The file name of the L0 composer hook script; how Sous finds its own hook among the user's. */
export const COMPOSER_HOOK_SCRIPT = 'claude-prompt-submit.js';

/** Claude Code runs hooks with a timeout in seconds; ours answers within 1 s and never blocks. */
const HOOK_TIMEOUT_SECONDS = 5;

function entry(target: WiringTarget) {
  return { type: 'stdio', command: target.server.command, args: target.server.args, env: {} };
}

function hookGroup(command: string) {
  return { hooks: [{ type: 'command', command, timeout: HOOK_TIMEOUT_SECONDS }] };
}

/** A UserPromptSubmit group is Sous's when one of its commands runs the composer hook script. */
function isComposerHook(candidate: unknown): boolean {
  const hooks = (candidate as { hooks?: Array<{ command?: unknown }> } | null)?.hooks;
  return Array.isArray(hooks) && hooks.some((h) => typeof h?.command === 'string' && h.command.includes(COMPOSER_HOOK_SCRIPT));
}

/**
 * Claude Code: project `.mcp.json` (`mcpServers`, `type: "stdio"`), a CLAUDE.md block, a project skill
 * (`.claude/skills/sous/SKILL.md`) and, opted in, the L0 composer hook on UserPromptSubmit in
 * `.claude/settings.json` (the only composer adapter, spec 6.5). Claude Code's own `disableAllHooks`
 * switches the hook off with every other hook.
 */
export const claudeCode: ClientDefinition = {
  id: 'claude-code',
  name: 'Claude Code',
  markers: () => ({ paths: ['~/.claude', '~/.claude.json'], executables: ['claude'] }),
  layers(target) {
    const hookCommand = target.hookCommand ?? 'node ' + COMPOSER_HOOK_SCRIPT;
    return [
      { kind: 'mcp', edits: [jsonEntry(inProject(target, '.mcp.json'), ['mcpServers', 'sous'], entry(target))] },
      { kind: 'primer', edits: [markdownBlock(inProject(target, 'CLAUDE.md'), PRIMER_BODY)] },
      {
        kind: 'skill',
        edits: [ownedFile(inProject(target, '.claude', 'skills', 'sous', 'SKILL.md'), 'markdown', markdownFile({ name: 'sous', description: SKILL_DESCRIPTION }, SKILL_BODY))],
      },
      {
        kind: 'hooks',
        optIn: 'opt in with --composer (L0 composer signal: a hash and length of each prompt, never its text)',
        edits: [jsonArrayItem(inProject(target, '.claude', 'settings.json'), ['hooks', 'UserPromptSubmit'], hookGroup(hookCommand), isComposerHook)],
      },
    ];
  },
  snippet(target) {
    return {
      file: '.mcp.json',
      language: 'json',
      text: JSON.stringify({ mcpServers: { sous: entry(target) } }, null, 2),
      command: `claude mcp add --scope project sous -- ${commandLine(target.server)}`,
    };
  },
};
