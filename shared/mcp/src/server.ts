/**
 * The Sous MCP server (spec 4.6): the SDK's low-level Server over the tool registry. Transport-free:
 * `sous mcp` connects it to stdio, the HTTP routes to Streamable HTTP or SSE, tests to an in-memory
 * pair. Tools answer from what the daemon prepared, through its loopback API; every daemon call is
 * bounded in time, so a daemon that is down, hung or still starting gives a clear error result
 * within seconds instead of a hanging agent. Listing tools never needs the daemon.
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { ErrorCode, ListToolsRequestSchema, McpError } from '@modelcontextprotocol/sdk/types.js';
import type { DaemonClient } from '@sous/runtime';
import { listedName, type ToolNameStyle } from './names';
import { DaemonStartError, DaemonWaitError, ToolRegistry, type DaemonApi } from './registry';
import { artefactTools } from './tools/artefacts';
import { focusTools } from './tools/focus';
import { goalTools } from './tools/goals';
import { deepRunTools } from './tools/deep-run';
import { predictionTools } from './tools/predictions';
import { resolveTools } from './tools/resolve';
import { operationsTools } from './tools/operations';
import { preparedWorkTools } from './tools/prepared-work';
import { searchTools } from './tools/search';
import { setupTools } from './tools/setup';

/** How long one daemon call (or the wait for a starting daemon) may take before the tool answers with an error. */
export const DEFAULT_DAEMON_TIMEOUT_MS = 5000;

export interface SousMcpServerOptions {
  /**
   * The workspace's daemon client. Lazy, because the stdio command may still be starting the daemon;
   * called on every tool call, so it should cache its promise (a kept failure is reported each time).
   */
  daemon: () => Promise<DaemonClient>;
  /** The workspace root every tool is scoped to. */
  workspace: string;
  /** How tool names are listed (`mcp.tool_names`); both forms are accepted on call either way. */
  toolNames?: ToolNameStyle;
  version: string;
  /** The tools; the Sous set by default. */
  registry?: ToolRegistry;
  /** Bound on each daemon call, in ms. */
  timeoutMs?: number;
}

/** Every Sous tool of this release. Later issues append their definitions here (intent, predictions, goals, deep runs). */
export function sousToolRegistry(): ToolRegistry {
  return new ToolRegistry().add(...preparedWorkTools, ...searchTools, ...operationsTools, ...focusTools, ...setupTools, ...artefactTools, ...goalTools, ...predictionTools, ...resolveTools, ...deepRunTools);
}

let defaultRegistry: ToolRegistry | undefined;

/** What the server tells an agent when it connects: what Sous is and the first call to make. */
export function serverInstructions(style: ToolNameStyle, workspace: string): string {
  const n = (id: string): string => listedName(id, style);
  return [
    `Sous prepares work for ${workspace} in the background: evidence-backed cards (docs drift, review notes, bug hypotheses, ready patches) and a fresh retrieval index.`,
    `Call ${n('prepared_work.dashboard')} first in a session; inspect a card with ${n('work_products.inspect')} before acting on it, and export a patch with ${n('work_products.export')} (review it; Sous never applies changes).`,
    `Use ${n('search')} to find where to read, ${n('expand')} or ${n('warm')} to have Sous prepare around what you are about to change, and ${n('work_products.feedback')} to say whether a card helped.`,
    `If a tool reports that no daemon answers, tell the user to run: sous up --path ${workspace}. ${n('status')} and ${n('debug.trace')} explain what Sous did and why.`,
  ].join('\n');
}

/** `promise`, or a DaemonWaitError after `ms`. */
function within<T>(promise: Promise<T>, ms: number, error: () => DaemonWaitError): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(error()), ms);
    timer.unref?.();
    promise.then(
      (v) => {
        clearTimeout(timer);
        resolve(v);
      },
      (e: unknown) => {
        clearTimeout(timer);
        reject(e);
      },
    );
  });
}

/**
 * The daemon as tools see it: waits for the lazy client (a start that takes longer answers "still
 * starting"; a failed start becomes DaemonStartError) and bounds each request.
 */
export function boundedDaemon(connect: () => Promise<DaemonClient>, timeoutMs: number, workspace: string): DaemonApi {
  const client = async (): Promise<DaemonClient> => {
    try {
      return await within(connect(), timeoutMs, () => new DaemonWaitError(`The Sous daemon for ${workspace} is still starting (no answer within ${timeoutMs / 1000} s).`, true));
    } catch (err) {
      if (err instanceof DaemonWaitError) throw err;
      throw new DaemonStartError(err instanceof Error ? err.message : String(err));
    }
  };
  const bound = async <T>(path: string, request: (c: DaemonClient) => Promise<T>): Promise<T> => {
    const c = await client();
    return within(request(c), timeoutMs, () => new DaemonWaitError(`The Sous daemon for ${workspace} did not answer ${path} within ${timeoutMs / 1000} s.`, false));
  };
  return {
    get: <T>(path: string) => bound(path, (c) => c.get<T>(path)),
    post: <T>(path: string, body?: unknown) => bound(path, (c) => c.post<T>(path, body)),
  };
}

/** A Sous MCP server, not yet connected to a transport. */
export function createSousMcpServer(options: SousMcpServerOptions): Server {
  const style = options.toolNames ?? 'underscore';
  // The default registry is built once: the HTTP transport makes a server per request.
  const registry = options.registry ?? (defaultRegistry ??= sousToolRegistry());
  const daemon = boundedDaemon(options.daemon, options.timeoutMs ?? DEFAULT_DAEMON_TIMEOUT_MS, options.workspace);
  const server = new Server(
    { name: 'sous', title: 'Sous', version: options.version },
    { capabilities: { tools: {} }, instructions: serverInstructions(style, options.workspace) },
  );
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: registry.list(style) }));
  // tools/call goes through the fallback handler on purpose: for a registered handler the SDK (1.32)
  // parses the request schema first and answers `arguments` that are not an object with JSON-RPC's
  // *internal* error (-32603). The registry answers every malformed call itself, as invalid arguments.
  server.fallbackRequestHandler = async (request) => {
    if (request.method !== 'tools/call') throw new McpError(ErrorCode.MethodNotFound, `Method not found: ${request.method}`);
    const params = (typeof request.params === 'object' && request.params !== null ? request.params : {}) as { name?: unknown; arguments?: unknown };
    if (typeof params.name !== 'string') throw new McpError(ErrorCode.InvalidParams, 'tools/call needs params.name, the name of a listed tool');
    return registry.call(params.name, params.arguments, { daemon, workspace: options.workspace });
  };
  return server;
}
