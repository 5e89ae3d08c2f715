/**
 * The fast lane of `POST /v1/chat/completions` (@sous/http fast-lane.ts): the proxy sits in front of
 * every model call, so its own time must stay well under a millisecond, and on a shared 2-core machine
 * express's middleware chain alone costs more than that. A plain request (exact path, a JSON body of
 * known length, no content encoding) is read and parsed here, with the same Host/Origin guards (the
 * lane runs only when they pass), the same size limit and the same refusals as the app
 * (invalid JSON, forbidden keys, NUL characters); anything else goes through express unchanged.
 */
import type * as http from 'node:http';
import type { Express } from 'express';
import { addFastLane, refuseUnsafeJson } from '@sous/http';
import { ApiError } from '@sous/protocol';
import { sendOpenAiError } from './errors';

const JSON_UTF8 = /^application\/json\s*(?:;\s*charset="?utf-8"?\s*)?$/i;

export type ChatHandler = (req: http.IncomingMessage, res: http.ServerResponse, parsed: unknown, started: number) => Promise<void>;

export function chatFastLane(app: Express, limitBytes: number, chat: ChatHandler): void {
  addFastLane(app, (req, res) => {
    if (req.method !== 'POST' || req.url !== '/v1/chat/completions') return false;
    const length = Number(req.headers['content-length']);
    if (!(length > 0 && length <= limitBytes) || req.headers['transfer-encoding'] !== undefined || req.headers['content-encoding'] !== undefined) return false;
    if (!JSON_UTF8.test(req.headers['content-type'] ?? '')) return false;
    const started = performance.now();
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      chunks.push(chunk);
    });
    req.on('error', () => undefined); // a client that hangs up mid-body: nothing to answer
    req.on('end', () => {
      if (size !== length) return sendOpenAiError(res, new ApiError('invalid_body', 'request body ended before the length its Content-Length header announced', 'header.content-length'));
      let parsed: unknown;
      try {
        const text = (chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks)).toString('utf8');
        // body-parser's `strict`: only an object or an array at the top.
        const first = /\S/.exec(text)?.[0];
        if (first !== '{' && first !== '[') throw new SyntaxError('not an object or array');
        parsed = JSON.parse(text) as unknown;
      } catch {
        return sendOpenAiError(res, new ApiError('invalid_json', 'request body is not valid JSON; send a JSON object with Content-Type: application/json', 'body'));
      }
      try {
        refuseUnsafeJson(parsed, 'body');
      } catch (err) {
        return sendOpenAiError(res, err);
      }
      void chat(req, res, parsed, started);
    });
    return true;
  });
}
