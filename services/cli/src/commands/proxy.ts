import type { Command } from 'commander';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { DEFAULT_CONTEXT_PORT, DEFAULT_HOST, DEFAULT_PROXY_PORT } from '@sous/protocol';
import { CliError } from '../cli-error';
import { run } from '../run';
import { resolveWorkspace } from '../workspace';

interface ProxyOptions { path?: string; host?: string; port?: string; contextOnly?: boolean }

function proxyEntry(): string {
  return path.join(path.dirname(require.resolve('@sous/proxy/package.json')), 'dist', 'main.js');
}

/**
 * `sous proxy [--context-only]`: runs the proxy process in the foreground (Ctrl-C stops it). With
 * `--context-only` it serves only `POST /v1/context` (spec 4.5) from the index the daemon stored.
 */
export function registerProxyCommand(program: Command): void {
  program
    .command('proxy')
    .description(`run the chat proxy (port ${DEFAULT_PROXY_PORT}) or, with --context-only, the context API (port ${DEFAULT_CONTEXT_PORT}) in the foreground`)
    .option('--context-only', 'serve only POST /v1/context from the stored index')
    .option('--path <dir>', 'repository (default: nearest .sous/ upward, else the current directory)')
    .option('--host <address>', `bind address (default ${DEFAULT_HOST})`)
    .option('--port <n>', `port (default ${DEFAULT_PROXY_PORT}, or ${DEFAULT_CONTEXT_PORT} with --context-only)`)
    .action(
      run(async (opts: ProxyOptions) => {
        const paths = resolveWorkspace(opts.path);
        const entry = proxyEntry();
        if (!fs.existsSync(entry)) throw new CliError(`proxy build not found at ${entry}; run npm run build`);
        const args = [entry, '--path', paths.root];
        if (opts.contextOnly) args.push('--context-only');
        if (opts.host !== undefined) args.push('--host', opts.host);
        if (opts.port !== undefined) args.push('--port', opts.port);
        if (paths.dir !== path.join(paths.root, '.sous')) args.push('--state-dir', paths.dir);
        const child = spawn(process.execPath, args, { stdio: 'inherit', env: process.env });
        const forward = (signal: NodeJS.Signals) => () => child.kill(signal);
        process.on('SIGINT', forward('SIGINT'));
        process.on('SIGTERM', forward('SIGTERM'));
        const code = await new Promise<number>((resolve) => child.on('exit', (c, signal) => resolve(c ?? (signal ? 0 : 1))));
        process.exitCode = code;
      }),
    );
}
