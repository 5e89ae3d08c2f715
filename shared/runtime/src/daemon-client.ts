import { isApiErrorBody } from '@sous/protocol';

/** An HTTP error from the daemon, carrying its documented error body. */
export class DaemonRequestError extends Error {
  constructor(readonly status: number, message: string, readonly code?: string) {
    super(message);
    this.name = 'DaemonRequestError';
  }
}

/** The daemon is not answering at all (not running, or not yet listening). */
export class DaemonUnreachableError extends Error {
  constructor(readonly url: string, cause: string) {
    super(`no daemon answers at ${url} (${cause}); start it with: sous up`);
    this.name = 'DaemonUnreachableError';
  }
}

/**
 * A small JSON client for the daemon's loopback HTTP interface, used by the CLI and the supervisor.
 * Requests carry no Origin, so the daemon's cross-site guard lets them through.
 */
export class DaemonClient {
  /** `headers` go with every request (e.g. `X-Sous-Client: mcp`, which also tells Auto Focus an agent is at work). */
  constructor(
    readonly baseUrl: string,
    private readonly timeoutMs = 5000,
    private readonly headers: Record<string, string> = {},
  ) {}

  get<T>(path: string): Promise<T> {
    return this.request<T>('GET', path);
  }

  post<T>(path: string, body?: unknown): Promise<T> {
    return this.request<T>('POST', path, body);
  }

  private async request<T>(method: string, path: string, body?: unknown): Promise<T> {
    const url = this.baseUrl + path;
    let res: Response;
    try {
      res = await fetch(url, {
        method,
        headers: body === undefined ? { ...this.headers } : { ...this.headers, 'content-type': 'application/json' },
        body: body === undefined ? null : JSON.stringify(body),
        signal: AbortSignal.timeout(this.timeoutMs),
      });
    } catch (err) {
      const cause = (err as { cause?: { code?: string } }).cause?.code ?? (err instanceof Error ? err.name : 'error');
      throw new DaemonUnreachableError(this.baseUrl, cause);
    }
    const text = await res.text();
    let json: unknown;
    try {
      json = text ? JSON.parse(text) : undefined;
    } catch {
      throw new DaemonRequestError(res.status, `daemon answered ${res.status} with a non-JSON body`);
    }
    if (!res.ok) {
      if (isApiErrorBody(json)) throw new DaemonRequestError(res.status, json.error.message, json.error.code);
      throw new DaemonRequestError(res.status, `daemon answered ${res.status}`);
    }
    return json as T;
  }
}

/** The base URL for a daemon bound to host:port (a wildcard bind is reached over loopback). */
export function daemonBaseUrl(host: string, port: number): string {
  const h = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host.includes(':') ? `[${host}]` : host;
  return `http://${h}:${port}`;
}
