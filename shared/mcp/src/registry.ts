/**
 * The tool registry. A tool is data (a ToolDefinition): an id, a description that tells an agent when
 * to call it, a joi input schema (listed as JSON Schema), and a `run` that answers from what the
 * daemon prepared. Later issues add tools by adding definitions (intent, predictions, goals, deep
 * runs); nothing here changes. `call` never throws: bad arguments, an unknown name, a daemon that does
 * not answer and bugs in a tool all become an MCP error result (`isError: true`) that says what to
 * do, so one bad call never takes the server down.
 */
import Joi from 'joi';
import joiToJson from 'joi-to-json';
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import { findUnsafeJson } from '@sous/protocol';
import { DaemonRequestError, DaemonUnreachableError, type DaemonClient } from '@sous/runtime';
import { idProblem, listedName, resolveToolName, type ToolNameStyle } from './names';

/** What a tool may ask the daemon: its loopback JSON API (bounded in time by the server). */
export type DaemonApi = Pick<DaemonClient, 'get' | 'post'>;

export interface ToolContext {
  daemon: DaemonApi;
  /** The workspace root every tool is scoped to (`sous mcp --path`). */
  workspace: string;
  /** Another tool's name as this client sees it (same listing style as the call), for hints in answers. */
  toolName(id: string): string;
}

/** An MCP tool result: a short summary plus the JSON for agents that read text, and the same data structured. */
export type ToolResult = CallToolResult;

export interface ToolDefinition<A = Record<string, unknown>> {
  /** Canonical dotted id without the prefix, e.g. `prepared_work.dashboard`. */
  id: string;
  title: string;
  /** When to call it, in 1–3 sentences. */
  description: string;
  /** Arguments; unknown keys are refused. Defaults declared here reach `run`. */
  input: Joi.ObjectSchema;
  /** True when the tool changes nothing (listed as `readOnlyHint`). */
  readOnly: boolean;
  run(args: A, ctx: ToolContext): Promise<ToolResult>;
}

/**
 * A definition with typed arguments, erased for the registry. The cast is sound because the registry
 * only calls `run` with what `input` validated.
 */
export function defineTool<A>(def: ToolDefinition<A>): ToolDefinition {
  return { ...def, run: (args, ctx) => def.run(args as unknown as A, ctx) };
}

/** A successful result: a one-paragraph summary for people and agents, then the data as JSON. */
export function toolResult(summary: string, data: Record<string, unknown>): ToolResult {
  return { content: [{ type: 'text', text: `${summary}\n\n${JSON.stringify(data, null, 2)}` }], structuredContent: data };
}

/** A failed call: what went wrong and what to do, as text and as `{error: {code, message, action?}}`. */
export function errorResult(code: string, message: string, action?: string, details?: Record<string, unknown>): ToolResult {
  const text = action ? `${message} ${action}` : message;
  return {
    isError: true,
    content: [{ type: 'text', text }],
    structuredContent: { error: { code, message, ...(action ? { action } : {}), ...(details ? { details } : {}) } },
  };
}

/** The daemon did not answer in time, or is still starting (raised by the server's bounded client). */
export class DaemonWaitError extends Error {
  constructor(message: string, readonly starting: boolean) {
    super(message);
    this.name = 'DaemonWaitError';
  }
}

/** The daemon could not be started or found for this workspace (the lazy start failed). */
export class DaemonStartError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DaemonStartError';
  }
}

/** Arguments that passed the schema but make no sense here (a path outside the workspace, an index past the end). */
export class ToolArgumentError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ToolArgumentError';
  }
}

/** Joi options for tool arguments: every problem at once, field names quoted as the agent wrote them. */
const VALIDATE: Joi.ValidationOptions = { abortEarly: false, errors: { wrap: { label: '`' } } };

export class ToolRegistry {
  private readonly tools = new Map<string, ToolDefinition>();

  /** Adds tools; a malformed id, a name clients would reject, or a duplicate is a programming error. */
  add(...defs: ToolDefinition[]): this {
    for (const def of defs) {
      const problem = idProblem(def.id);
      if (problem) throw new Error(problem);
      if (this.tools.has(def.id)) throw new Error(`tool ${def.id} is registered twice`);
      const underscore = listedName(def.id, 'underscore');
      const clash = [...this.tools.keys()].find((id) => listedName(id, 'underscore') === underscore);
      if (clash) throw new Error(`tools ${clash} and ${def.id} would both be listed as ${underscore}`);
      this.tools.set(def.id, def);
    }
    return this;
  }

  ids(): string[] {
    return [...this.tools.keys()];
  }

  get(id: string): ToolDefinition | undefined {
    return this.tools.get(id);
  }

  /** The MCP tool list in the given naming style. */
  list(style: ToolNameStyle): Tool[] {
    return [...this.tools.values()].map((def) => ({
      name: listedName(def.id, style),
      title: def.title,
      description: def.description,
      inputSchema: inputJsonSchema(def.input),
      annotations: { title: def.title, readOnlyHint: def.readOnly, openWorldHint: false },
    }));
  }

  /**
   * Validates and runs one call. `ctx.toolName` is rewritten to the caller's naming style (taken from
   * the name it called), so hints in answers name tools the way this client lists them.
   */
  async call(name: string, rawArgs: unknown, ctx: Omit<ToolContext, 'toolName'>): Promise<ToolResult> {
    const style: ToolNameStyle = name.startsWith('sous.') ? 'dotted' : 'underscore';
    const toolName = (id: string): string => listedName(id, style);
    const id = resolveToolName(name, this.tools.keys());
    const def = id === undefined ? undefined : this.tools.get(id);
    if (def === undefined) {
      return errorResult('unknown_tool', `Unknown tool ${JSON.stringify(name)}.`, `Call one of the listed tools, e.g. ${toolName('prepared_work.dashboard')} or ${toolName('status')} (tools/list shows all ${this.tools.size}).`);
    }
    const listed = listedName(def.id, style);
    const args = rawArgs === undefined || rawArgs === null ? {} : rawArgs;
    if (typeof args !== 'object' || Array.isArray(args)) {
      return errorResult('invalid_arguments', `Invalid arguments for ${listed}: the arguments must be a JSON object.`, 'Fix them and call again.');
    }
    // Forbidden keys and NUL characters first: joi drops a `__proto__` key silently (docs/errors.md).
    const unsafe = findUnsafeJson(args);
    if (unsafe !== undefined) {
      const field = unsafe.path.join('.');
      return errorResult('invalid_arguments', `Invalid arguments for ${listed}: \`${field}\` ${unsafe.problem}.`, 'Fix them and call again.', { fields: [field] });
    }
    const checked = def.input.validate(args, VALIDATE);
    if (checked.error) {
      const problems = checked.error.details.map((d) => d.message);
      return errorResult('invalid_arguments', `Invalid arguments for ${listed}: ${problems.join('; ')}.`, 'Fix them and call again (the input schema in tools/list shows every field).', {
        fields: checked.error.details.map((d) => d.path.join('.')),
      });
    }
    try {
      return await def.run(checked.value as Record<string, unknown>, { ...ctx, toolName });
    } catch (err) {
      return failure(err, listed, ctx.workspace, toolName);
    }
  }
}

/** The JSON Schema MCP lists for a joi object schema (always an object schema, as MCP requires). */
/** The input of a tool that takes no arguments. */
export const NO_ARGS = Joi.object({});

/** Converted once per schema: tools are listed on every connection. */
const jsonSchemas = new WeakMap<Joi.ObjectSchema, Tool['inputSchema']>();

function inputJsonSchema(schema: Joi.ObjectSchema): Tool['inputSchema'] {
  let converted = jsonSchemas.get(schema);
  if (converted === undefined) {
    const json = joiToJson(schema) as Record<string, unknown>;
    converted = { ...json, type: 'object' } as Tool['inputSchema'];
    jsonSchemas.set(schema, converted);
  }
  return converted;
}

/** What a thrown error means to the agent, and what it should do next. */
function failure(err: unknown, listed: string, root: string, toolName: (id: string) => string): ToolResult {
  if (err instanceof ToolArgumentError) return errorResult('invalid_arguments', `Invalid arguments for ${listed}: ${err.message}.`, 'Fix them and call again.');
  const up = `Run \`sous up --path ${root}\` (or ask the user to), then call ${listed} again.`;
  if (err instanceof DaemonUnreachableError) {
    return errorResult('daemon_unreachable', `No Sous daemon answers for ${root} (${err.url}).`, up, { cause: err.message });
  }
  if (err instanceof DaemonStartError) {
    return errorResult('daemon_unavailable', `No Sous daemon for ${root}: ${err.message}.`, up);
  }
  if (err instanceof DaemonWaitError) {
    const retry = err.starting ? `Call ${listed} again in a few seconds.` : `Call ${listed} again shortly; if it keeps timing out, check \`sous status --path ${root}\`.`;
    return errorResult(err.starting ? 'daemon_starting' : 'daemon_timeout', err.message, retry);
  }
  if (err instanceof DaemonRequestError) {
    const details = { status: err.status, ...(err.code ? { code: err.code } : {}) };
    if (err.status === 404) {
      return errorResult('not_found', `${err.message}.`, `Check the id: ${toolName('prepared_work.dashboard')}, ${toolName('work_products.list')}, ${toolName('jobs.status')}, ${toolName('goals.list')} and ${toolName('predictions.active')} list the current ones.`, details);
    }
    if (err.status === 409) return errorResult('conflict', `${err.message}.`, 'The item is not in a state that allows this now; inspect it for the reason.', details);
    if (err.status === 503) return errorResult('unavailable', `${err.message}.`, `Call ${listed} again in a few seconds.`, details);
    if (err.status === 400) return errorResult('invalid_arguments', `The Sous daemon refused the request from ${listed}: ${err.message}.`, 'Fix the arguments and call again.', details);
    return errorResult('daemon_error', `The Sous daemon answered ${err.status} to ${listed}: ${err.message}.`, `Check \`sous status --path ${root}\` and \`sous logs\`.`, details);
  }
  const message = err instanceof Error ? err.message : String(err);
  return errorResult('internal', `${listed} failed inside the Sous MCP server: ${message}.`, 'Other tools still answer; report this as a Sous bug.');
}
