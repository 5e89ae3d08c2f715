/**
 * `sous mcp` as agents run it: over stdio on a fresh repository (it starts the daemon itself, and
 * nothing but protocol messages reaches stdout), over Streamable HTTP on the daemon's own port
 * (`/mcp`), and as a standalone `--transport sse` server with the legacy SSE endpoint. Host and Origin
 * are checked, a non-loopback bind needs an explicit flag, a busy port gets a clear error.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CLI, embeddedEnv, freePort, sous } from './support/cli';
import { rawRequest } from './support/http';
import { git, makeGitRepo, rmTempDir, writeFile } from './support/tmp';
import { until } from './support/wait';

const NAME = /^[a-zA-Z0-9_-]{1,64}$/;

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- structured results are checked field by field
type Structured = Record<string, any>;

async function call(client: Client, name: string, args: Record<string, unknown> = {}): Promise<{ isError: boolean; data: Structured; text: string }> {
  const r = (await client.callTool({ name, arguments: args })) as { isError?: boolean; structuredContent?: Structured; content?: Array<{ text?: string }> };
  return { isError: r.isError === true, data: r.structuredContent ?? {}, text: (r.content ?? []).map((c) => c.text ?? '').join('\n') };
}

describe('sous mcp transports', () => {
  let repo: string;
  const env = embeddedEnv();

  beforeAll(() => {
    repo = makeGitRepo();
    writeFile(repo, 'src/config.ts', 'export function parseConfig(text: string) {\n  return JSON.parse(text);\n}\n');
    writeFile(repo, 'src/defaults.ts', "export const DEFAULTS = { port: '8080' };\n");
    writeFile(repo, 'docs/guide.md', '# Guide\n\nCall `parseConfig` first; [the defaults](../src/defaults.ts) list every key.\n');
    git(repo, ['add', '-A']);
    git(repo, ['commit', '-q', '-m', 'config']);
    writeFile(repo, 'src/config.ts', 'export function loadConfig(text: string) {\n  return JSON.parse(text);\n}\n');
    git(repo, ['mv', 'src/defaults.ts', 'src/config-defaults.ts']);
    git(repo, ['commit', '-q', '-am', 'Rename parseConfig to loadConfig, move the defaults']);
  });

  afterAll(async () => {
    await sous(['down', '--path', repo], { env });
    rmTempDir(repo);
  }, 60_000);

  test('stdio on a fresh repository: lists names every client accepts, starts the daemon, answers the dashboard and search', async () => {
    const transport = new StdioClientTransport({ command: process.execPath, args: [CLI, 'mcp', '--path', repo], env: env as Record<string, string>, stderr: 'pipe' });
    const client = new Client({ name: 'sous-test', version: '1.0.0' });
    await client.connect(transport); // any non-protocol line on stdout would break the handshake
    try {
      const { tools } = await client.listTools();
      expect(tools.length).toBeGreaterThan(20);
      expect(tools.every((t) => NAME.test(t.name) && `mcp__sous__${t.name}`.length <= 64)).toBe(true);
      expect(tools.map((t) => t.name)).toEqual(expect.arrayContaining(['sous_prepared_work_dashboard', 'sous_search', 'sous_status']));
      // The first calls may find the daemon still starting: they say so; then they answer.
      const ready = await until(async () => {
        const s = await call(client, 'sous_status');
        return !s.isError && s.data.index?.state === 'ready' ? s : undefined;
      }, 60_000, 300);
      expect(ready.data.workspace?.root ?? ready.text).toBeTruthy();
      await call(client, 'sous_warm', { paths: ['docs/guide.md'] });
      const dashboard = await until(async () => {
        const d = await call(client, 'sous_prepared_work_dashboard');
        // The move's patch (names are held back by default, and their renames get no patch).
        return !d.isError && JSON.stringify(d.data).includes('virtual_diff') ? d : undefined;
      }, 30_000, 300);
      expect(dashboard.text).toMatch(/config-defaults/);
      const search = await call(client, 'sous.search', { query: 'loadConfig reads the settings' });
      expect(search.isError).toBe(false);
      expect(JSON.stringify(search.data)).toContain('src/config.ts');
      const bad = await call(client, 'sous_search', { query: 42 });
      expect(bad.isError).toBe(true);
      expect(bad.text).toMatch(/query/);
      expect((await call(client, 'sous_status')).isError).toBe(false);
    } finally {
      await client.close();
    }
  }, 120_000);

  test('Streamable HTTP at /mcp on the daemon port, with Host and Origin checked', async () => {
    const status = (await sous(['status', '--path', repo, '--json'], { env })).json as { port: number };
    const port = status.port;
    const client = new Client({ name: 'sous-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${port}/mcp`)));
    try {
      expect((await client.listTools()).tools.length).toBeGreaterThan(20);
      const dashboard = await call(client, 'sous_prepared_work_dashboard');
      expect(dashboard.isError).toBe(false);
    } finally {
      await client.close();
    }
    const init = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '1' } } });
    const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
    const badHost = await rawRequest({ port, method: 'POST', path: '/mcp', headers: { ...headers, host: 'evil.example:80' }, body: init });
    expect(badHost.status).toBe(403);
    const badOrigin = await rawRequest({ port, method: 'POST', path: '/mcp', headers: { ...headers, origin: 'https://evil.example' }, body: init });
    expect(badOrigin.status).toBe(403);
  });

  test('--transport sse: Streamable HTTP and the legacy SSE endpoint; loopback only unless allowed; a busy port is a clear error', async () => {
    const port = await freePort();
    const server: ChildProcess = spawn(process.execPath, [CLI, 'mcp', '--path', repo, '--transport', 'sse', '--port', String(port)], { env, stdio: ['ignore', 'ignore', 'pipe'] });
    try {
      await until(async () => ((await rawRequest({ port, path: '/mcp' }).catch(() => undefined))?.status === 405 ? true : undefined), 20_000, 100);
      const legacy = new Client({ name: 'sous-test', version: '1.0.0' });
      await legacy.connect(new SSEClientTransport(new URL(`http://127.0.0.1:${port}/sse`)));
      expect((await legacy.listTools()).tools.map((t) => t.name)).toContain('sous_prepared_work_dashboard');
      expect((await call(legacy, 'sous_status')).isError).toBe(false);
      await legacy.close();
      const modern = new Client({ name: 'sous-test', version: '1.0.0' });
      await modern.connect(new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${port}/mcp`)));
      expect((await modern.listTools()).tools.length).toBeGreaterThan(20);
      await modern.close();

      const busy = await sous(['mcp', '--path', repo, '--transport', 'sse', '--port', String(port)], { env, timeoutMs: 20_000 });
      expect(busy.code).not.toBe(0);
      expect(busy.stderr).toMatch(new RegExp(`port ${port} on 127.0.0.1 is already in use; the next free port is \\d+`));
    } finally {
      server.kill('SIGTERM');
    }
    const remote = await sous(['mcp', '--path', repo, '--transport', 'sse', '--host', '0.0.0.0', '--port', String(port)], { env, timeoutMs: 20_000 });
    expect(remote.code).toBe(2);
    expect(remote.stderr).toMatch(/not a loopback address.*--allow-remote/);
  }, 90_000);

  test('without flags, sous mcp takes its transport, host and port from mcp.* in the workspace config', async () => {
    const own = makeGitRepo();
    try {
      expect((await sous(['init', '--path', own, '--non-interactive'], { env })).code).toBe(0);
      const port = await freePort();
      expect((await sous(['config', 'set', 'mcp.transport', 'http', '--path', own], { env })).code).toBe(0);
      expect((await sous(['config', 'set', 'mcp.http_port', String(port), '--path', own], { env })).code).toBe(0);
      const server: ChildProcess = spawn(process.execPath, [CLI, 'mcp', '--path', own], { env, stdio: ['ignore', 'ignore', 'pipe'] });
      try {
        // GET /mcp is 405 on the Streamable HTTP endpoint: the server listens where the config says.
        await until(async () => ((await rawRequest({ port, path: '/mcp' }).catch(() => undefined))?.status === 405 ? true : undefined), 20_000, 100);
      } finally {
        server.kill('SIGTERM');
      }
      // mcp.http_host is held to the same loopback rule as --host.
      expect((await sous(['config', 'set', 'mcp.http_host', '0.0.0.0', '--path', own], { env })).code).toBe(0);
      const remote = await sous(['mcp', '--path', own], { env, timeoutMs: 20_000 });
      expect(remote.code).toBe(2);
      expect(remote.stderr).toMatch(/0\.0\.0\.0 is not a loopback address.*--allow-remote/);
    } finally {
      await sous(['down', '--path', own], { env });
      rmTempDir(own);
    }
  }, 90_000);
});
