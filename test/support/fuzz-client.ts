/**
 * Sends fuzz requests over real loopback HTTP (one connection each, so a request that confuses the
 * server cannot leak into the next) and judges the answers: no status >= 500, every 4xx in the one
 * JSON error shape, every state-changing request refused.
 */
import * as http from 'node:http';
import { SAFE_METHODS, type FuzzRequest } from './fuzz-http';

export interface FuzzResponse {
  status: number;
  contentType: string;
  text: string;
}

/** The paths where the MCP transports answer with JSON-RPC errors (`{jsonrpc, error: {code: number, message}}`). */
const MCP_PATHS = /^\/(mcp|sse|messages)(\/|\?|$)/i;

/** Sends `req`; resolves with the answer, or rejects when none came within `timeoutMs`. */
export function send(req: FuzzRequest, timeoutMs: number): Promise<FuzzResponse> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string | number> = { ...req.headers };
    if (req.body !== undefined) {
      if (req.chunked) headers['transfer-encoding'] = 'chunked';
      else headers['content-length'] = req.body.length;
    }
    let answered = false;
    let out: http.ClientRequest;
    try {
      out = http.request({ host: '127.0.0.1', port: req.port, method: req.method, path: req.path, headers, setHost: false, agent: false }, (res) => {
        const contentType = String(res.headers['content-type'] ?? '');
        // An event stream never ends by itself: its status and type are the answer.
        if (contentType.startsWith('text/event-stream')) {
          answered = true;
          resolve({ status: res.statusCode ?? 0, contentType, text: '' });
          res.destroy();
          out.destroy();
          return;
        }
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (c: Buffer) => {
          size += c.length;
          if (size <= 4 * 1024 * 1024) chunks.push(c);
        });
        res.on('end', () => {
          answered = true;
          resolve({ status: res.statusCode ?? 0, contentType, text: Buffer.concat(chunks).toString('utf8') });
        });
        res.on('error', (err) => {
          if (!answered) reject(err);
        });
      });
    } catch (err) {
      reject(new Error(`the fuzz client could not send this request: ${err instanceof Error ? err.message : String(err)}`));
      return;
    }
    out.setTimeout(timeoutMs, () => out.destroy(new Error(`no answer within ${timeoutMs} ms`)));
    out.on('error', (err: NodeJS.ErrnoException) => {
      if (answered) return;
      // The server may answer and close while a big body is still being written: wait for that answer.
      if ((err.code === 'EPIPE' || err.code === 'ECONNRESET') && out.writableFinished === false) return;
      reject(err);
    });
    out.on('close', () => {
      if (!answered) setImmediate(() => reject(new Error('connection closed without an answer')));
    });
    if (req.body !== undefined) {
      if (req.chunked && req.body.length > 1) {
        const half = Math.floor(req.body.length / 2);
        out.write(req.body.subarray(0, half));
        out.write(req.body.subarray(half));
      } else out.write(req.body);
    }
    out.end();
  });
}

/** What is wrong with the answer to `req`, or undefined when it is acceptable. */
export function answerProblem(req: Pick<FuzzRequest, 'method' | 'path' | 'defects'>, res: FuzzResponse): string | undefined {
  if (res.status >= 500) return `status ${res.status}`;
  if (!SAFE_METHODS.has(req.method) && req.defects.length > 0 && res.status < 400) return `status ${res.status} for a request that must be refused (${req.defects.join(', ')})`;
  if (res.status < 400 || req.method === 'HEAD') return undefined;
  if (!res.contentType.startsWith('application/json')) return `status ${res.status} with Content-Type ${JSON.stringify(res.contentType)} instead of JSON`;
  let body: { error?: { code?: unknown; message?: unknown }; jsonrpc?: unknown };
  try {
    body = JSON.parse(res.text) as typeof body;
  } catch {
    return `status ${res.status} with a body that is not JSON`;
  }
  const message = body?.error?.message;
  if (typeof message !== 'string' || message.length < 5) return `status ${res.status} without error.message`;
  const code = body.error?.code;
  if (typeof code === 'string') return undefined;
  // The MCP transports answer in JSON-RPC's own error shape (numeric codes), as MCP clients expect.
  if (MCP_PATHS.test(req.path) && body.jsonrpc === '2.0' && typeof code === 'number') return undefined;
  return `status ${res.status} without a string error.code`;
}

/** One line that lets a failure be read and replayed. */
export function describe(index: number, req: FuzzRequest, outcome: string): string {
  const body = req.body === undefined ? '' : ` body(${req.body.length} B)=${JSON.stringify(req.body.subarray(0, 160).toString('latin1'))}`;
  const headers = Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, v.length > 80 ? `${v.slice(0, 80)}…(${v.length})` : v]));
  const path = req.path.length > 160 ? `${req.path.slice(0, 160)}…(${req.path.length})` : req.path;
  return `#${index} ${req.target} [${req.route}] ${req.method} ${path} ${JSON.stringify(headers)}${req.chunked ? ' chunked' : ''}${body} defects=[${req.defects.join('; ')}] → ${outcome}`;
}
