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
