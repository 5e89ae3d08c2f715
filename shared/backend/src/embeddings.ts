/**
 * The embedding seam: texts in, one vector per text out, over any OpenAI-compatible
 * `POST /embeddings` (Ollama, LM Studio, llama.cpp, vLLM). Like the chat client: no retries, a
 * timeout per request, and a `BackendError` with a one-line message, never an SDK error or the key.
 */
import OpenAI from 'openai';
import { BackendError, safeUrl, toBackendError } from './chat';
import type { BackendTarget } from './probe';

/** How long one batch may take. A small model on a laptop CPU embeds 32 chunks in a few seconds. */
export const DEFAULT_EMBEDDING_TIMEOUT_MS = 30_000;
/**
 * Texts per request. Local runtimes take a list; 32 chunks of ~1,500 characters stay well under
 * every runtime's request limits and keep one slow request short.
 */
export const DEFAULT_EMBEDDING_BATCH_SIZE = 32;

export interface EmbedOptions {
  /** Cancels the request (the job's signal). */
  signal?: AbortSignal;
  /** Per request, overriding the client's (a query's prompt gets a short one). */
  timeoutMs?: number;
}

export interface EmbeddingClient {
  /** The embedding model, as configured (`exploration.embedding_model`). */
  readonly model: string;
  /** One vector per text, in order; batches of `batchSize` are sent one after another. Throws `BackendError` only. */
  embed(texts: readonly string[], options?: EmbedOptions): Promise<number[][]>;
}

export interface EmbeddingClientOptions {
  /** Per request. Default `DEFAULT_EMBEDDING_TIMEOUT_MS`. */
  timeoutMs?: number;
  /** Texts per request. Default `DEFAULT_EMBEDDING_BATCH_SIZE`. */
  batchSize?: number;
  /** Where `apiKeyEnv` is looked up. Default `process.env`. */
  env?: NodeJS.ProcessEnv;
}

/**
 * An embedding client for `target` (its `model` is the embedding model). The key is read from the
 * variable named by `target.apiKeyEnv` when the client is created; a named but unset variable fails
 * here (`missing_key`), before any request is sent.
 */
export function createEmbeddingClient(target: BackendTarget, options: EmbeddingClientOptions = {}): EmbeddingClient {
  const env = options.env ?? process.env;
  const apiKey = target.apiKeyEnv ? env[target.apiKeyEnv] : undefined;
  if (target.apiKeyEnv && !apiKey) {
    throw new BackendError('missing_key', `environment variable ${target.apiKeyEnv} (api_key_env of backend ${target.name}) is not set`);
  }
  const endpoint = safeUrl(target.baseUrl);
  const clientTimeout = options.timeoutMs ?? DEFAULT_EMBEDDING_TIMEOUT_MS;
  const batchSize = Math.max(1, Math.floor(options.batchSize ?? DEFAULT_EMBEDDING_BATCH_SIZE));
  const client = new OpenAI({ baseURL: target.baseUrl, apiKey: apiKey || 'sous-local', timeout: clientTimeout, maxRetries: 0 });

  const embedBatch = async (input: string[], call: EmbedOptions): Promise<number[][]> => {
    if (call.signal?.aborted) throw new BackendError('aborted', `request to ${endpoint} was cancelled`);
    const timeoutMs = call.timeoutMs ?? clientTimeout;
    const started = Date.now();
    let response: OpenAI.Embeddings.CreateEmbeddingResponse;
    try {
      // `float` explicitly: the SDK otherwise asks for base64, which not every local runtime speaks.
      response = await client.embeddings.create(
        { model: target.model, input, encoding_format: 'float' },
        { timeout: timeoutMs, ...(call.signal ? { signal: call.signal } : {}) },
      );
    } catch (err) {
      throw toBackendError(err, { endpoint, model: target.model, apiKey, timedOut: Date.now() - started >= timeoutMs * 0.95 });
    }
    return vectorsOf(response, input.length, endpoint, target.model);
  };

  return {
    model: target.model,
    async embed(texts, call = {}) {
      const out: number[][] = [];
      for (let i = 0; i < texts.length; i += batchSize) out.push(...(await embedBatch(texts.slice(i, i + batchSize), call)));
      return out;
    },
  };
}

/** The vectors of an answer in input order, checked: one per input, finite numbers, one length. */
function vectorsOf(response: OpenAI.Embeddings.CreateEmbeddingResponse, count: number, endpoint: string, model: string): number[][] {
  const data = Array.isArray(response?.data) ? response.data : [];
  if (data.length === 0) throw new BackendError('empty', `${endpoint} returned no embeddings for model ${model}`);
  if (data.length !== count) throw new BackendError('failed', `${endpoint} returned ${data.length} embeddings for ${count} texts (model ${model})`);
  const out = new Array<number[]>(count);
  for (const [position, item] of data.entries()) {
    // Servers are to answer in input order with `index`; trust `index` when it is there.
    const at = Number.isInteger(item.index) && item.index >= 0 && item.index < count ? item.index : position;
    const vector = item.embedding;
    if (!Array.isArray(vector) || vector.length === 0 || !vector.every((v) => typeof v === 'number' && Number.isFinite(v))) {
      throw new BackendError('failed', `${endpoint} returned an embedding that is not a list of numbers (model ${model})`);
    }
    out[at] = vector;
  }
  const dims = out[0]?.length;
  if (out.some((v) => v === undefined || v.length !== dims)) throw new BackendError('failed', `${endpoint} returned embeddings of different lengths (model ${model})`);
  return out;
}
