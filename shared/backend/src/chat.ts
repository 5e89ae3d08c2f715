/**
 * The chat seam: one prompt in, one answer out, over any OpenAI-compatible server. Callers (the
 * preparation model assist) see a two-method interface and a `BackendError` with a one-line message,
 * never an SDK error, a stack or the key. No retries: a cycle that cannot reach the model goes on
 * with heuristic cards and asks again next cycle.
 */
import OpenAI from 'openai';
import type { BackendTarget } from './probe';

/** How long one chat completion may take. Small local models on a laptop CPU need tens of seconds. */
export const DEFAULT_CHAT_TIMEOUT_MS = 60_000;
/** Answer length when the caller does not say. */
export const DEFAULT_CHAT_MAX_TOKENS = 512;

export type BackendErrorCode = 'missing_key' | 'unknown_profile' | 'unreachable' | 'timeout' | 'refused' | 'failed' | 'empty' | 'aborted';

/** A backend failure in one line. The message names the endpoint and the variable, never the key. */
export class BackendError extends Error {
  constructor(
    readonly code: BackendErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'BackendError';
  }
}

export interface ChatMessage {
  role: 'system' | 'user';
  content: string;
}

export interface ChatOptions {
  /** Upper bound on the answer. Default `DEFAULT_CHAT_MAX_TOKENS`. */
  maxTokens?: number;
  /** Cancels the request (the cycle's deadline). */
  signal?: AbortSignal;
}

/** Tokens of one completion as the server counted them (the OpenAI `usage` object). */
export interface ChatUsage {
  promptTokens: number;
  completionTokens: number;
}

/** An answer with what it cost: `usage` is null when the server sent none (some local runtimes). */
export interface ChatAnswer {
  text: string;
  usage: ChatUsage | null;
}

export interface ChatClient {
  /** The model answering, for "written by" lines. */
  readonly model: string;
  /** The assistant's text. Throws `BackendError` only. */
  complete(messages: ChatMessage[], options?: ChatOptions): Promise<string>;
  /** The assistant's text and the tokens the server counted (Deep-Run's spend estimate). Throws `BackendError` only. */
  completeWithUsage(messages: ChatMessage[], options?: ChatOptions): Promise<ChatAnswer>;
}

export interface ChatClientOptions {
  /** Per request. Default `DEFAULT_CHAT_TIMEOUT_MS`. */
  timeoutMs?: number;
  /** Where `apiKeyEnv` is looked up. Default `process.env`. */
  env?: NodeJS.ProcessEnv;
}

/**
 * A chat client for `target`. The key is read from the variable named by `target.apiKeyEnv` when the
 * client is created; a named but unset variable fails here, before any request is sent.
 */
export function createChatClient(target: BackendTarget, options: ChatClientOptions = {}): ChatClient {
  const env = options.env ?? process.env;
  const apiKey = target.apiKeyEnv ? env[target.apiKeyEnv] : undefined;
  if (target.apiKeyEnv && !apiKey) {
    throw new BackendError('missing_key', `environment variable ${target.apiKeyEnv} (api_key_env of backend ${target.name}) is not set`);
  }
  const endpoint = safeUrl(target.baseUrl);
  // Local runtimes ignore the key, but the SDK insists on one.
  const timeoutMs = options.timeoutMs ?? DEFAULT_CHAT_TIMEOUT_MS;
  const client = new OpenAI({ baseURL: target.baseUrl, apiKey: apiKey || 'sous-local', timeout: timeoutMs, maxRetries: 0 });
  const completeWithUsage = async (messages: ChatMessage[], chatOptions: ChatOptions = {}): Promise<ChatAnswer> => {
    if (chatOptions.signal?.aborted) throw new BackendError('aborted', `request to ${endpoint} was cancelled`);
    let completion: OpenAI.Chat.Completions.ChatCompletion;
    const started = Date.now();
    try {
      completion = await client.chat.completions.create(
        { model: target.model, messages, max_tokens: chatOptions.maxTokens ?? DEFAULT_CHAT_MAX_TOKENS, stream: false },
        chatOptions.signal ? { signal: chatOptions.signal } : {},
      );
    } catch (err) {
      throw toBackendError(err, { endpoint, model: target.model, apiKey, timedOut: Date.now() - started >= timeoutMs * 0.95 });
    }
    const text = completion.choices?.[0]?.message?.content;
    if (typeof text !== 'string' || text.trim() === '') throw new BackendError('empty', `${endpoint} returned no text for model ${target.model}`);
    return { text, usage: usageOf(completion.usage) };
  };
  return {
    model: target.model,
    completeWithUsage,
    complete: async (messages, chatOptions) => (await completeWithUsage(messages, chatOptions)).text,
  };
}

/** The server's token counts, or null when it sent none or nonsense. */
function usageOf(usage: { prompt_tokens?: unknown; completion_tokens?: unknown } | undefined | null): ChatUsage | null {
  const count = (n: unknown): number | null => (typeof n === 'number' && Number.isInteger(n) && n >= 0 ? n : null);
  const prompt = count(usage?.prompt_tokens);
  const completion = count(usage?.completion_tokens);
  return prompt === null || completion === null ? null : { promptTokens: prompt, completionTokens: completion };
}

/** The `backend.*` and `backends.*` parts of the config this module reads (structurally, to stay free of @sous/config). */
export interface BackendConfigSection {
  backend: { name: string; base_url: string; model: string; api_key_env: string };
  backends: Record<string, { base_url: string; model: string; api_key_env: string }>;
}

/**
 * The target `backend.*` names, or the `[backends.<profile>]` profile when one is given (the
 * `X-Sous-Backend` header). An unknown profile is an error naming the ones that exist.
 */
export function backendTargetFromConfig(config: BackendConfigSection, profile?: string): BackendTarget {
  if (profile === undefined || profile === '') {
    const b = config.backend;
    return { name: b.name, baseUrl: b.base_url, model: b.model, apiKeyEnv: b.api_key_env };
  }
  const p = Object.prototype.hasOwnProperty.call(config.backends, profile) ? config.backends[profile] : undefined;
  if (p === undefined) {
    const known = Object.keys(config.backends).sort();
    throw new BackendError('unknown_profile', `no backend profile "${profile}" (configured: ${known.length ? known.join(', ') : 'none'})`);
  }
  return { name: profile, baseUrl: p.base_url, model: p.model, apiKeyEnv: p.api_key_env };
}

/** What `toBackendError` needs to say what went wrong without the key. */
export interface FailureContext {
  endpoint: string;
  model: string;
  apiKey: string | undefined;
  /** The request lasted (about) the whole timeout. */
  timedOut: boolean;
}

/** An SDK failure as a one-line `BackendError` (shared by the chat and embedding clients). */
export function toBackendError(err: unknown, ctx: FailureContext): BackendError {
  const { endpoint, model, apiKey } = ctx;
  // Order matters: the SDK's abort and connection errors are subclasses of APIError.
  if (err instanceof OpenAI.APIUserAbortError) return new BackendError('aborted', `request to ${endpoint} was cancelled`);
  // The SDK recognises its own timeout by the abort error's name, which is lost when fetch's error
  // comes from another realm (jest's vm) or another fetch; a connection error after the whole timeout is one.
  if (err instanceof OpenAI.APIConnectionTimeoutError || (err instanceof OpenAI.APIConnectionError && ctx.timedOut)) {
    return new BackendError('timeout', `no answer from ${endpoint} within the timeout`);
  }
  if (err instanceof OpenAI.APIConnectionError) return new BackendError('unreachable', `cannot connect to ${endpoint} (is the model runtime running?)`);
  if (err instanceof OpenAI.APIError) {
    const status = err.status;
    if (status === 401 || status === 403) return new BackendError('refused', `${endpoint} refused the request (${status}): check the key`);
    if (status === 404) return new BackendError('failed', `${endpoint} answered 404: is model ${model} available there?`);
    return new BackendError('failed', `${endpoint} answered ${status ?? 'an error'}: ${oneLine(err.message, apiKey)}`);
  }
  return new BackendError('failed', oneLine(err instanceof Error ? err.message : String(err), apiKey));
}

/** First line, bounded, with the key (should a server echo it) blanked out. */
function oneLine(message: string, apiKey: string | undefined): string {
  let line = (message.split('\n')[0] ?? '').slice(0, 200);
  if (apiKey) line = line.split(apiKey).join('***');
  return line || 'the backend failed';
}

/** The endpoint without credentials someone may have put in the URL. */
export function safeUrl(url: string): string {
  try {
    const u = new URL(url);
    u.username = '';
    u.password = '';
    return u.toString().replace(/\/$/, '');
  } catch {
    return '<invalid backend URL>';
  }
}
