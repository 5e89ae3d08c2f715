/**
 * Tool names. A tool has one canonical id, dotted and without the prefix (`prepared_work.dashboard`,
 * as spec 4.6 writes it after `svc.`). The MCP specification allows dots in names, but several major
 * clients (Claude Desktop connectors, the OpenAI function-name rule used by Codex, Windsurf, Cursor)
 * reject any name outside NAME_RULE, so the default listing uses underscores (`sous_prepared_work_dashboard`);
 * `mcp.tool_names = "dotted"` lists the spec's `sous.prepared_work.dashboard`. Calls are accepted in
 * either form, whichever was listed, so a client configured against one listing keeps working.
 */

/** How tool names are listed (the `mcp.tool_names` config key). */
export type ToolNameStyle = 'underscore' | 'dotted';

/** The name rule of the strictest major clients (and of OpenAI function names). */
export const NAME_RULE = /^[a-zA-Z0-9_-]{1,64}$/;

/** The prefix every Sous tool name carries. */
export const TOOL_PREFIX = 'sous';

/**
 * Clients that namespace tools by server (Claude Code: `mcp__<server>__<tool>`) apply the 64-character
 * rule to the namespaced name; `sous` is the server name `sous init` wires.
 */
export const CLIENT_NAMESPACE = 'mcp__sous__';

/** What a canonical id looks like: lower-case segments of letters, digits and underscores, joined by dots. */
const ID_RULE = /^[a-z][a-z0-9_]*(\.[a-z][a-z0-9_]*)*$/;

/** The name a tool is listed under in the given style. */
export function listedName(id: string, style: ToolNameStyle): string {
  return style === 'dotted' ? `${TOOL_PREFIX}.${id}` : `${TOOL_PREFIX}_${id.replace(/\./g, '_')}`;
}

/**
 * Why `id` cannot be a tool id, or undefined when it can: well-formed, and its underscore name obeys
 * NAME_RULE even inside a client's `mcp__sous__` namespace.
 */
export function idProblem(id: string): string | undefined {
  if (!ID_RULE.test(id)) return `tool id ${JSON.stringify(id)} must be lower-case words joined by dots (e.g. prepared_work.dashboard)`;
  const name = listedName(id, 'underscore');
  if (!NAME_RULE.test(name)) return `tool name ${name} breaks the client name rule ${NAME_RULE}`;
  const namespaced = CLIENT_NAMESPACE + name;
  if (namespaced.length > 64) return `${namespaced} is ${namespaced.length} characters; clients allow 64`;
  return undefined;
}

/**
 * The canonical id a called name stands for, among `ids`: the underscore form, the dotted form and
 * the bare id are all accepted. Undefined when it names no known tool. Matching goes through the
 * known ids because underscores alone cannot say where the dots were.
 */
export function resolveToolName(name: string, ids: Iterable<string>): string | undefined {
  const trimmed = name.trim();
  for (const id of ids) {
    if (trimmed === id || trimmed === listedName(id, 'dotted') || trimmed === listedName(id, 'underscore')) return id;
  }
  return undefined;
}
