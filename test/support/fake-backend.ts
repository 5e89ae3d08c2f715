/**
 * A small OpenAI-compatible HTTP server that answers deterministically: the stand-in for a model
 * runtime (Ollama, LM Studio, a hosted API), which cannot run here. Real HTTP over loopback.
 */
import * as http from 'node:http';
import { createHash } from 'node:crypto';

export interface FakeBackend {
  /** e.g. http://127.0.0.1:54321/v1 */
  baseUrl: string;
  port: number;
  /** Paths requested so far, in order (never bodies). */
  requests: string[];
  /** JSON bodies of chat requests, in order; filled only with `recordBodies`. */
  bodies: unknown[];
  /** Chat completions answered (status 200), to compare with what Sous counted. */
  chatCalls: number;
  /** Tokens reported in the `usage` of the answered chat completions, summed (0 with `usage: 'none'`). */
  chatUsage: { promptTokens: number; completionTokens: number };
  /** Every text sent to POST /v1/embeddings, in order (to count what was embedded, and check what was sent). */
  embedded: string[];
  /** While true, POST /v1/embeddings answers 500 (a runtime that lost its embedding model). */
  failEmbeddings: boolean;
  /** While true, POST /v1/embeddings is never answered (a runtime stuck mid-request); close() ends them. */
  holdEmbeddings: boolean;
  /** How many embedding requests are being held now. */
  held(): number;
  /**
   * While true, a streamed chat answer (`stream: true`) sends its first chunk and then waits for
   * releaseStreams() before the rest and `[DONE]`: proof that a proxy in between flushes chunks.
   */
  holdStreams: boolean;
  /** Streams held open by holdStreams, waiting for releaseStreams(). */
  heldStreams(): number;
  /** Finishes every held stream. */
  releaseStreams(): void;
  close(): Promise<void>;
}

export interface FakeBackendOptions {
  /** Model ids listed by GET /v1/models. Default ['qwen2.5-coder:1.5b', 'all-minilm:latest']. */
  models?: string[];
  /** Require `Authorization: Bearer <key>`; other requests get 401. */
  apiKey?: string;
  /** Keep the JSON body of every chat request in `bodies` (to check what prompts carried). Default false. */
  recordBodies?: boolean;
  /**
   * Scripts the chat answer per request: a string is the answer's content, undefined keeps the
   * default (`fake answer <digest of the messages>`), and a thrown error answers 500 with its message.
   */
  answer?: (request: FakeChatRequest) => string | undefined;
  /** Length of the vectors POST /v1/embeddings answers. Default 128. */
  embeddingDims?: number;
  /**
   * Words the embedding treats as the same (lower-case word → the word it stands for): the stand-in
   * for what a real model learned, so a prompt can be semantically close to code it shares no word with.
   */
  synonyms?: Record<string, string>;
  /** Address to listen on. Default 127.0.0.1; `0.0.0.0` lets containers reach it through the Docker host. */
  host?: string;
  /**
   * The `usage` of chat answers: `fixed` (1 prompt and 1 completion token, the default), `chars` (a
   * token per 4 characters of the messages and of the answer, as a real server roughly counts; the
   * answer is cut at `max_tokens`, as a real server cuts it), or
   * `none` (no usage object, as some local runtimes answer).
   */
  usage?: 'fixed' | 'chars' | 'none';
}

/** The `usage` object the fake reports for one answer, or undefined for none. */
function usageFor(mode: FakeBackendOptions['usage'], messages: Array<{ content: string }>, content: string): { prompt_tokens: number; completion_tokens: number; total_tokens: number } | undefined {
  if (mode === 'none') return undefined;
  if (mode !== 'chars') return { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 };
  const prompt = Math.ceil(messages.reduce((n, m) => n + String(m.content).length, 0) / 4);
  const completion = Math.ceil(content.length / 4);
  return { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion };
}

/** A chat request as the fake backend received it. */
export interface FakeChatRequest {
  model: string;
  messages: Array<{ role: string; content: string }>;
}

function send(res: http.ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

export function startFakeBackend(options: FakeBackendOptions = {}): Promise<FakeBackend> {
  const models = options.models ?? ['qwen2.5-coder:1.5b', 'all-minilm:latest'];
  const requests: string[] = [];
  const bodies: unknown[] = [];
  const embedded: string[] = [];
  const dims = options.embeddingDims ?? 128;
  const synonyms = options.synonyms ?? {};
  const held = new Set<http.ServerResponse>();
  const heldStreams = new Set<() => void>();
  let fake: FakeBackend | undefined;
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    requests.push(`${req.method} ${url.pathname}`);
    if (options.apiKey && req.headers.authorization !== `Bearer ${options.apiKey}`) {
      return send(res, 401, { error: { message: 'invalid api key', type: 'invalid_request_error' } });
    }
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = chunks.length ? (JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>) : {};
      if (req.method === 'GET' && url.pathname === '/v1/models') {
        return send(res, 200, { object: 'list', data: models.map((id) => ({ id, object: 'model', created: 0, owned_by: 'fake' })) });
      }
      if (req.method === 'POST' && url.pathname === '/v1/chat/completions') {
        if (options.recordBodies) bodies.push(body);
        const messages = (body.messages as Array<{ role: string; content: string }> | undefined) ?? [];
        const digest = createHash('sha256').update(JSON.stringify(messages)).digest('hex').slice(0, 12);
        let content: string;
        try {
          content = options.answer?.({ model: String(body.model), messages }) ?? `fake answer ${digest}`;
        } catch (err) {
          return send(res, 500, { error: { message: err instanceof Error ? err.message : String(err), type: 'server_error' } });
        }
        // As a real server does, an answer stops at max_tokens (a token per 4 characters, as `chars` counts).
        if (options.usage === 'chars' && typeof body.max_tokens === 'number' && body.max_tokens > 0) content = content.slice(0, body.max_tokens * 4);
        if (body.stream === true) {
          // OpenAI's stream shape: one chunk per word, a finish chunk, then [DONE].
          const event = (delta: Record<string, string>, finish: string | null = null) =>
            `data: ${JSON.stringify({ id: `chatcmpl-${digest}`, object: 'chat.completion.chunk', created: 0, model: body.model, choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
          const words = content.split(' ');
          res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
          res.write(event({ role: 'assistant', content: words[0] ?? '' }));
          const rest = () => {
            heldStreams.delete(rest);
            for (const word of words.slice(1)) res.write(event({ content: ` ${word}` }));
            res.write(event({}, 'stop'));
            res.end('data: [DONE]\n\n');
          };
          if (fake?.holdStreams) {
            heldStreams.add(rest);
            res.once('close', () => heldStreams.delete(rest));
          } else rest();
          return;
        }
        const usage = usageFor(options.usage, messages, content);
        if (fake) {
          fake.chatCalls += 1;
          fake.chatUsage.promptTokens += usage?.prompt_tokens ?? 0;
          fake.chatUsage.completionTokens += usage?.completion_tokens ?? 0;
        }
        return send(res, 200, {
          id: `chatcmpl-${digest}`, object: 'chat.completion', created: 0, model: body.model,
          choices: [{ index: 0, finish_reason: 'stop', message: { role: 'assistant', content } }],
          ...(usage ? { usage } : {}),
        });
      }
      if (req.method === 'POST' && url.pathname === '/v1/embeddings') {
        const input = Array.isArray(body.input) ? (body.input as string[]) : [String(body.input ?? '')];
        if (fake?.failEmbeddings) return send(res, 500, { error: { message: 'embedding model not loaded', type: 'server_error' } });
        if (fake?.holdEmbeddings) {
          held.add(res);
          res.once('close', () => held.delete(res));
          return;
        }
        embedded.push(...input);
        return send(res, 200, {
          object: 'list', model: body.model,
          data: input.map((text, index) => ({ object: 'embedding', index, embedding: bagOfWords(text, dims, synonyms) })),
          usage: { prompt_tokens: 1, total_tokens: 1 },
        });
      }
      send(res, 404, { error: { message: `no route ${req.method} ${url.pathname}` } });
    });
  });
  return new Promise((resolve) => {
    server.listen(0, options.host ?? '127.0.0.1', () => {
      const port = (server.address() as { port: number }).port;
      fake = {
        baseUrl: `http://127.0.0.1:${port}/v1`,
        port,
        requests,
        bodies,
        chatCalls: 0,
        chatUsage: { promptTokens: 0, completionTokens: 0 },
        embedded,
        failEmbeddings: false,
        holdEmbeddings: false,
        held: () => held.size,
        holdStreams: false,
        heldStreams: () => heldStreams.size,
        releaseStreams: () => [...heldStreams].forEach((finish) => finish()),
        close: () => new Promise<void>((r) => { server.closeAllConnections(); server.close(() => r()); }),
      };
      resolve(fake);
    });
  });
}

const STOPWORDS = new Set(['the', 'a', 'an', 'of', 'to', 'in', 'and', 'or', 'is', 'are', 'we', 'do', 'does', 'where', 'how', 'what', 'which', 'for', 'on', 'it', 'this', 'that', 'with', 'from', 'return', 'export', 'function', 'const', 'import', 'let', 'new']);

/**
 * A deterministic embedding: a bag of the text's words (identifiers split at case changes and
 * underscores, lower-cased, synonyms folded), each word hashed to one signed dimension, normalized.
 * Texts sharing words get similar vectors; texts sharing none are near orthogonal.
 */
export function bagOfWords(text: string, dims: number, synonyms: Record<string, string> = {}): number[] {
  const v = new Array<number>(dims).fill(0);
  const words = text.replace(/([a-z0-9])([A-Z])/g, '$1 $2').toLowerCase().split(/[^a-z0-9]+/);
  for (const word of words) {
    if (word.length < 2 || STOPWORDS.has(word)) continue;
    const h = createHash('sha256').update(synonyms[word] ?? word).digest();
    v[h.readUInt32BE(0) % dims]! += h[4]! & 1 ? 1 : -1;
  }
  const norm = Math.hypot(...v);
  return norm === 0 ? v : v.map((x) => x / norm);
}
