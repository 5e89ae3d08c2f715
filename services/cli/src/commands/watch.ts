import type { Command } from 'commander';
import * as http from 'node:http';
import { CliError } from '../cli-error';
import { requireClient } from '../daemon-control';
import { printLine } from '../output';
import { run } from '../run';
import { resolveWorkspace } from '../workspace';

interface WatchOptions { path?: string; cockpitUrl?: string; json?: boolean }

/** One engine event as a line a person reads. */
function describe(type: string, data: Record<string, unknown>): string {
  const at = typeof data['at'] === 'string' ? (data['at'] as string).slice(11, 19) : '';
  switch (type) {
    case 'cycle.started':
      return `${at} cycle started (${String(data['trigger'])})`;
    case 'cycle.finished':
      return `${at} cycle finished in ${String(data['duration_ms'])} ms: ${String(data['candidates'])} candidates, ${String(data['landed'])} landed, ${String(data['stale'])} stale`;
    case 'cycle.deferred':
      return `${at} cycle deferred: ${String(data['reason'])}`;
    case 'card.landed':
      return `${at} + ${String(data['kind'])}: ${String(data['title'])} (${String(data['id'])})`;
    case 'card.stale':
      return `${at} ~ stale ${String(data['id'])}: ${String(data['reason'])}`;
    case 'card.superseded':
      return `${at} ~ superseded ${String(data['id'])} by ${String(data['by'])}`;
    case 'card.dismissed':
      return `${at} - dismissed ${String(data['id'])}`;
    case 'card.feedback':
      return `${at} feedback ${String(data['value'])} on ${String(data['id'])}`;
    default:
      return `${at} ${type}`;
  }
}

/**
 * `sous watch`: follows the daemon's live event stream (`GET /events`, docs/prepared-work.md) until
 * Ctrl-C or until the daemon stops.
 */
export function registerWatchCommand(program: Command): void {
  program
    .command('watch')
    .description('follow the live engine activity (cycles, cards landing, going stale, dismissed)')
    .option('--path <dir>', 'workspace (default: nearest .sous/ upward, else the current directory)')
    .option('--cockpit-url <url>', 'the daemon address (default: the running daemon of the workspace)')
    .option('--json', 'print each event as one JSON line')
    .action(
      run(async (opts: WatchOptions) => {
        let base: string;
        if (opts.cockpitUrl !== undefined) {
          try {
            base = new URL(opts.cockpitUrl).toString();
          } catch {
            throw new CliError(`--cockpit-url ${opts.cockpitUrl} is not a URL; pass e.g. http://127.0.0.1:8473`, 2);
          }
        } else base = requireClient(resolveWorkspace(opts.path)).baseUrl;
        const url = new URL('/events', base);
        await new Promise<void>((resolve, reject) => {
          const req = http.get(url, { headers: { accept: 'text/event-stream' } }, (res) => {
            if (res.statusCode !== 200) {
              reject(new CliError(`${url.toString()} answered ${res.statusCode}; is it a Sous daemon?`));
              res.resume();
              return;
            }
            res.setEncoding('utf8');
            let buffer = '';
            res.on('data', (chunk: string) => {
              buffer += chunk;
              let end: number;
              while ((end = buffer.indexOf('\n\n')) >= 0) {
                const block = buffer.slice(0, end);
                buffer = buffer.slice(end + 2);
                const type = /^event: (.+)$/m.exec(block)?.[1];
                const raw = /^data: (.+)$/m.exec(block)?.[1];
                if (type === undefined || raw === undefined) continue;
                const data = JSON.parse(raw) as Record<string, unknown>;
                if (opts.json) printLine(JSON.stringify({ event: type, ...data }));
                else if (type === 'hello') printLine(`watching ${String(data['workspace'])} (Ctrl-C to stop)`);
                else printLine(describe(type, data));
              }
            });
            res.on('end', () => resolve());
          });
          req.on('error', (err) => reject(new CliError(`cannot reach ${url.toString()}: ${err.message}`)));
          process.once('SIGINT', () => {
            req.destroy();
            resolve();
          });
        });
      }),
    );
}
