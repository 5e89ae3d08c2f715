/**
 * The daemon's JSON routes, same origin. The cockpit only reads state and sends user actions
 * (spec 1, rule 8): every check and every decision is the daemon's, and its error messages are
 * shown as they come.
 */
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
    res = await fetch(path, { headers: { accept: 'application/json' }, cache: 'no-store' });
  } catch {
    throw new ApiFailure(0, 'the daemon is not reachable', 'unreachable');
  }
  return answer<T>(res);
}

export async function postJson<T>(path: string, body: unknown = {}): Promise<T> {
  let res: Response;
  try {
    res = await fetch(path, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json' }, body: JSON.stringify(body) });
  } catch {
    throw new ApiFailure(0, 'the daemon is not reachable', 'unreachable');
  }
  return answer<T>(res);
}

export function message(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
