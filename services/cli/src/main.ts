#!/usr/bin/env node
import { Command, CommanderError } from 'commander';
import { PRIVATE_UMASK, SOUS_VERSION } from '@sous/protocol';
import { reportFailure } from './output';

// Whatever Sous writes (its state, the daemon it starts) is its user's alone.
process.umask(PRIVATE_UMASK);

const program = new Command('sous')
  .description('Sous: a local preparation engine for AI coding agents')
  .version(SOUS_VERSION)
  // Usage errors are reported below as one line, exit code 2 (docs/errors.md); subcommands inherit both.
  .exitOverride()
  .configureOutput({ outputError: () => undefined });

// `sous mcp` is started by agents on every session: it loads only its own command (cold start).
// `sous launch` and `sous clients` touch only client files: they skip the store, engine and daemon modules too.
const first = process.argv[2];
const registered =
  first === 'mcp'
    ? import('./commands/mcp.js').then((m) => m.registerMcpCommand(program))
    : first === 'launch' || first === 'clients'
      ? import('./commands/clients.js').then((m) => m.registerClientsCommands(program))
      : import('./commands/index.js').then((m) => m.registerCommands(program));

// `sous config keys | head` closes the pipe early: that is the reader's choice, not an error.
process.stdout.on('error', (err: NodeJS.ErrnoException) => {
  if (err.code === 'EPIPE') process.exit(0);
  throw err;
});

/** Commander's outcomes that are not failures: help or the version was printed as asked. */
const NOT_FAILURES = new Set(['commander.helpDisplayed', 'commander.version']);

registered.then(() => program.parseAsync(process.argv)).catch((err: unknown) => {
  if (err instanceof CommanderError) {
    if (NOT_FAILURES.has(err.code)) return;
    // `sous` or `sous focus` alone: the help was printed (to stderr), which is the answer.
    if (err.code === 'commander.help') return void (process.exitCode = err.exitCode);
    const command = usageCommand(process.argv.slice(2));
    reportFailure(`${err.message.replace(/^error:\s*/, '')} (see sous ${command}--help)`, 2, 'usage');
    return;
  }
  reportFailure(err instanceof Error ? err.message : String(err), 1);
});

/** The command words before the first option (`config set `), for the usage hint. */
function usageCommand(args: readonly string[]): string {
  const words: string[] = [];
  let node: Command | undefined = program;
  for (const arg of args) {
    node = node?.commands.find((c) => c.name() === arg || c.aliases().includes(arg));
    if (node === undefined) break;
    words.push(arg);
  }
  return words.map((w) => `${w} `).join('');
}
