import type { Command } from 'commander';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { CliError } from '../cli-error';
import { delay } from '../daemon-control';
import { printLine } from '../output';
import { run } from '../run';
import { resolveWorkspace } from '../workspace';

const SERVICES = ['daemon', 'supervisor', 'proxy', 'context'] as const;
const LEVELS: Record<number, string> = { 10: 'trace', 20: 'debug', 30: 'info', 40: 'warn', 50: 'error', 60: 'fatal' };
const BASE_FIELDS = new Set(['level', 'time', 'pid', 'hostname', 'name', 'msg']);

/** One pino JSON line as `time level msg key=value …`; other lines pass through unchanged. */
export function formatLogLine(line: string): string {
  let rec: Record<string, unknown>;
  try {
    rec = JSON.parse(line) as Record<string, unknown>;
  } catch {
    return line;
  }
  const extras = Object.entries(rec)
    .filter(([k]) => !BASE_FIELDS.has(k))
    .map(([k, v]) => `${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`);
  const level = LEVELS[Number(rec.level)] ?? String(rec.level ?? '');
  return [String(rec.time ?? ''), level.toUpperCase().padEnd(5), String(rec.msg ?? ''), ...extras].join(' ').trim();
}

function lastLines(file: string, count: number): { lines: string[]; size: number } {
  const text = fs.readFileSync(file, 'utf8');
  const lines = text.split('\n').filter((l) => l.length > 0);
  return { lines: lines.slice(-count), size: Buffer.byteLength(text) };
}

export function registerLogsCommand(program: Command): void {
  program
    .command('logs')
    .description('show the daemon log (structured; never file contents, prompts or secrets)')
    .option('--path <dir>', 'repository (default: nearest .sous/ upward)')
    .option('-f, --follow', 'keep printing new lines until interrupted')
    .option('-n, --lines <n>', 'how many recent lines', '50')
    .option('--service <name>', `which log: ${SERVICES.join(', ')}`, 'daemon')
    .option('--json', 'print the raw JSON lines')
    .action(
      run(async (opts: { path?: string; follow?: boolean; lines: string; service: string; json?: boolean }) => {
        const paths = resolveWorkspace(opts.path);
        if (!(SERVICES as readonly string[]).includes(opts.service)) throw new CliError(`--service must be one of ${SERVICES.join(', ')} (found ${opts.service})`, 2);
        const count = Number(opts.lines);
        if (!Number.isInteger(count) || count < 0) throw new CliError(`--lines must be a non-negative integer (found ${opts.lines})`, 2);
        const file = path.join(paths.logs, `${opts.service}.log`);
        if (!fs.existsSync(file)) {
          if (!opts.follow) throw new CliError(`no ${opts.service} log yet at ${file}; start Sous with: sous up`);
        }
        const show = (line: string) => printLine(opts.json ? line : formatLogLine(line));
        let offset = 0;
        if (fs.existsSync(file)) {
          const { lines, size } = lastLines(file, count);
          lines.forEach(show);
          offset = size;
        }
        if (!opts.follow) return;
        // Follow by polling the size: works on every file system and survives the file being recreated.
        let partial = '';
        for (;;) {
          await delay(250);
          let size: number;
          try {
            size = fs.statSync(file).size;
          } catch {
            continue;
          }
          if (size < offset) offset = 0; // truncated or replaced
          if (size === offset) continue;
          const fd = fs.openSync(file, 'r');
          const buf = Buffer.alloc(size - offset);
          fs.readSync(fd, buf, 0, buf.length, offset);
          fs.closeSync(fd);
          offset = size;
          const chunk = partial + buf.toString('utf8');
          const parts = chunk.split('\n');
          partial = parts.pop() ?? '';
          parts.filter((l) => l.length > 0).forEach(show);
        }
      }),
    );
}
