#!/usr/bin/env node
import { Command } from 'commander';
import { PRIVATE_UMASK, SOUS_VERSION } from '@sous/protocol';

// Whatever Sous writes (its state, the daemon it starts) is its user's alone.
process.umask(PRIVATE_UMASK);

const program = new Command('sous')
  .description('Sous: a local preparation engine for AI coding agents')
  .version(SOUS_VERSION)
  .showHelpAfterError('(run with --help for usage)');

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

registered.then(() => program.parseAsync(process.argv)).catch((err: unknown) => {
  process.stderr.write(`sous: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exitCode = 1;
});
