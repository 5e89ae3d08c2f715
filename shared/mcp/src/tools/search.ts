/**
 * Retrieval and precompute tools (spec 4.6 `search`, `expand`, `warm`, `inspect`). Search reads the
 * daemon's live retrieval index (`POST /v1/context`); expand and warm only queue a preparation cycle
 * (`POST /prepare`, answered at once with a job) so the agent never waits on the work itself.
 */
import * as path from 'node:path';
import Joi from 'joi';
import { MAX_PROMPT_CHARS, MAX_TOP_N } from '@sous/protocol';
import { DaemonRequestError } from '@sous/runtime';
import { ToolArgumentError, defineTool, toolResult, type ToolContext, type ToolDefinition } from '../registry';
import { cardId, cardLine, seg, type WireCard } from './wire';

interface ContextItem {
  rank: number;
  path: string;
  score: number;
  rationale: Array<{ signal: string; detail: string; weight: number }>;
  snippet: { start_line: number; end_line: number; text: string };
}
interface ContextAnswer {
  items: ContextItem[];
  stats: Record<string, unknown>;
}
interface WarmAnswer {
  job: { id: string; state: string };
}

function itemLine(item: ContextItem): string {
  const why = item.rationale[0]?.detail;
  return `${item.rank}. ${item.path}:${item.snippet.start_line}-${item.snippet.end_line}${why ? ` (${why})` : ''}`;
}

/**
 * A repository-relative path from what an agent sent: absolute paths inside the workspace are made
 * relative; paths that leave it are refused (every tool is scoped to the workspace). The root itself
 * is ''.
 */
export function workspacePath(root: string, p: string): string {
  const abs = path.resolve(root, p);
  const rel = path.relative(root, abs);
  if (rel === '..' || rel.startsWith(`..${path.sep}`) || path.isAbsolute(rel)) throw new ToolArgumentError(`${JSON.stringify(p)} is not a path inside the workspace ${root}`);
  return rel.split(path.sep).join('/');
}

/** A target that names a file or folder rather than a symbol: it has a separator or a file extension. */
function looksLikePath(target: string): boolean {
  return /[\\/]/.test(target) || /\.[A-Za-z0-9]{1,8}$/.test(target);
}

/**
 * Queues a warm cycle from `paths` (the workspace root among them: from everything). A paused
 * workspace (409) is reported in the answer instead of failing the call.
 */
async function queueWarm(ctx: ToolContext, paths: string[]): Promise<{ queued: true; job: WarmAnswer['job'] } | { queued: false; reason: string }> {
  try {
    const { job } = await ctx.daemon.post<WarmAnswer>('/prepare', paths.includes('') ? {} : { paths });
    return { queued: true, job };
  } catch (err) {
    if (err instanceof DaemonRequestError && err.status === 409) return { queued: false, reason: err.message };
    throw err;
  }
}

const topN = Joi.number().integer().min(1).max(MAX_TOP_N);
/** Snippet budget of a search unless the agent asks for more: results go into an agent's context. */
export const SEARCH_BUDGET_TOKENS = 4000;

const search = defineTool<{ query: string; top_n: number; budget_tokens?: number }>({
  id: 'search',
  title: 'Search the repository index',
  description:
    'Ranked files and line ranges for a question, a symbol, an error message or a stack trace, from the index Sous keeps fresh; each hit says why it ranked (symbol defined, path named, recent change, imports). Call it before reading files to know where to look.',
  input: Joi.object({
    query: Joi.string().trim().min(1).max(MAX_PROMPT_CHARS).required().description('what to look for: a question, symbol, path or traceback'),
    top_n: topN.default(10),
    budget_tokens: Joi.number().integer().min(1).max(1_000_000).default(SEARCH_BUDGET_TOKENS).description(`fit the snippets into this many tokens (default ${SEARCH_BUDGET_TOKENS}: an agent's context is precious)`),
  }),
  readOnly: true,
  async run(args, ctx) {
    const answer = await ctx.daemon.post<ContextAnswer>('/v1/context', { prompt: args.query, top_n: args.top_n, ...(args.budget_tokens ? { budget_tokens: args.budget_tokens } : {}) });
    const summary = answer.items.length === 0 ? `Nothing in the index matches ${JSON.stringify(args.query)}.` : `${answer.items.length} hit(s) for ${JSON.stringify(args.query)}:\n${answer.items.map(itemLine).join('\n')}`;
    return toolResult(summary, { query: args.query, ...answer });
  },
});

const expand = defineTool<{ target: string; top_n: number }>({
  id: 'expand',
  title: 'Deepen preparation around a target',
  description:
    'Queues a preparation cycle focused on a file, folder or symbol you are about to work on, and returns the related files Sous knows now. Call it when the dashboard has nothing on the area of your task; check the dashboard again after the job finishes.',
  input: Joi.object({
    target: Joi.string().trim().min(1).max(4096).required().description('a repository path (src/config.ts) or a symbol (loadConfig)'),
    top_n: topN.default(8).description('how many related files to return and warm'),
  }),
  readOnly: false,
  async run(args, ctx) {
    const isPath = looksLikePath(args.target);
    const target = isPath ? workspacePath(ctx.workspace, args.target) : args.target;
    if (target === '') throw new ToolArgumentError(`\`target\` must name a file, folder or symbol inside the workspace; to warm everything call ${ctx.toolName('warm')} with ["."]`);
    const related = await ctx.daemon.post<ContextAnswer>('/v1/context', { prompt: target, top_n: args.top_n });
    const paths = [...new Set([...(isPath ? [target] : []), ...related.items.map((i) => i.path)])];
    const warm = paths.length === 0 ? { queued: false as const, reason: `nothing in the index relates to ${target}` } : await queueWarm(ctx, paths);
    const queued = warm.queued ? `Queued cycle ${warm.job.id} over ${paths.length} file(s); follow it with ${ctx.toolName('jobs.status')}.` : `No cycle queued: ${warm.reason}.`;
    const lines = related.items.length ? `\nRelated now:\n${related.items.map(itemLine).join('\n')}` : '';
    return toolResult(`${queued}${lines}`, { target, target_kind: isPath ? 'path' : 'symbol', warm, paths, related: related.items });
  },
});

const warm = defineTool<{ paths: string[] }>({
  id: 'warm',
  title: 'Warm preparation for paths',
  description:
    'Hints Sous to prepare now around the given files (a warm cycle starts from them and follows imports and co-changes). Returns at once with a job id; the cards land on the dashboard when it finishes.',
  input: Joi.object({
    paths: Joi.array().items(Joi.string().trim().min(1).max(4096)).min(1).max(500).required().description('repository paths to start from'),
  }),
  readOnly: false,
  async run(args, ctx) {
    const paths = args.paths.map((p) => workspacePath(ctx.workspace, p));
    const warmed = await queueWarm(ctx, paths);
    const summary = warmed.queued
      ? `Queued warm cycle ${warmed.job.id} for ${paths.length} path(s); follow it with ${ctx.toolName('jobs.status')}, then read ${ctx.toolName('prepared_work.dashboard')}.`
      : `No cycle queued: ${warmed.reason}.`;
    return toolResult(summary, { paths, ...warmed });
  },
});

const inspect = defineTool<{ id: string; evidence?: number }>({
  id: 'inspect',
  title: 'Inspect a card or evidence record',
  description:
    'One prepared artefact with its diagnostic state, or (with `evidence`, counted from 1) one of its evidence records: file, lines, commit and content hash. Call it to check what a claim rests on before relying on it.',
  input: Joi.object({ id: cardId, evidence: Joi.number().integer().min(1).description('the evidence record to show, counted from 1') }),
  readOnly: true,
  async run(args, ctx) {
    const card = await ctx.daemon.get<WireCard & Record<string, unknown>>(`/work-products/${seg(args.id)}/inspect?diagnostic=true`);
    if (args.evidence === undefined) return toolResult(`${cardLine(card)}\n${card.summary ?? ''}`, { ...card });
    const records = card.evidence ?? [];
    const record = records[args.evidence - 1];
    if (!record) throw new ToolArgumentError(`card ${card.id} has ${records.length} evidence record(s); \`evidence\` must be between 1 and ${records.length}`);
    const lines = record.line_start === null ? '' : `:${record.line_start}-${record.line_end ?? record.line_start}`;
    return toolResult(`Evidence ${args.evidence} of ${card.id}: ${record.path}${lines}${record.commit ? ` at ${record.commit.slice(0, 12)}` : ''}: ${record.note}`, {
      card: { id: card.id, kind: card.kind, title: card.title },
      index: args.evidence,
      evidence: record,
    });
  },
});

export const searchTools: ToolDefinition[] = [search, expand, warm, inspect];
