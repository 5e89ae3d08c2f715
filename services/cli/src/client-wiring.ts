import * as os from 'node:os';
import * as path from 'node:path';
import type { SousPaths } from '@sous/config';
import { clients } from '@sous/setup';
import { CliError } from './cli-error';
import { printLine } from './output';

/** This installation's CLI entry (dist/main.js): what every MCP entry starts, by absolute path. */
export function cliMainPath(): string {
  return path.resolve(__dirname, 'main.js');
}

/** This installation's L0 composer hook script (dist/hooks/claude-prompt-submit.js). */
export function composerHookPath(): string {
  return path.resolve(__dirname, 'hooks', clients.COMPOSER_HOOK_SCRIPT);
}

/**
 * The wiring target of a workspace: Sous started by this very node and CLI (never a bare `sous`
 * that may not be on PATH), HOME from the environment (tests point it at a temporary directory),
 * and the composer hook reading the daemon's port from the workspace's run-state file.
 */
export function wiringTarget(paths: SousPaths): clients.WiringTarget {
  const node = process.execPath;
  const hook = [node, composerHookPath(), '--run-state', path.join(paths.run, 'daemon.json'), '--workspace', paths.root];
  return {
    project: paths.root,
    home: os.homedir(),
    platform: process.platform,
    server: clients.serverCommand(node, cliMainPath(), paths.root),
    hookCommand: hook.map(clients.shellQuote).join(' '),
  };
}

export function wiringStore(paths: SousPaths): clients.WiringStore {
  return { stateDir: paths.dir };
}

/** `a,b c` (positional ids and/or --clients) → client ids; an unknown id is a one-line error (exit 2). */
export function clientIdsFrom(values: Array<string | undefined>): clients.ClientId[] {
  try {
    return clients.parseClientIds(values.filter((v): v is string => v !== undefined));
  } catch (err) {
    if (err instanceof clients.UnknownClientError) throw new CliError(err.message, 2);
    throw err;
  }
}

/** Prints one client's report: `Claude Code (claude-code)` then one line per layer. */
export function printClientReport(report: clients.ClientReport<string>, home: string): void {
  printLine(`${report.name} (${report.client})`);
  for (const l of report.layers) {
    const where = l.files.length > 0 ? ` ${l.files.map((f) => shorten(f, home)).join(', ')}` : '';
    printLine(`  ${l.layer.padEnd(7)}${l.status.padEnd(12)}${where}${l.detail ? ` (${l.detail})` : ''}`);
  }
}

function shorten(file: string, home: string): string {
  const rel = path.relative(process.cwd(), file);
  if (!rel.startsWith('..') && !path.isAbsolute(rel)) return rel;
  return file.startsWith(home + path.sep) ? `~${file.slice(home.length)}` : file;
}

/** Launch statuses that mean a layer is not wired as asked. */
export const LAUNCH_FAILURES: readonly string[] = ['conflict', 'error'];
/** Verify statuses that mean a layer needs attention. */
export const VERIFY_FAILURES: readonly string[] = ['missing', 'drifted', 'broken'];
