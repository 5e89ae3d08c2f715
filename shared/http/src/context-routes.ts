import type { Express, Response } from 'express';
import Joi from 'joi';
import { ApiError, DEFAULT_TOP_N, MAX_BUDGET_TOKENS, MAX_PROMPT_CHARS, MAX_TOP_N, redactText } from '@sous/protocol';
import { scopeKey, type ScopePolicy } from '@sous/retrieval';
import { validate } from './errors';
import { TurnQueue } from './turn-queue';

/** One ranked file as the index returns it (the retrieval package's `ContextItem`). */
export interface ContextSourceItem {
  path: string;
  score: number;
  rationale: { signal: string; detail: string; weight: number }[];
  snippet: { startLine: number; endLine: number; text: string };
  tokens: number;
}

/** Whatever answers context queries: the daemon's live index or a replica of the stored index. */
export interface ContextSource {
  query(prompt: string, options: { topN: number; budgetTokens?: number }): { items: ContextSourceItem[]; stats: { files_indexed: number; took_ms: number } };
  /** `state` null = nothing stored yet. */
  status(): { state: 'indexing' | 'ready' | 'failed' | null; files_indexed: number; generation: number; error: string | null };
  /**
   * The privacy scope in force: a path outside it never leaves, even if the index still holds it,
   * and every snippet is redacted by its patterns on the way out.
   */
  policy(): ScopePolicy;
}

const contextBody = Joi.object({
  prompt: Joi.string()
    .max(MAX_PROMPT_CHARS)
    .pattern(/\S/)
    .required()
    .messages({
      'string.empty': 'prompt is empty; send the task, the error or the code you are asking about',
      'string.pattern.base': 'prompt is empty; send the task, the error or the code you are asking about',
      'any.required': 'prompt is required: send a JSON object with prompt (text) and optionally top_n and budget_tokens',
      'string.max': `prompt is longer than ${MAX_PROMPT_CHARS} characters; keep the error and the relevant lines`,
      'string.base': 'prompt must be a string',
    }),
  top_n: Joi.number().integer().strict().min(1).max(MAX_TOP_N).default(DEFAULT_TOP_N).messages({
    'number.base': `top_n must be an integer from 1 to ${MAX_TOP_N}`,
    'number.integer': `top_n must be an integer from 1 to ${MAX_TOP_N}`,
    'number.min': `top_n must be an integer from 1 to ${MAX_TOP_N}`,
    'number.max': `top_n must be an integer from 1 to ${MAX_TOP_N}`,
  }),
  budget_tokens: Joi.number().integer().strict().min(1).max(MAX_BUDGET_TOKENS).messages({
    'number.base': `budget_tokens must be an integer from 1 to ${MAX_BUDGET_TOKENS}`,
    'number.integer': `budget_tokens must be an integer from 1 to ${MAX_BUDGET_TOKENS}`,
    'number.min': `budget_tokens must be an integer from 1 to ${MAX_BUDGET_TOKENS}`,
    'number.max': `budget_tokens must be an integer from 1 to ${MAX_BUDGET_TOKENS}`,
  }),
})
  .required()
  .messages({ 'object.unknown': '{{#label}} is not a field of a context request; send prompt, top_n and optionally budget_tokens' });

/** Answers kept per process; an answer is only reused while the index generation it came from holds. */
export const ANSWER_CACHE_SIZE = 256;

/**
 * The last answers by (generation, request), as the bytes sent. Agents, the proxy and MCP clients
 * ask the same prompt again (retries, several tools, several clients on one team server); a repeat
 * costs a lookup and a write. Any index change moves the generation, so a cached answer is never
 * staler than the index.
 */
class AnswerCache<T> {
  private readonly entries = new Map<string, T>();
  constructor(private readonly size: number) {}
  get(key: string): T | undefined {
    const value = this.entries.get(key);
    if (value !== undefined) {
      this.entries.delete(key);
      this.entries.set(key, value);
    }
    return value;
  }
  set(key: string, value: T): void {
    this.entries.set(key, value);
    if (this.entries.size > this.size) this.entries.delete(this.entries.keys().next().value as string);
  }
}

/** One item of a `/v1/context` answer (docs/http-api.md). */
export interface ContextAnswerItem {
  rank: number;
  path: string;
  score: number;
  tokens: number;
  rationale: ContextSourceItem['rationale'];
  snippet: { start_line: number; end_line: number; text: string };
}

/**
 * Index items as the API answers them, under `policy`: out-of-scope paths dropped, snippets
 * redacted, ranks numbered. The CLI prints the same shape when it answers without a daemon.
 */
export function contextAnswerItems(items: readonly ContextSourceItem[], policy: ScopePolicy): ContextAnswerItem[] {
  return items
    .filter((item) => policy.inScope(item.path))
    .map((item, i) => ({
      rank: i + 1,
      path: item.path,
      score: item.score,
      tokens: item.tokens,
      rationale: item.rationale,
      snippet: { start_line: item.snippet.startLine, end_line: item.snippet.endLine, text: redactText(item.snippet.text, policy.redactPatterns) },
    }));
}

/** `scopeKey` once per policy object (a policy changes only with a config reload). */
const policyKeys = new WeakMap<ScopePolicy, string>();
function policyKey(policy: ScopePolicy): string {
  let key = policyKeys.get(policy);
  if (key === undefined) policyKeys.set(policy, (key = scopeKey(policy)));
  return key;
}

interface ContextBody {
  prompt: string;
  top_n: number;
  budget_tokens?: number;
}

type IndexStatus = ReturnType<ContextSource['status']>;

/** The status when the index can answer; otherwise the 503 that says why and what to do. */
function available(status: IndexStatus): IndexStatus & { state: 'indexing' | 'ready' | 'failed' } {
  if (status.state === null && status.error !== null) {
    throw new ApiError('unavailable', `the repository index is not available: ${status.error}`, 'index', { index_state: null });
  }
  if (status.state === null || (status.state === 'indexing' && status.files_indexed === 0)) {
    throw new ApiError('unavailable', 'the repository index is not ready yet (the daemon is still building it); retry in a few seconds', 'index', { index_state: status.state });
  }
  if (status.state === 'failed' && status.files_indexed === 0) {
    throw new ApiError('unavailable', `the repository index failed: ${status.error ?? 'see sous logs'}`, 'index', { index_state: status.state });
  }
  return status as IndexStatus & { state: 'indexing' | 'ready' | 'failed' };
}

/** The answer depends on the request, the index generation and the privacy scope. */
function answerKey(status: IndexStatus, policy: ScopePolicy, body: ContextBody): string {
  return JSON.stringify([status.generation, status.state, policyKey(policy), body.prompt, body.top_n, body.budget_tokens ?? null]);
}

/** Sends serialized JSON as is: no re-encoding and no ETag hash (a POST answer is never revalidated). */
function sendJson(res: Response, body: Buffer): void {
  res.writeHead(200, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': body.length });
  res.end(body);
}

/**
 * `POST /v1/context` (spec 4.5): the selected files with snippet, score and rationale, in rank order.
 * The daemon and the context-only process serve it alike; documented in docs/http-api.md.
 *
 * A repeated request is answered from the cache at once. A new one waits for its turn in a queue
 * that runs one query per event-loop turn (see TurnQueue), so a query never holds up cache hits or
 * new connections for longer than itself; identical requests waiting at once share one query.
 */
export function contextRoutes(app: Express, source: ContextSource): void {
  const cache = new AnswerCache<Buffer>(ANSWER_CACHE_SIZE);
  const waiting = new Map<string, Promise<Buffer>>();
  const queries = new TurnQueue();

  // Runs against the index as it is when the turn comes, and is cached under that generation.
  const answer = (body: ContextBody): Buffer => {
    const status = available(source.status());
    const policy = source.policy();
    const result = source.query(body.prompt, { topN: body.top_n, ...(body.budget_tokens === undefined ? {} : { budgetTokens: body.budget_tokens }) });
    const json = Buffer.from(
      JSON.stringify({
        items: contextAnswerItems(result.items, policy),
        stats: { files_indexed: result.stats.files_indexed, took_ms: result.stats.took_ms, index_state: status.state, generation: status.generation },
      }),
    );
    cache.set(answerKey(status, policy, body), json);
    return json;
  };

  app.post('/v1/context', async (req, res) => {
    if (!req.is('application/json')) throw new ApiError('unsupported_media_type', 'send the request as JSON with Content-Type: application/json', 'header.content-type');
    const body = validate(contextBody, req.body, 'body') as ContextBody;
    const key = answerKey(available(source.status()), source.policy(), body);
    const cached = cache.get(key);
    if (cached !== undefined) {
      sendJson(res, cached);
      return;
    }
    let pending = waiting.get(key);
    if (pending === undefined) {
      pending = queries.run(() => answer(body)).finally(() => waiting.delete(key));
      waiting.set(key, pending);
    }
    sendJson(res, await pending);
  });
}
