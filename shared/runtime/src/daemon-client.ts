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

/** The token a client sends to a daemon that asks for one (docs/deployment.md). */
export const CLIENT_TOKEN_ENV = 'SOUS_TOKEN';

/**
 * A small JSON client for the daemon's loopback HTTP interface, used by the CLI and the supervisor.
 * Requests carry no Origin, so the daemon's cross-site guard lets them through. Where the daemon
 * asks for a token, `Authorization: Bearer $SOUS_TOKEN` goes with every request unless `headers`
 * carry an Authorization of their own.
 */
export class DaemonClient {
  private readonly headers: Record<string, string>;
  /** `headers` go with every request (e.g. `X-Sous-Client: mcp`, which also tells Auto Focus an agent is at work). */
  constructor(
    readonly baseUrl: string,
    private readonly timeoutMs = 5000,
    headers: Record<string, string> = {},
    env: NodeJS.ProcessEnv = process.env,
  ) {
    const token = env[CLIENT_TOKEN_ENV]?.trim();
    this.headers = token && !Object.keys(headers).some((h) => h.toLowerCase() === 'authorization') ? { authorization: `Bearer ${token}`, ...headers } : { ...headers };
  }

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
