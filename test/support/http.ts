import * as http from 'node:http';

export interface RawResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
  json: any; // eslint-disable-line @typescript-eslint/no-explicit-any -- tests read arbitrary bodies
}

/**
 * One HTTP request over loopback with full control of headers (fetch forbids setting Host, and
 * the Host and Origin guards are exactly what tests need to exercise).
 */
export function rawRequest(options: { port: number; method?: string; path: string; headers?: Record<string, string>; body?: string | Buffer; timeoutMs?: number }): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string | number> = { host: `127.0.0.1:${options.port}`, ...options.headers };
    if (options.body !== undefined && headers['content-length'] === undefined) headers['content-length'] = Buffer.byteLength(options.body);
    const req = http.request({ host: '127.0.0.1', port: options.port, method: options.method ?? 'GET', path: options.path, headers, setHost: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let json: unknown;
        try {
          json = JSON.parse(text);
        } catch {
          json = undefined;
        }
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json });
      });
    });
    req.on('error', reject);
    // A stopped server accepts the connection (the kernel does) but never answers.
    if (options.timeoutMs !== undefined) req.setTimeout(options.timeoutMs, () => req.destroy(new Error(`no answer within ${options.timeoutMs} ms`)));
    if (options.body !== undefined) req.write(options.body);
    req.end();
  });
}
