import type * as http from 'node:http';
import type { Express, Request } from 'express';
import Joi from 'joi';
import { ApiError, DEFAULT_TOP_N, MAX_BUDGET_TOKENS, MAX_PROMPT_CHARS, MAX_TOP_N, redactText } from '@sous/protocol';
import { scopeKey, type ScopePolicy, type SemanticFileHit } from '@sous/retrieval';
import { validate } from './errors';
import { addFastLane, type FastLane } from './fast-lane';
import { TurnQueue } from './turn-queue';

/** One ranked file as the index returns it (the retrieval package's `ContextItem`). */
export interface ContextSourceItem {
  path: string;
  score: number;
  rationale: { signal: string; detail: string; weight: number }[];
  snippet: { startLine: number; endLine: number; text: string };
  tokens: number;
}

/**
 * The optional semantic stage of a context source (the daemon, when a local model backend embeds;
 * docs/retrieval-semantic.md). Without it, or while `key()` is null, answers are lexical and no
 * model is asked.
 */
export interface ContextSemantic {
  /** What fused answers depend on now (model, stored vectors), or null when a query would not be fused. */
  key(): string | null;
  /** The prompt's semantic file ranking, or undefined when it could not be had within its short timeout. Never throws. */
  rank(prompt: string): Promise<readonly SemanticFileHit[] | undefined>;
}

/** Whatever answers context queries: the daemon's live index or a replica of the stored index. */
export interface ContextSource {
  query(prompt: string, options: { topN: number; budgetTokens?: number; semantic?: readonly SemanticFileHit[] }): { items: ContextSourceItem[]; stats: { files_indexed: number; took_ms: number } };
  /**
   * `state` null = nothing stored yet; `stale` = a replica that cannot read the stored index now
   * (the store is down): it answers from what it holds, which may be behind, and `error` says why.
   */
  status(): { state: 'indexing' | 'ready' | 'failed' | 'stale' | null; files_indexed: number; generation: number; error: string | null };
  /**
   * The privacy scope in force: a path outside it never leaves, even if the index still holds it,
   * and every snippet is redacted by its patterns on the way out.
   */
  policy(): ScopePolicy;
  /** The semantic stage, when this source has one. */
  semantic?: ContextSemantic;
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
function available(status: IndexStatus): IndexStatus & { state: 'indexing' | 'ready' | 'failed' | 'stale' } {
  const reason = unavailable(status);
  if (reason !== undefined) throw reason;
  return status as IndexStatus & { state: 'indexing' | 'ready' | 'failed' | 'stale' };
}

function unavailable(status: IndexStatus): ApiError | undefined {
  if ((status.state === null || (status.state === 'stale' && status.files_indexed === 0)) && status.error !== null) {
    return new ApiError('unavailable', `the repository index is not available: ${status.error}`, 'index', { index_state: null });
  }
  if (status.state === null || (status.state === 'indexing' && status.files_indexed === 0)) {
    return new ApiError('unavailable', 'the repository index is not ready yet (the daemon is still building it); retry in a few seconds', 'index', { index_state: status.state });
  }
  if (status.state === 'failed' && status.files_indexed === 0) {
    return new ApiError('unavailable', `the repository index failed: ${status.error ?? 'see sous logs'}`, 'index', { index_state: status.state });
  }
  return undefined;
}

/** The answer depends on the request, the index generation, the privacy scope and, when fused, the semantic stage. */
function answerKey(status: IndexStatus, policy: ScopePolicy, body: ContextBody, semantic: string | null): string {
  const key = JSON.stringify([status.generation, status.state, policyKey(policy), body.prompt, body.top_n, body.budget_tokens ?? null]);
  return semantic === null ? key : `${key}\u0000${semantic}`;
}

/** The same by the request body's exact text: a repeat is found without parsing or validating it. */
function textKey(status: IndexStatus, policy: ScopePolicy, raw: string, semantic: string | null): string {
  const key = `${status.generation}\u0000${status.state}\u0000${policyKey(policy)}\u0000${raw}`;
  return semantic === null ? key : `${key}\u0000${semantic}`;
}

/** Sends serialized JSON as is: no re-encoding and no ETag hash (a POST answer is never revalidated). */
function sendJson(res: http.ServerResponse, body: Buffer): void {
  res.writeHead(200, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': body.length });
  res.end(body);
}

/** Largest body the fast lane reads itself; larger ones go through express and its own limit. */
const FAST_LANE_MAX_BODY_BYTES = 256 * 1024;
const JSON_UTF8 = /^application\/json\s*(?:;\s*charset="?utf-8"?\s*)?$/i;
/** The body text the fast lane read before handing the request on to express. */
const RAW_BODY = Symbol('sous.rawBody');
type RawBodyRequest = http.IncomingMessage & { [RAW_BODY]?: string };

/**
 * The fast lane of `POST /v1/context` (see fast-lane.ts): reads the body and, when the same text
 * was answered under the current index generation, sends that answer. Anything else goes on to
 * express with the text read here, where it is parsed, validated and answered as usual.
 */
function contextFastLane(repeat: (raw: string) => Buffer | undefined, onRequest: () => void): FastLane {
  return (req, res, app) => {
    if (req.method !== 'POST' || req.url !== '/v1/context') return false;
    const length = Number(req.headers['content-length']);
    if (!(length > 0 && length <= FAST_LANE_MAX_BODY_BYTES) || req.headers['transfer-encoding'] !== undefined || req.headers['content-encoding'] !== undefined) return false;
    if (!JSON_UTF8.test(req.headers['content-type'] ?? '')) return false;
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('error', () => undefined); // a client that hangs up mid-body: nothing to answer
    req.on('end', () => {
      const raw = (chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks)).toString('utf8');
      const answer = repeat(raw);
      if (answer !== undefined) {
        onRequest();
        sendJson(res, answer);
        return;
      }
      // body-parser leaves alone a request whose body was read; the route parses this text.
      (req as RawBodyRequest)[RAW_BODY] = raw;
      void app(req as Request, res as Parameters<Express>[1]);
    });
    return true;
  };
}

/** The request body: parsed by body-parser, or the fast lane's text parsed as strictly. */
function requestBody(req: Request): unknown {
  const raw = (req as RawBodyRequest)[RAW_BODY];
  if (raw === undefined) return req.body;
  const first = /\S/.exec(raw)?.[0];
  try {
    // body-parser's `strict`: only an object or an array at the top.
    if (first !== '{' && first !== '[') throw new SyntaxError('not an object or array');
    return JSON.parse(raw) as unknown;
  } catch (err) {
    throw Object.assign(err instanceof Error ? err : new SyntaxError(String(err)), { type: 'entity.parse.failed', status: 400 });
  }
}

export interface ContextRouteOptions {
  /** Called for every accepted request (Auto Focus counts them as integration activity). */
  onRequest?: () => void;
}

/** An answer with the index status, policy and semantic key it was made under (its cache keys). */
interface Answer {
  status: IndexStatus;
  policy: ScopePolicy;
  semantic: string | null;
  json: Buffer;
  /** False for a lexical answer given because the semantic stage failed: the next request tries again. */
  cacheable: boolean;
}

/**
 * `POST /v1/context` (spec 4.5): the selected files with snippet, score and rationale, in rank order.
 * The daemon and the context-only process serve it alike; documented in docs/http-api.md.
 *
 * A repeated request is answered from the cache at once, by its exact text in the fast lane. A new
 * one waits for its turn in a queue that runs one query per event-loop turn (see TurnQueue), so a
 * query never holds up cache hits or new connections for longer than itself; identical requests
 * waiting at once share one query.
 */
export function contextRoutes(app: Express, source: ContextSource, { onRequest = () => undefined }: ContextRouteOptions = {}): void {
  const cache = new AnswerCache<Buffer>(ANSWER_CACHE_SIZE);
  const byText = new AnswerCache<Buffer>(ANSWER_CACHE_SIZE);
  const waiting = new Map<string, Promise<Answer>>();
  const queries = new TurnQueue();

  // Runs against the index as it is when the turn comes, and is cached under that generation.
  // `semantic`: the key the prompt's semantic ranking was asked under, and the ranking (undefined
  // when it failed: a lexical answer, not cached, so the stage is tried again).
  const answer = (body: ContextBody, semantic: { key: string | null; hits?: readonly SemanticFileHit[] }): Answer => {
    const status = available(source.status());
    const policy = source.policy();
    const result = source.query(body.prompt, {
      topN: body.top_n,
      ...(body.budget_tokens === undefined ? {} : { budgetTokens: body.budget_tokens }),
      ...(semantic.hits === undefined ? {} : { semantic: semantic.hits }),
    });
    const json = Buffer.from(
      JSON.stringify({
        items: contextAnswerItems(result.items, policy),
        stats: {
          files_indexed: result.stats.files_indexed,
          took_ms: result.stats.took_ms,
          index_state: status.state,
          generation: status.generation,
          ...(status.state === 'stale' ? { stale_reason: status.error } : {}),
        },
      }),
    );
    const cacheable = semantic.key === null || (semantic.hits !== undefined && source.semantic?.key() === semantic.key);
    if (cacheable) cache.set(answerKey(status, policy, body, semantic.key), json);
    return { status, policy, semantic: semantic.key, json, cacheable };
  };

  // The prompt's semantic ranking first (bounded by the stage's own short timeout), then the query's turn.
  const fusedAnswer = async (body: ContextBody, semanticKey: string | null): Promise<Answer> => {
    const hits = semanticKey === null ? undefined : await source.semantic?.rank(body.prompt);
    return queries.run(() => answer(body, hits === undefined ? { key: semanticKey } : { key: semanticKey, hits }));
  };

  addFastLane(
    app,
    contextFastLane((raw) => {
      const status = source.status();
      return unavailable(status) === undefined ? byText.get(textKey(status, source.policy(), raw, source.semantic?.key() ?? null)) : undefined;
    }, onRequest),
  );

  app.post('/v1/context', async (req, res) => {
    if (!req.is('application/json')) throw new ApiError('unsupported_media_type', 'send the request as JSON with Content-Type: application/json', 'header.content-type');
    const body = validate(contextBody, requestBody(req), 'body') as ContextBody;
    // Only an accepted request is integration activity: a refused one changes nothing.
    onRequest();
    const status = available(source.status());
    const policy = source.policy();
    const semanticKey = source.semantic?.key() ?? null;
    const key = answerKey(status, policy, body, semanticKey);
    let result: Answer;
    const cached = cache.get(key);
    if (cached !== undefined) result = { status, policy, semantic: semanticKey, json: cached, cacheable: true };
    else {
      let pending = waiting.get(key);
      if (pending === undefined) {
        pending = (semanticKey === null ? queries.run(() => answer(body, { key: null })) : fusedAnswer(body, semanticKey)).finally(() => waiting.delete(key));
        waiting.set(key, pending);
      }
      result = await pending;
    }
    const raw = (req as RawBodyRequest)[RAW_BODY];
    if (raw !== undefined && result.cacheable) byText.set(textKey(result.status, result.policy, raw, result.semantic), result.json);
    sendJson(res, result.json);
  });
}
