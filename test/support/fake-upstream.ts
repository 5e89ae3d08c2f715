/**
 * A deterministic OpenAI-compatible upstream for the proxy's tests: it records what it received
 * (path, headers, body) and answers chat requests as a model server would, in JSON or as an SSE
 * stream, with tool calls when the request offers tools. The model name scripts failures:
 *  - `*-status-<code>`: answers that status with an OpenAI error body;
 *  - `*-html-<code>`: answers that status with an HTML page (a broken gateway in front of it);
 *  - `*-hang`: never answers (close() ends it);
 *  - `*-cut`: starts a stream, sends one chunk, then drops the connection.
 * Real HTTP over loopback; the stand-in for a model runtime that cannot run here.
 */
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedRequest {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  body: any; // eslint-disable-line @typescript-eslint/no-explicit-any -- parsed JSON as sent
}

export interface FakeUpstream {
  /** e.g. http://127.0.0.1:5555/v1 */
  baseUrl: string;
  received: ReceivedRequest[];
  /** Held (`*-hang`) requests whose connection the proxy closed. */
  abandoned: number;
  /** The answer text chat requests get (split into `chunks` stream events). */
  answer: string;
  close(): Promise<void>;
}

export interface FakeUpstreamOptions {
  /** Name shown in answers (`model` is echoed; this is `system_fingerprint`) to tell upstreams apart. */
  name: string;
  models?: string[];
  /** Stream events an answer is split into. Default 4. */
  chunks?: number;
}

function chunkText(text: string, n: number): string[] {
  const size = Math.ceil(text.length / n);
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out;
}

export async function startFakeUpstream(options: FakeUpstreamOptions): Promise<FakeUpstream> {
  const received: ReceivedRequest[] = [];
  const hanging = new Set<http.ServerResponse>();
  const fake: Partial<FakeUpstream> = { received, answer: `answer from ${options.name}`, abandoned: 0 };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const body = text ? JSON.parse(text) : undefined;
      const path = new URL(req.url ?? '/', 'http://x').pathname;
      received.push({ method: req.method ?? 'GET', path, headers: req.headers, body });
      if (req.method === 'GET' && path === '/v1/models') {
        res.writeHead(200, { 'content-type': 'application/json', 'x-upstream': options.name });
        res.end(JSON.stringify({ object: 'list', data: (options.models ?? ['fake-model']).map((id) => ({ id, object: 'model', created: 0, owned_by: options.name })) }));
        return;
      }
      if (req.method !== 'POST' || path !== '/v1/chat/completions') {
        res.writeHead(404, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { message: `no route ${path}`, type: 'invalid_request_error', code: null, param: null } }));
        return;
      }
      const model = String(body.model);
      const status = /-status-(\d{3})$/.exec(model);
      if (status) {
        res.writeHead(Number(status[1]), { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { message: `scripted ${status[1]} from ${options.name}`, type: 'rate_limit_error', code: 'scripted', param: null } }));
        return;
      }
      const html = /-html-(\d{3})$/.exec(model);
      if (html) {
        res.writeHead(Number(html[1]), { 'content-type': 'text/html' });
        res.end('<html><body><h1>Bad Gateway</h1></body></html>');
        return;
      }
      if (model.endsWith('-cut')) {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write(`data: ${JSON.stringify({ id: 'cut', object: 'chat.completion.chunk', created: 1, model, choices: [{ index: 0, delta: { content: 'partial' }, finish_reason: null }] })}\n\n`);
        setTimeout(() => res.socket?.destroy(), 50);
        return;
      }
      if (model.endsWith('-hang')) {
        hanging.add(res);
        res.once('close', () => {
          if (!res.writableEnded) fake.abandoned = (fake.abandoned ?? 0) + 1;
        });
        return;
      }
      const id = `chatcmpl-${received.length}`;
      const tools = Array.isArray(body.tools) && body.tools.length > 0 ? (body.tools as Array<{ function: { name: string } }>) : undefined;
      const call = tools === undefined ? undefined : { id: 'call_1', type: 'function' as const, function: { name: tools[0]!.function.name, arguments: '{"path":"src/parser.ts"}' } };
      const base = { id, created: 1, model, system_fingerprint: options.name };
      if (body.stream === true) {
        res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
        const events: unknown[] = [];
        if (call) {
          events.push({ ...base, object: 'chat.completion.chunk', choices: [{ index: 0, delta: { role: 'assistant', content: null, tool_calls: [{ index: 0, id: call.id, type: 'function', function: { name: call.function.name, arguments: '' } }] }, finish_reason: null }] });
          for (const part of chunkText(call.function.arguments, 3)) events.push({ ...base, object: 'chat.completion.chunk', choices: [{ index: 0, delta: { tool_calls: [{ index: 0, function: { arguments: part } }] }, finish_reason: null }] });
          events.push({ ...base, object: 'chat.completion.chunk', choices: [{ index: 0, delta: {}, finish_reason: 'tool_calls' }] });
        } else {
          for (const part of chunkText(fake.answer as string, options.chunks ?? 4)) events.push({ ...base, object: 'chat.completion.chunk', choices: [{ index: 0, delta: { content: part }, finish_reason: null }] });
          events.push({ ...base, object: 'chat.completion.chunk', choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] });
        }
        for (const e of events) res.write(`data: ${JSON.stringify(e)}\n\n`);
        res.end('data: [DONE]\n\n');
        return;
      }
      const message = call ? { role: 'assistant', content: null, tool_calls: [call] } : { role: 'assistant', content: fake.answer };
      res.writeHead(200, { 'content-type': 'application/json', 'x-upstream': options.name });
      res.end(JSON.stringify({ ...base, object: 'chat.completion', choices: [{ index: 0, message, finish_reason: call ? 'tool_calls' : 'stop' }], usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 } }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return Object.assign(fake, {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    close: async () => {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  }) as FakeUpstream;
}
