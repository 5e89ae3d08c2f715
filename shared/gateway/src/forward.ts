/**
 * The pass-through to an upstream, on undici (docs/proxy.md#streaming): the upstream's status, headers
 * and body go back to the client as they arrive. A stream is piped chunk by chunk with backpressure,
 * never collected; a client that hangs up aborts the upstream request. Upstream failures become the
 * OpenAI-shaped errors of errors.ts.
 */
import type * as http from 'node:http';
import { Writable } from 'node:stream';
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

/** Collects at most MAX_ERROR_BODY_BYTES of an upstream error body (an error is never streamed). */
class ErrorBody extends Writable {
  private readonly chunks: Buffer[] = [];
  private size = 0;
  override _write(chunk: Buffer, _encoding: BufferEncoding, done: (err?: Error | null) => void): void {
    if (this.size < MAX_ERROR_BODY_BYTES) {
      const part = chunk.subarray(0, MAX_ERROR_BODY_BYTES - this.size);
      this.chunks.push(part);
      this.size += part.length;
    }
    done();
  }
  text(): string {
    return Buffer.concat(this.chunks).toString('utf8');
  }
}

/**
 * Relays an SSE stream to the client chunk by chunk (with the client's backpressure). When the
 * upstream fails mid-stream it ends the stream with one last event carrying the error, which an
 * OpenAI client reports, instead of a bare reset.
 */
class SseRelay extends Writable {
  constructor(
    private readonly res: http.ServerResponse,
    private readonly failure: (err: Error) => GatewayError,
  ) {
    super();
  }
  override _write(chunk: Buffer, _encoding: BufferEncoding, done: (err?: Error | null) => void): void {
    if (this.res.write(chunk)) done();
    else this.res.once('drain', () => done());
  }
  override _final(done: (err?: Error | null) => void): void {
    this.res.end();
    done();
  }
  override _destroy(err: Error | null, done: (err?: Error | null) => void): void {
    if (!this.res.writableEnded && !this.res.destroyed) {
      if (err) this.res.end(`data: ${JSON.stringify(this.failure(err).toBody())}\n\n`);
      else this.res.destroy();
    }
    done(err);
  }
}

/** An upstream's error answer as an OpenAI-shaped body: passed as it came when it is one already. */
function openAiErrorText(text: string, status: number, upstream: Upstream): string {
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

  /**
   * Sends the request upstream and the answer to `res` (undici's `stream`: the body is written
   * straight into the response, no intermediate stream); resolves when the answer is complete or
   * the client left.
   */
  async forward(res: http.ServerResponse, req: ForwardRequest): Promise<ForwardOutcome> {
    const sent = performance.now();
    const abort = new AbortController();
    let status = 0;
    let upstreamMs = 0;
    let errorBody: ErrorBody | undefined;
    let relay: SseRelay | undefined;
    // The client hung up: stop the upstream work too (a model generating for nobody).
    const onClose = () => {
      if (!res.writableFinished) abort.abort();
      relay?.destroy();
    };
    res.once('close', onClose);
    try {
      await this.agent.stream(
        {
          origin: req.url.origin,
          path: req.url.pathname + req.url.search,
          method: req.method,
          headers: headersFor(req),
          ...(req.body !== undefined ? { body: req.body } : {}),
          headersTimeout: req.timeoutMs,
          bodyTimeout: req.timeoutMs,
          signal: abort.signal,
        },
        ({ statusCode, headers }) => {
          status = statusCode;
          upstreamMs = performance.now() - sent;
          if (statusCode >= 400) return (errorBody = new ErrorBody());
          res.writeHead(statusCode, answerHeadersFrom(headers, req.answerHeaders()));
          if (!String(headers['content-type'] ?? '').startsWith('text/event-stream')) return res;
          return (relay = new SseRelay(res, (err) => upstreamFailure(err, req.upstream, req.timeoutMs)));
        },
      );
    } catch (err) {
      if (abort.signal.aborted) return { status: 499, upstreamMs: performance.now() - sent };
      if (status === 0) {
        if (err instanceof undiciErrors.InvalidArgumentError || err instanceof undiciErrors.NotSupportedError) throw new GatewayError('invalid_request', `the request cannot be forwarded: ${err.message}`, 'header');
        throw upstreamFailure(err, req.upstream, req.timeoutMs);
      }
      // Failed after the answer started: a stream got its last error event (SseRelay); a JSON answer
      // was cut by undici destroying the response (a truncated body must not look whole).
      if (errorBody === undefined) return { status, upstreamMs };
    } finally {
      res.off('close', onClose);
    }
    if (errorBody !== undefined) {
      const text = openAiErrorText(errorBody.text(), status, req.upstream);
      res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text), ...req.answerHeaders() });
      res.end(text);
    }
    return { status, upstreamMs };
  }

  close(): Promise<void> {
    return this.agent.close();
  }
}
