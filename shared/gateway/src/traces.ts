/**
 * Context traces per client (spec 5.4: `X-Sous-Client` isolates traces): what the proxy injected
 * into each request, kept in memory, newest first. A trace holds paths, counts and ids, never the
 * prompt nor the briefing text; one client never sees another's.
 */

/** Traces kept per client. */
export const TRACES_PER_CLIENT = 50;
/** Clients tracked at once (the least recently active is forgotten first). */
export const MAX_TRACED_CLIENTS = 200;
/** The client of a request without `X-Sous-Client`. */
export const ANONYMOUS_CLIENT = 'anonymous';

export interface ContextTrace {
  at: string;
  model: string;
  upstream: string;
  stream: boolean;
  /** The policy in force, or `passthrough` when gateway.passthrough.enabled. */
  policy: string;
  /** `hit`: a prepared briefing was injected; `miss`: none matched (preparation queued); `skipped`: one matched but the policy or budget left nothing to add; `off`: passthrough. */
  context: 'hit' | 'miss' | 'skipped' | 'off';
  entry_id: string | null;
  similarity: number | null;
  injected_tokens: number;
  budget_tokens: number;
  paths: string[];
  status: number;
  overhead_ms: number;
}

/** A trace as the routes fill it in; `at` is added when it is listed. */
export type TraceRecord = Omit<ContextTrace, 'at'>;

interface Kept {
  /** When the request arrived (epoch ms): formatted only when listed, not on every request. */
  atMs: number;
  trace: TraceRecord;
}

export class TraceBook {
  private readonly byClient = new Map<string, Kept[]>();

  record(client: string, trace: TraceRecord, atMs: number): void {
    const list = this.byClient.get(client) ?? [];
    this.byClient.delete(client);
    list.unshift({ atMs, trace });
    if (list.length > TRACES_PER_CLIENT) list.length = TRACES_PER_CLIENT;
    this.byClient.set(client, list);
    if (this.byClient.size > MAX_TRACED_CLIENTS) this.byClient.delete(this.byClient.keys().next().value as string);
  }

  list(client: string, limit: number): ContextTrace[] {
    return (this.byClient.get(client) ?? []).slice(0, limit).map(({ atMs, trace }) => ({ at: new Date(atMs).toISOString(), ...trace }));
  }
}
