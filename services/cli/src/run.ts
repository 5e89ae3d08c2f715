import { CliError } from './cli-error';
import { reportFailure } from './output';

/**
 * Wraps a command action: errors become one `sous: …` line on stderr (a JSON error with `--json`)
 * and a non-zero exit code, never a stack trace. Set SOUS_DEBUG=1 to see the stack of an unexpected error.
 */
export function run<A extends unknown[]>(action: (...args: A) => Promise<void> | void): (...args: A) => Promise<void> {
  return async (...args: A) => {
    try {
      await action(...args);
    } catch (err) {
      if (err instanceof CliError) return reportFailure(err.message, err.exitCode);
      reportFailure(err instanceof Error ? err.message : String(err), 1);
      if (process.env.SOUS_DEBUG && err instanceof Error && err.stack) process.stderr.write(err.stack + '\n');
    }
  };
}
