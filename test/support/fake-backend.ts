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
        return send(res, 200, {
          id: `chatcmpl-${digest}`, object: 'chat.completion', created: 0, model: body.model,
          choices: [{ index: 0, finish_reason: 'stop', message: { role: 'assistant', content } }],
          usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
        });
      }
      if (req.method === 'POST' && url.pathname === '/v1/embeddings') {
        const input = Array.isArray(body.input) ? (body.input as string[]) : [String(body.input ?? '')];
        return send(res, 200, {
          object: 'list', model: body.model,
          data: input.map((text, index) => ({ object: 'embedding', index, embedding: embed(text) })),
          usage: { prompt_tokens: 1, total_tokens: 1 },
        });
      }
      send(res, 404, { error: { message: `no route ${req.method} ${url.pathname}` } });
    });
  });
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      const port = (server.address() as { port: number }).port;
      resolve({
        baseUrl: `http://127.0.0.1:${port}/v1`,
        port,
        requests,
        bodies,
        close: () => new Promise<void>((r) => { server.closeAllConnections(); server.close(() => r()); }),
      });
    });
  });
}

/** A deterministic 8-dimensional vector from the text's hash. */
function embed(text: string): number[] {
  const h = createHash('sha256').update(text).digest();
  return Array.from({ length: 8 }, (_, i) => (h[i] ?? 0) / 255);
}
