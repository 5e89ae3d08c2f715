/**
 * An error the CLI reports as one readable line on stderr, exiting with `exitCode` (never 0).
 * Anything else that escapes a command is reported the same way, without a stack trace.
 */
export class CliError extends Error {
  constructor(message: string, readonly exitCode = 1) {
    super(message);
    this.name = 'CliError';
  }
}
