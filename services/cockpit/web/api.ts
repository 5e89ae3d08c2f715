/**
 * The daemon's JSON routes, same origin. The cockpit only reads state and sends user actions
 * (spec 1, rule 8): every check and every decision is the daemon's, and its error messages are
 * shown as they come. Where the daemon asks for a token (docs/deployment.md), every call sends the
 * one the user pasted (kept in this browser's localStorage); a 401 asks for it.
 */

const TOKEN_KEY = 'sous.token';
let tokenNeeded: (refused: boolean) => void = () => undefined;

/** The token the user gave, or null. */
export function storedToken(): string | null {
  try {
    return localStorage.getItem(TOKEN_KEY);
  } catch {
    return null;
  }
}

export function saveToken(token: string): void {
  localStorage.setItem(TOKEN_KEY, token);
}

/** Called on a 401 (`refused`: a stored token was sent and refused). */
export function whenTokenNeeded(handler: (refused: boolean) => void): void {
  tokenNeeded = handler;
}

function authHeaders(): Record<string, string> {
  const token = storedToken();
  return token ? { authorization: `Bearer ${token}` } : {};
}
export class ApiFailure extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly code: string,
  ) {
    super(message);
  }
}

async function answer<T>(res: Response): Promise<T> {
  if (res.status === 401) tokenNeeded(storedToken() !== null);
  const text = await res.text();
  let body: unknown;
  try {
    body = text ? JSON.parse(text) : {};
  } catch {
    throw new ApiFailure(res.status, `the daemon answered ${res.status} without JSON`, 'invalid_answer');
  }
  if (!res.ok) {
    const error = (body as { error?: { code?: string; message?: string } }).error;
    throw new ApiFailure(res.status, error?.message ?? `the daemon answered ${res.status}`, error?.code ?? 'error');
  }
  return body as T;
}

export async function getJson<T>(path: string): Promise<T> {
  let res: Response;
  try {
    res = await fetch(path, { headers: { accept: 'application/json', ...authHeaders() }, cache: 'no-store' });
  } catch {
    throw new ApiFailure(0, 'the daemon is not reachable', 'unreachable');
  }
  return answer<T>(res);
}

export async function postJson<T>(path: string, body: unknown = {}): Promise<T> {
  let res: Response;
  try {
    res = await fetch(path, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json', ...authHeaders() }, body: JSON.stringify(body) });
  } catch {
    throw new ApiFailure(0, 'the daemon is not reachable', 'unreachable');
  }
  return answer<T>(res);
}

export function message(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** What an event stream tells its reader. */
export interface StreamHandlers {
  open(): void;
  error(): void;
  event(type: string, data: string): void;
}

/** Wait before reconnecting a dropped stream (EventSource's default is about as long). */
const RECONNECT_MS = 3_000;

/**
 * A server-sent event stream read with fetch (EventSource cannot send a token); reconnects after
 * the daemon restarts, except after a 401 (the page asks for a token and reloads).
 */
export function eventStream(path: string, on: StreamHandlers): void {
  const dispatch = (block: string): void => {
    let type = 'message';
    const data: string[] = [];
    for (const line of block.split(/\r?\n/)) {
      if (line.startsWith('event:')) type = line.slice(6).trim();
      else if (line.startsWith('data:')) data.push(line.slice(5).replace(/^ /, ''));
    }
    if (data.length > 0) on.event(type, data.join('\n'));
  };
  const connect = async (): Promise<void> => {
    try {
      const res = await fetch(path, { headers: { accept: 'text/event-stream', ...authHeaders() }, cache: 'no-store' });
      if (res.status === 401) {
        tokenNeeded(storedToken() !== null);
        on.error();
        return;
      }
      if (!res.ok || res.body === null) throw new Error(`status ${res.status}`);
      on.open();
      const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
      let buffer = '';
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buffer += value;
        let end: RegExpExecArray | null;
        while ((end = /\r?\n\r?\n/.exec(buffer)) !== null) {
          dispatch(buffer.slice(0, end.index));
          buffer = buffer.slice(end.index + end[0].length);
        }
      }
    } catch {
      // unreachable or cut: reconnect below
    }
    on.error();
    window.setTimeout(() => void connect(), RECONNECT_MS);
  };
  void connect();
}
