export { NAME_RULE, TOOL_PREFIX, CLIENT_NAMESPACE, listedName, resolveToolName, idProblem } from './names';
export type { ToolNameStyle } from './names';
export {
  ToolRegistry,
  defineTool,
  toolResult,
  errorResult,
  ToolArgumentError,
  DaemonWaitError,
  DaemonStartError,
} from './registry';
export type { ToolDefinition, ToolContext, ToolResult, DaemonApi } from './registry';
export { createSousMcpServer, sousToolRegistry, serverInstructions, boundedDaemon, DEFAULT_DAEMON_TIMEOUT_MS } from './server';
export type { SousMcpServerOptions } from './server';
export { mcpHttpRoutes, MCP_HTTP_PATH, MCP_SSE_PATH, MCP_MESSAGES_PATH } from './http';
