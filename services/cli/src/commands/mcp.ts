import type { Command } from 'commander';
import { defaultConfig, loadConfig, type SousConfig, type SousPaths } from '@sous/config';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { createSousMcpServer, mcpHttpRoutes } from '@sous/mcp';
import { DEFAULT_CONTEXT_PORT, DEFAULT_HOST, SOUS_VERSION } from '@sous/protocol';
import { DaemonClient } from '@sous/runtime';
import { CliError } from '../cli-error';
import { gitTopLevel } from '../repo-check';
import { run } from '../run';
import { resolveWorkspace } from '../workspace';

interface McpOptions { path?: string; transport?: string; host?: string; port?: string; allowRemote?: boolean }

/** The workspace's `[mcp]` section (the defaults when there is no config yet, or it cannot be read). */
function mcpConfig(paths: SousPaths): SousConfig['mcp'] {
  try {
    return loadConfig(paths.config).mcp;
  } catch {
    return defaultConfig().mcp;
  }
}

/**
 * The workspace's daemon, started on first use like `sous up` (the agent cannot answer a prompt, so a
 * busy default port moves to the next free one). Started once; a failure is kept, and every tool
 * answers with it instead of hanging.
 */
function daemonFor(paths: SousPaths): () => Promise<DaemonClient> {
  let client: Promise<DaemonClient> | undefined;
  return () => {
    // Loaded on first use: starting a daemon needs setup and process control, listing tools does not.
    client ??= import('./up.js').then(({ ensureDaemon }) => ensureDaemon(paths, { autoPort: true })).then((up) => new DaemonClient(up.url, 10_000, { 'x-sous-client': 'mcp' }));
    return client;
  };
}

/**
 * `sous mcp --path <dir>`: the MCP server (spec 4.6). stdio by default (nothing but protocol messages
 * on stdout); `--transport sse` (or `http`) serves Streamable HTTP at /mcp and the legacy SSE endpoints
 * on 127.0.0.1:8472. The flags override `mcp.transport`, `mcp.http_host` and `mcp.http_port` of the
 * workspace config, which override those defaults. docs/mcp.md.
 */
export function registerMcpCommand(program: Command): void {
  program
    .command('mcp')
    .description('the MCP server for agents (stdio by default); tools read what the daemon prepared')
    .option('--path <dir>', 'the workspace every tool is scoped to (default: nearest .sous/ upward)')
    .option('--transport <kind>', 'stdio, sse or http (sse and http both serve /mcp and the legacy /sse; default: mcp.transport, stdio)')
    .option('--host <addr>', `bind address for sse/http (default: mcp.http_host, ${DEFAULT_HOST})`)
    .option('--port <n>', `port for sse/http (default: mcp.http_port, ${DEFAULT_CONTEXT_PORT})`)
    .option('--allow-remote', 'allow binding a non-loopback address (put TLS in front of it)')
    .action(
      run(async (opts: McpOptions) => {
        const paths = resolveWorkspace(opts.path);
        if (gitTopLevel(paths.root) === undefined) throw new CliError(`${paths.root} is not a git repository; run sous mcp --path <repository>`, 2);
        const settings = mcpConfig(paths);
        const transport = opts.transport ?? settings.transport;
        const host = opts.host ?? settings.http_host;
        if (!['stdio', 'sse', 'http'].includes(transport)) throw new CliError(`--transport must be stdio, sse or http (found ${transport})`, 2);
        const daemon = daemonFor(paths);
        const make = () => createSousMcpServer({ daemon, workspace: paths.root, toolNames: mcpConfig(paths).tool_names, version: SOUS_VERSION });

        if (transport === 'stdio') {
          // The daemon starts in the background: listing tools must not wait for it.
          void daemon().catch(() => undefined);
          const server = make();
          await server.connect(new StdioServerTransport());
          await new Promise<void>((resolve) => {
            server.onclose = () => resolve();
            process.stdin.once('end', () => resolve());
          });
          return;
        }

        const { createApp, isLoopbackHost, listen, PortInUseError, resolveAccess } = await import('@sous/http');
        const { createLogger } = await import('@sous/logging');
        const port = opts.port === undefined ? settings.http_port : Number(opts.port);
        if (!Number.isInteger(port) || port < 1 || port > 65535) throw new CliError(`--port must be an integer between 1 and 65535 (found ${opts.port})`, 2);
        if (!isLoopbackHost(host) && !opts.allowRemote) {
          throw new CliError(`${host} is not a loopback address; MCP binds 127.0.0.1 unless you pass --allow-remote (and put TLS in front of it)`, 2);
        }
        // Tokens and rate limit as on every Sous surface (docs/deployment.md): required off loopback.
        let access;
        try {
          access = resolveAccess(process.env, { host, surface: 'mcp' });
        } catch (err) {
          throw new CliError(err instanceof Error ? err.message : String(err), 2);
        }
        const logger = createLogger({ name: 'mcp', file: `${paths.logs}/mcp.log` });
        for (const warning of access.warnings) logger.warn(warning);
        let bound = port;
        let routes: { close(): Promise<void> } | undefined;
        const app = createApp({
          logger,
          port: () => bound,
          allowedHosts: () => [],
          allowedOrigins: () => [],
          access,
          routes: (a) => {
            routes = mcpHttpRoutes(a, make);
          },
        });
        let server;
        try {
          server = await listen(app, host, port);
        } catch (err) {
          if (err instanceof PortInUseError) throw new CliError(err.message);
          throw err;
        }
        bound = port;
        process.stderr.write(`sous mcp: Streamable HTTP at http://${host}:${port}/mcp, legacy SSE at /sse (Ctrl-C to stop)\n`);
        await new Promise<void>((resolve) => {
          const stop = (): void => {
            void routes?.close();
            server.close(() => resolve());
            server.closeAllConnections();
          };
          process.once('SIGINT', stop);
          process.once('SIGTERM', stop);
        });
      }),
    );
}
