import type { Express } from 'express';
import { ENGINE_EVENT_TYPES } from '@sous/engine';
import { holdStream } from '@sous/http';
import type { DaemonContext } from '../daemon';

/** A comment line this often keeps proxies and idle timeouts from closing a quiet stream. */
const HEARTBEAT_MS = 15_000;

/**
 * `GET /events` — the live server-sent event stream of engine activity (spec 6.7) for the cockpit
 * and `sous watch`. One SSE event per engine event: `event: <type>`, `data: <JSON>`
 * (docs/prepared-work.md lists names and payloads). Ids, kinds and titles only; never contents.
 */
export function eventRoutes(app: Express, ctx: DaemonContext): void {
  app.get('/events', (req, res) => {
    const head = {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache, no-transform',
      connection: 'keep-alive',
      'x-accel-buffering': 'no',
    };
    // HEAD (express routes it here): the head is the whole answer. Node ignores a HEAD response's
    // writes and would never send it, so the stream would hang until the client gave up.
    if (req.method === 'HEAD') {
      res.writeHead(200, head).end();
      return;
    }
    res.writeHead(200, head);
    holdStream(res);
    res.write(`event: hello\ndata: ${JSON.stringify({ workspace: ctx.paths.root, events: ENGINE_EVENT_TYPES })}\n\n`);
    const unsubscribe = ctx.preparation.events.subscribe((event) => {
      res.write(`event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`);
    });
    const heartbeat = setInterval(() => res.write(': keep-alive\n\n'), HEARTBEAT_MS);
    heartbeat.unref();
    req.on('close', () => {
      clearInterval(heartbeat);
      unsubscribe();
    });
  });
}
