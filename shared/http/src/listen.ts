import * as http from 'node:http';
import * as net from 'node:net';
import type { Express } from 'express';
import { toApiError } from './errors';
import { requestListener } from './fast-lane';

/** The port is taken by another process. `nextFree` is the next port that was free when checked. */
export class PortInUseError extends Error {
  readonly code = 'port_in_use';
  constructor(readonly host: string, readonly port: number, readonly nextFree: number | undefined) {
    super(
      `port ${port} on ${host} is already in use` +
        (nextFree !== undefined ? `; the next free port is ${nextFree}: pin it with --port ${nextFree}` : '; choose another with --port <n>'),
    );
    this.name = 'PortInUseError';
  }
}

/** True when `port` can be bound on `host` right now. */
export function portFree(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = net.createServer();
    probe.once('error', () => resolve(false));
    probe.listen({ host, port, exclusive: true }, () => probe.close(() => resolve(true)));
  });
}

/** The first free port at or after `start` (tries up to `attempts` ports). */
export async function findFreePort(host: string, start: number, attempts = 50): Promise<number | undefined> {
  for (let port = start; port < start + attempts && port <= 65535; port++) {
    if (await portFree(host, port)) return port;
  }
  return undefined;
}

/** Starts `app` on host:port; a busy port rejects with PortInUseError naming the next free port. */
export function listen(app: Express, host: string, port: number): Promise<http.Server> {
  return new Promise((resolve, reject) => {
    const server = http.createServer(requestListener(app));
    server.on('clientError', answerClientError);
    server.once('error', (err: NodeJS.ErrnoException) => {
      if (err.code === 'EADDRINUSE') {
        void findFreePort(host, port + 1).then((next) => reject(new PortInUseError(host, port, next)));
      } else reject(err);
    });
    server.listen({ host, port }, () => resolve(server));
  });
}

/**
 * What node's HTTP parser refuses before express sees a request (an unknown method, a malformed
 * header, headers over the size limit) gets the one JSON error shape too, instead of node's
 * bodiless `400 Bad Request`.
 */
function answerClientError(err: Error & { code?: string; rawPacket?: unknown }, socket: import('node:stream').Duplex): void {
  const started = (socket as { _httpMessage?: { headersSent?: boolean } })._httpMessage?.headersSent === true;
  if (err.code === 'ECONNRESET' || !socket.writable || started) {
    socket.destroy();
    return;
  }
  const apiError = toApiError(err);
  const body = JSON.stringify(apiError.toBody());
  // The answer to a HEAD request has no body (a client would read one as the next response); the
  // packet the parser failed on starts with the request line.
  const head = Buffer.isBuffer(err.rawPacket) && err.rawPacket.subarray(0, 5).toString('latin1') === 'HEAD ';
  socket.end(
    `HTTP/1.1 ${apiError.status} ${http.STATUS_CODES[apiError.status] ?? ''}\r\n` +
      `Content-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${head ? '' : body}`,
  );
}

/** The port a listening server got (useful with port 0 in tests). */
export function boundPort(server: http.Server): number {
  const addr = server.address();
  return typeof addr === 'object' && addr ? addr.port : 0;
}

/** Closes the server, ending idle keep-alive connections so shutdown is not held up. */
export function closeServer(server: http.Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeIdleConnections();
    // Long-lived streams (server-sent events) never end by themselves; a closing server ends them.
    for (const res of openStreams) {
      if ((res.socket as (import('node:net').Socket & { server?: http.Server }) | null)?.server === server) res.end();
    }
  });
}

const openStreams = new Set<http.ServerResponse>();

/** Registers a long-lived response (an event stream) so that `closeServer` ends it instead of waiting forever. */
export function holdStream(res: http.ServerResponse): void {
  openStreams.add(res);
  res.on('close', () => openStreams.delete(res));
}

/** True when host is a loopback address or name. */
export function isLoopbackHost(host: string): boolean {
  return host === 'localhost' || host === '::1' || host.startsWith('127.');
}
