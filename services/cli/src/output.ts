/** Output helpers: one place that decides how results and errors are printed. */

export function printJson(value: unknown): void {
  process.stdout.write(JSON.stringify(value, null, 2) + '\n');
}

export function printLine(line = ''): void {
  process.stdout.write(line + '\n');
}

/** Prints aligned `key  value` rows. */
export function printTable(rows: Array<[string, string]>): void {
  const width = Math.max(0, ...rows.map(([k]) => k.length));
  for (const [k, v] of rows) printLine(`${k.padEnd(width)}  ${v}`);
}

/** One line on stderr: `sous: <message>` (why a command failed, or what it waits for). */
export function printError(message: string): void {
  const oneLine = message.replace(/\s*\n\s*/g, ' ').trim();
  process.stderr.write(`sous: ${oneLine}\n`);
}

/** Whether this run asked for JSON (`--json` before any `--`): its failures are JSON too. */
export function wantsJson(argv: readonly string[] = process.argv): boolean {
  const end = argv.indexOf('--');
  return (end === -1 ? argv : argv.slice(0, end)).includes('--json');
}

/** What kind of failure ended a command, for scripts (`--json`); the exit code says the same. */
export type FailureCode = 'usage' | 'failed' | 'not_running';

/**
 * Reports why a command failed and sets its exit code: one `sous: …` line on stderr, or with
 * `--json` one JSON object on stdout (`{"error": {"code", "message", "exit_code"}}`), so a script
 * that parses the output gets JSON either way (docs/errors.md).
 */
export function reportFailure(message: string, exitCode: number, code: FailureCode = exitCode === 2 ? 'usage' : exitCode === 3 ? 'not_running' : 'failed'): void {
  process.exitCode = exitCode;
  if (wantsJson()) printJson({ error: { code, message: message.replace(/\s*\n\s*/g, ' ').trim(), exit_code: exitCode } });
  else printError(message);
}
