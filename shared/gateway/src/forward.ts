/**
 * The pass-through to an upstream, on undici (docs/proxy.md#streaming): the upstream's status, headers
 * and body go back to the client as they arrive. A stream is piped chunk by chunk with backpressure,
 * never collected; a client that hangs up aborts the upstream request. Upstream failures become the
 * OpenAI-shaped errors of errors.ts.
 */
import type * as http from 'node:http';
import { Agent, errors as undiciErrors, type Dispatcher } from 'undici';
import { GatewayError } from './errors';
import type { Upstream } from './routing';

/** Largest upstream error body read to pass back (bytes); an error body is never streamed. */
const MAX_ERROR_BODY_BYTES = 64 * 1024;

/** Hop-by-hop headers (RFC 9110 7.6.1) and those this proxy sets itself: never copied across. */
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'proxy-authorization', 'te', 'trailer', 'transfer-encoding', 'upgrade', 'host', 'content-length', 'expect']);

export interface ForwardRequest {
  upstream: Upstream;
  /** The upstream URL to call. */
  url: URL;
  method: 'GET' | 'POST';
  /** The client's request headers (filtered here). */
  clientHeaders: http.IncomingHttpHeaders;
  /** Forward the client's Authorization header when the upstream has no key of its own. */
  forwardClientAuthorization: boolean;
  body?: string;
  timeoutMs: number;
  /** Headers added to the answer, computed when the upstream's headers arrive (the overhead header). */
  answerHeaders: () => Record<string, string>;
}

/** What was forwarded, for the trace. */
export interface ForwardOutcome {
  status: number;
  /** Milliseconds from sending the request to the upstream's headers. */
  upstreamMs: number;
}

function headersFor(req: ForwardRequest): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.clientHeaders)) {
    if (value === undefined || HOP_BY_HOP.has(name) || name === 'authorization' || name.startsWith('x-sous-')) continue;
    out[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  if (req.upstream.apiKey !== undefined) out.authorization = `Bearer ${req.upstream.apiKey}`;
  else if (req.forwardClientAuthorization && typeof req.clientHeaders.authorization === 'string') out.authorization = req.clientHeaders.authorization;
  if (req.body !== undefined) out['content-type'] = 'application/json';
  return out;
}

function answerHeadersFrom(upstream: Dispatcher.ResponseData['headers'], extra: Record<string, string>): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(upstream)) if (value !== undefined && !HOP_BY_HOP.has(name) && !name.startsWith('x-sous-')) out[name] = value;
  const length = upstream['content-length'];
  if (typeof length === 'string') out['content-length'] = length;
  return { ...out, ...extra };
}

/** An undici failure as the error the client sees: unreachable (502) or timed out (504). */
export function upstreamFailure(err: unknown, upstream: Upstream, timeoutMs: number): GatewayError {
  const where = `upstream ${upstream.name} (${upstream.baseUrl})`;
  if (err instanceof undiciErrors.HeadersTimeoutError || err instanceof undiciErrors.BodyTimeoutError || err instanceof undiciErrors.ConnectTimeoutError) {
    return new GatewayError('upstream_timeout', `${where} did not answer within ${timeoutMs / 1000} s (gateway.upstream_timeout_seconds)`, 'upstream');
  }
  const code = (err as { code?: string; cause?: { code?: string } }).cause?.code ?? (err as { code?: string }).code ?? 'error';
  return new GatewayError('upstream_unreachable', `${where} cannot be reached (${code}); check that it runs and the URL in the config`, 'upstream');
}

/** Reads at most MAX_ERROR_BODY_BYTES of an upstream body. */
async function readCapped(body: Dispatcher.ResponseData['body']): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    const buf = chunk as Buffer;
    if (size + buf.length > MAX_ERROR_BODY_BYTES) {
      chunks.push(buf.subarray(0, MAX_ERROR_BODY_BYTES - size));
      body.destroy();
      break;
    }
    chunks.push(buf);
    size += buf.length;
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** An upstream's error answer as an OpenAI-shaped body: passed as it came when it is one already. */
function errorBody(text: string, status: number, upstream: Upstream): string {
  try {
    const json = JSON.parse(text) as { error?: { message?: unknown } };
    if (typeof json?.error?.message === 'string') return text;
  } catch {
    // not JSON: wrapped below
  }
  const excerpt = text.replace(/\s+/g, ' ').trim().slice(0, 200);
  return JSON.stringify({ error: { message: `upstream ${upstream.name} answered ${status}${excerpt ? `: ${excerpt}` : ''}`, type: 'api_error', code: 'upstream_error', param: null } });
}

/** One pool of keep-alive connections per upstream origin, for the life of the proxy. */
export class Forwarder {
  private readonly agent = new Agent({ keepAliveTimeout: 30_000, connections: 256, pipelining: 1 });

  /** Sends the request upstream and the answer to `res`; resolves when the answer is complete or the client left. */
  async forward(res: http.ServerResponse, req: ForwardRequest): Promise<ForwardOutcome> {
    const sent = performance.now();
    const abort = new AbortController();
    // The client hung up: stop the upstream work too (a model generating for nobody).
    const onClose = () => {
      if (!res.writableFinished) abort.abort();
    };
    res.once('close', onClose);
    let answer: Dispatcher.ResponseData;
    try {
      answer = await this.agent.request({
        origin: req.url.origin,
        path: req.url.pathname + req.url.search,
        method: req.method,
        headers: headersFor(req),
        ...(req.body !== undefined ? { body: req.body } : {}),
        headersTimeout: req.timeoutMs,
        bodyTimeout: req.timeoutMs,
        signal: abort.signal,
      });
    } catch (err) {
      res.off('close', onClose);
      if (abort.signal.aborted) return { status: 499, upstreamMs: performance.now() - sent };
      if (err instanceof undiciErrors.InvalidArgumentError || err instanceof undiciErrors.NotSupportedError) throw new GatewayError('invalid_request', `the request cannot be forwarded: ${err.message}`, 'header');
      throw upstreamFailure(err, req.upstream, req.timeoutMs);
    }
    const upstreamMs = performance.now() - sent;
    const status = answer.statusCode;
    if (status >= 400) {
      const text = errorBody(await readCapped(answer.body).catch(() => ''), status, req.upstream);
      res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text), ...req.answerHeaders() });
      res.end(text);
      res.off('close', onClose);
      return { status, upstreamMs };
    }
    res.writeHead(status, answerHeadersFrom(answer.headers, req.answerHeaders()));
    const streaming = String(answer.headers['content-type'] ?? '').startsWith('text/event-stream');
    await new Promise<void>((resolve) => {
      const body = answer.body;
      body.once('end', () => {
        res.end();
        resolve();
      });
      body.once('error', (err) => {
        // Headers are sent: a stream gets a last SSE event saying what failed; a JSON answer is cut (a truncated body must not look whole).
        if (streaming && !res.destroyed) res.end(`data: ${JSON.stringify(upstreamFailure(err, req.upstream, req.timeoutMs).toBody())}\n\n`);
        else res.destroy();
        resolve();
      });
      res.once('close', () => {
        if (!body.destroyed) body.destroy();
        resolve();
      });
      body.pipe(res, { end: false });
    });
    res.off('close', onClose);
    return { status, upstreamMs };
  }

  close(): Promise<void> {
    return this.agent.close();
  }
}
