import type { Command } from 'commander';
import * as http from 'node:http';
import * as https from 'node:https';
import { CLIENT_TOKEN_ENV } from '@sous/runtime';
import { CliError } from '../cli-error';
import { requireClient } from '../daemon-control';
import { printLine } from '../output';
import { run } from '../run';
import { formatEvent, wantsColour } from '../watch-format';
import { resolveWorkspace } from '../workspace';

interface WatchOptions { path?: string; cockpitUrl?: string; json?: boolean }

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
        // Relative to the cockpit URL, so a daemon behind a path prefix (https://host/sous/) works too.
        const url = new URL('events', base.endsWith('/') ? base : `${base}/`);
        if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new CliError(`--cockpit-url ${opts.cockpitUrl ?? base} is not an http(s) URL; pass e.g. http://127.0.0.1:8473`, 2);
        const colour = !opts.json && wantsColour(process.stdout);
        await new Promise<void>((resolve, reject) => {
          // A daemon that asks for a token (docs/deployment.md) gets SOUS_TOKEN.
          const token = process.env[CLIENT_TOKEN_ENV]?.trim();
          const headers: Record<string, string> = { accept: 'text/event-stream', ...(token ? { authorization: `Bearer ${token}` } : {}) };
          const req = (url.protocol === 'https:' ? https : http).get(url, { headers }, (res) => {
            if (res.statusCode === 401) {
              reject(new CliError(`${url.toString()} asks for a token: set ${CLIENT_TOKEN_ENV} to one of the daemon's tokens${token ? ' (the one set was refused)' : ''}`));
              res.resume();
              return;
            }
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
                printLine(opts.json ? JSON.stringify({ event: type, ...data }) : formatEvent(type, data, colour));
              }
            });
            res.on('end', () => {
              process.stderr.write('sous: the daemon closed the event stream (stopped or restarted)\n');
              resolve();
            });
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
