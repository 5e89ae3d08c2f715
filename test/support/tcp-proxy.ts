/**
 * A TCP proxy of the test's own between Sous and PostgreSQL or Redis, to take a dependency "down"
 * without stopping the machine's shared server: `cut()` drops every connection and refuses new
 * ones (ECONNREFUSED, as a stopped server would), `restore()` accepts again on the same port.
 */
import * as net from 'node:net';

export interface TcpProxy {
  /** The target URL with host and port replaced by the proxy's. */
  url: string;
  port: number;
  cut(): Promise<void>;
  restore(): Promise<void>;
  close(): Promise<void>;
}

export async function startTcpProxy(targetUrl: string): Promise<TcpProxy> {
  const target = new URL(targetUrl);
  const targetPort = Number(target.port || (target.protocol.startsWith('redis') ? 6379 : 5432));
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const upstream = net.connect({ host: target.hostname, port: targetPort });
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
      s.on('error', () => undefined); // a cut connection is the point, not a failure of the test
    }
    client.pipe(upstream).pipe(client);
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  const listen = (port: number) =>
    new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => {
        server.off('error', reject);
        resolve();
      });
    });
  await listen(0);
  const port = (server.address() as net.AddressInfo).port;
  const url = new URL(targetUrl);
  url.hostname = '127.0.0.1';
  url.port = String(port);
  let open = true;
  const stop = async () => {
    if (!open) return;
    open = false;
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    for (const s of sockets) s.destroy();
    await closed;
  };
  return {
    url: url.toString(),
    port,
    cut: stop,
    async restore() {
      if (open) return;
      await listen(port);
      open = true;
    },
    close: stop,
  };
}
