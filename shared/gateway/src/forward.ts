/**
 * The pass-through to an upstream, on undici (docs/proxy.md#streaming): the upstream's status, headers
 * and body go back to the client as they arrive. A stream is piped chunk by chunk with backpressure,
 * never collected; a client that hangs up aborts the upstream request. Upstream failures become the
 * OpenAI-shaped errors of errors.ts.
 */
import type * as http from 'node:http';
import { Agent, errors as undiciErrors, type Dispatcher } from 'undici';
import { GatewayError } from './errors';
import type { Upstream, UpstreamTarget } from './routing';

/** Response headers as undici parses them (names lower-cased, repeated ones as arrays). */
type IncomingHttpHeaders = Record<string, string | string[] | undefined>;

/** Largest upstream error body read to pass back (bytes); an error body is never streamed. */
const MAX_ERROR_BODY_BYTES = 64 * 1024;

/** Hop-by-hop headers (RFC 9110 7.6.1) and those this proxy sets itself: never copied across. */
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'proxy-authorization', 'te', 'trailer', 'transfer-encoding', 'upgrade', 'host', 'content-length', 'expect']);

export interface ForwardRequest {
  upstream: Upstream;
  /** Where to send it (routing.ts upstreamTarget: parsed once per base URL). */
  target: UpstreamTarget;
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

function answerHeadersFrom(upstream: IncomingHttpHeaders, extra: Record<string, string>): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(upstream)) if (value !== undefined && !HOP_BY_HOP.has(name) && !name.startsWith('x-sous-')) out[name] = value;
  const length = upstream['content-length'];
  if (typeof length === 'string') out['content-length'] = length;
  for (const name in extra) out[name] = extra[name] as string;
  return out;
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

/**
 * One forwarded request as undici dispatch callbacks, writing straight into the client's response.
 * Why not `agent.stream`: its AsyncResource, AbortSignal and `finished` listeners add CPU to every
 * request that a relay does not need; these callbacks keep only what the relay does.
 *  - 2xx/3xx: status and headers go back when they arrive, each body chunk is written at once
 *    (an SSE stream chunk by chunk), undici pauses while the client's socket is full;
 *  - 4xx/5xx: at most MAX_ERROR_BODY_BYTES are collected and sent back in OpenAI's shape;
 *  - a failure after an SSE stream started ends it with one last event carrying the error (an OpenAI
 *    client reports it); a JSON answer is cut instead (a truncated body must not look whole);
 *  - the client hanging up aborts the upstream request (a model generating for nobody).
 */
class Relay implements Dispatcher.DispatchHandler {
  private status = 0;
  private upstreamMs = 0;
  private controller: Dispatcher.DispatchController | undefined;
  /** Set when the client left before undici took the request: aborted as soon as it does. */
  private pendingAbort: Error | undefined;
  private errorChunks: Buffer[] | undefined;
  private errorSize = 0;
  private sse = false;
  private settled = false;

  constructor(
    private readonly res: http.ServerResponse,
    private readonly req: ForwardRequest,
    private readonly sent: number,
    private readonly resolve: (outcome: ForwardOutcome) => void,
    private readonly reject: (err: unknown) => void,
  ) {
    res.once('close', this.onClientClose);
  }

  /** The response closed: after a complete answer that is the end; before it, the client hung up. */
  private readonly onClientClose = (): void => {
    if (this.settled) return;
    if (this.res.writableFinished) return this.settle({ status: this.status, upstreamMs: this.upstreamMs });
    // Settled first: the abort calls onResponseError at once, which must not report an upstream failure.
    this.settle({ status: 499, upstreamMs: performance.now() - this.sent });
    const gone = new undiciErrors.RequestAbortedError();
    if (this.controller !== undefined) this.controller.abort(gone);
    else this.pendingAbort = gone;
  };

  private readonly onDrain = (): void => this.controller?.resume();

  private settle(outcome: ForwardOutcome | undefined, err?: unknown): void {
    if (this.settled) return;
    this.settled = true;
    this.res.off('close', this.onClientClose);
    if (outcome !== undefined) this.resolve(outcome);
    else this.reject(err);
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.controller = controller;
    if (this.pendingAbort !== undefined) controller.abort(this.pendingAbort);
  }

  onResponseStart(controller: Dispatcher.DispatchController, statusCode: number, headers: IncomingHttpHeaders): void {
    if (statusCode < 200 || this.settled) return; // 1xx: informational, the real answer follows
    this.status = statusCode;
    this.upstreamMs = performance.now() - this.sent;
    if (statusCode >= 400) {
      this.errorChunks = [];
      return;
    }
    this.sse = String(headers['content-type'] ?? '').startsWith('text/event-stream');
    this.res.writeHead(statusCode, answerHeadersFrom(headers, this.req.answerHeaders()));
  }

  onResponseData(controller: Dispatcher.DispatchController, chunk: Buffer): void {
    if (this.settled) return;
    if (this.errorChunks !== undefined) {
      if (this.errorSize < MAX_ERROR_BODY_BYTES) {
        const part = chunk.subarray(0, MAX_ERROR_BODY_BYTES - this.errorSize);
        this.errorChunks.push(part);
        this.errorSize += part.length;
      }
      return;
    }
    if (!this.res.write(chunk)) {
      controller.pause();
      this.res.once('drain', this.onDrain);
    }
  }

  onResponseEnd(): void {
    if (this.settled) return;
    if (this.errorChunks !== undefined) return this.sendErrorBody();
    // Settled by onClientClose once the answer is flushed (or the client left during the flush: 499).
    this.res.end();
  }

  onResponseError(_controller: Dispatcher.DispatchController | undefined, err: Error): void {
    if (this.settled) return;
    const { res, req } = this;
    if (this.status === 0) {
      if (err instanceof undiciErrors.InvalidArgumentError || err instanceof undiciErrors.NotSupportedError) return this.settle(undefined, new GatewayError('invalid_request', `the request cannot be forwarded: ${err.message}`, 'header'));
      return this.settle(undefined, upstreamFailure(err, req.upstream, req.timeoutMs));
    }
    // An error answer cut short: what arrived of it is passed back.
    if (this.errorChunks !== undefined) return this.sendErrorBody();
    const outcome = { status: this.status, upstreamMs: this.upstreamMs };
    this.settle(outcome);
    if (res.writableEnded || res.destroyed) return;
    if (this.sse) res.end(`data: ${JSON.stringify(upstreamFailure(err, req.upstream, req.timeoutMs).toBody())}\n\n`);
    else res.destroy();
  }

  private sendErrorBody(): void {
    const { res, req, status } = this;
    this.settle({ status, upstreamMs: this.upstreamMs });
    const text = openAiErrorText(Buffer.concat(this.errorChunks ?? []).toString('utf8'), status, req.upstream);
    res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text), ...req.answerHeaders() });
    res.end(text);
  }
}

/** One pool of keep-alive connections per upstream origin, for the life of the proxy. */
export class Forwarder {
  private readonly agent = new Agent({ keepAliveTimeout: 30_000, connections: 256, pipelining: 1 });

  /**
   * Sends the request upstream and the answer to `res`; resolves when the answer is complete or the
   * client left (status 499), rejects with a GatewayError when no answer started.
   */
  forward(res: http.ServerResponse, req: ForwardRequest): Promise<ForwardOutcome> {
    const sent = performance.now();
    return new Promise<ForwardOutcome>((resolve, reject) => {
      const relay = new Relay(res, req, sent, resolve, reject);
      this.agent.dispatch({ origin: req.target.origin, path: req.target.path, method: req.method, headers: headersFor(req), body: req.body ?? null, headersTimeout: req.timeoutMs, bodyTimeout: req.timeoutMs }, relay);
    });
  }

  close(): Promise<void> {
    return this.agent.close();
  }
}
