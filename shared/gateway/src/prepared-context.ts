/**
 * What the proxy may inject: prepared briefings held in memory, matched to a prompt in microseconds
 * (docs/proxy.md#prepared-context). Nothing here ranks files or asks a model while a request waits:
 *  - the daemon's ready and adopted predictions (`GET /predictions`, each with its prepared
 *    briefing) are read in the background every REFRESH_MS;
 *  - a prompt that matches none (a miss) is queued for preparation: the daemon resolves it
 *    (`POST /v1/resolve`, recorded per client) after the request has gone on, and the briefing is
 *    kept, so the next similar prompt hits.
 * Matching is resolve's own: the Jaccard index of the prompts' word-token sets (docs/resolve.md).
 */
import type { SousPaths } from '@sous/config';
import type { Logger } from '@sous/logging';
import { DaemonClient, daemonBaseUrl, pidAlive, readRunState } from '@sous/runtime';

/** One evidence item of a briefing, as the daemon serves it. */
export interface PreparedItem {
  path: string;
  score: number;
  rationale: string[];
  lines: { start: number; end: number };
}

/** A ready card whose evidence overlaps the briefing. */
export interface PreparedCard {
  id: string;
  kind: string;
  title: string;
}

/** One prepared briefing the proxy can inject; never changed once made (injection.ts caches what it renders from it). */
export interface PreparedEntry {
  /** `prediction:<id>` or `resolution:<id>`. */
  id: string;
  /** The prompt it was prepared for: a prediction's anticipated prompt; null for a resolved miss (its prompt is not kept). */
  anticipatedPrompt: string | null;
  items: PreparedItem[];
  cards: PreparedCard[];
  /** An adopted prediction (the user chose it as the current intent). */
  adopted: boolean;
  weight: number;
}

export interface PreparedMatch {
  entry: PreparedEntry;
  similarity: number;
}

/** Where prepared context comes from; the routes only call `lookup` (synchronous) and `prepare` (fire and forget). */
export interface PreparedContextSource {
  /** The best entry for `prompt` at or above `minSimilarity`, or undefined. */
  lookup(prompt: string, minSimilarity: number): PreparedMatch | undefined;
  /** Queues preparation of a missed prompt; returns at once and never throws. */
  prepare(prompt: string, client: string | undefined): void;
  /** Counts for `/healthz` and traces. */
  status(): { entries: number; queued: number; daemon: 'reachable' | 'unreachable' | 'unknown'; refreshed_at: string | null };
  close(): void;
}

/** How often predictions are read from the daemon. */
export const REFRESH_MS = 2000;
/** Resolved misses kept (least recently used go first). */
export const MAX_RESOLVED = 256;
/** A resolved miss is dropped after this long: the index moves on. */
export const RESOLVED_TTL_MS = 10 * 60_000;
/** Misses waiting for preparation at most; more are dropped (the next miss queues again). */
export const MAX_QUEUED = 32;
/** A missed prompt (by token set) is not sent for preparation again within this time: a retry storm costs nothing. */
export const RETRY_PREPARE_MS = 30_000;
/** Budget asked of the daemon for a resolved miss; the proxy cuts it further per request. */
const RESOLVE_BUDGET_TOKENS = 4000;

/** Lower-cased word tokens of at least two characters (the same as resolve's `tokenSet`). */
export function tokenSet(text: string): Set<string> {
  const out = new Set<string>();
  for (const t of text.toLowerCase().split(/[^a-z0-9]+/)) if (t.length >= 2) out.add(t);
  return out;
}

/** |A ∩ B| / |A ∪ B|; 0 when both are empty. */
export function jaccard(a: ReadonlySet<string>, b: ReadonlySet<string>): number {
  if (a.size === 0 && b.size === 0) return 0;
  let shared = 0;
  for (const t of a) if (b.has(t)) shared += 1;
  return shared / (a.size + b.size - shared);
}

interface Keyed {
  entry: PreparedEntry;
  tokens: ReadonlySet<string>;
  at: number;
}

interface PredictionWire {
  id: string;
  prompt: string;
  weight: number;
  state: string;
  briefing: { items: PreparedItem[] } | null;
}

interface CardWire {
  id: string;
  kind: string;
  title: string;
  evidence: Array<{ path: string }>;
}

interface ResolutionWire {
  resolution_id: string;
  evidence: PreparedItem[];
  cards: PreparedCard[];
}

export interface DaemonPreparedContextOptions {
  /** The workspace's state paths: the daemon is found through `<state>/run/daemon.json`. */
  paths: SousPaths;
  /** A fixed daemon URL instead (SOUS_DAEMON_URL; the container topology), else the run state. */
  daemonUrl?: string;
  /** Headers every call to the daemon carries (this process's token, @sous/http serviceHeaders). */
  headers?: Record<string, string>;
  logger: Logger;
  refreshMs?: number;
  now?: () => number;
}

/** Prepared context read from the workspace's daemon over its loopback HTTP interface. */
export class DaemonPreparedContext implements PreparedContextSource {
  private predictions: Keyed[] = [];
  private readonly resolved = new Map<string, Keyed>();
  private readonly queue: Array<{ key: string; prompt: string; client: string | undefined }> = [];
  private readonly queuedKeys = new Set<string>();
  /** Token-set keys sent for preparation, and when: each is tried once per RETRY_PREPARE_MS. */
  private readonly attempted = new Map<string, number>();
  private working = false;
  private reachable: 'reachable' | 'unreachable' | 'unknown' = 'unknown';
  private refreshedAt: number | null = null;
  private readonly timer: NodeJS.Timeout;
  private readonly now: () => number;
  private closed = false;

  constructor(private readonly options: DaemonPreparedContextOptions) {
    this.now = options.now ?? Date.now;
    this.timer = setInterval(() => void this.refresh(), options.refreshMs ?? REFRESH_MS);
    this.timer.unref();
    void this.refresh();
  }

  lookup(prompt: string, minSimilarity: number): PreparedMatch | undefined {
    const words = tokenSet(prompt);
    if (words.size === 0) return undefined;
    let best: PreparedMatch | undefined;
    const consider = (k: Keyed) => {
      const similarity = jaccard(words, k.tokens);
      if (similarity < minSimilarity) return;
      if (best === undefined || similarity > best.similarity || (similarity === best.similarity && k.entry.weight > best.entry.weight)) best = { entry: k.entry, similarity };
    };
    for (const k of this.predictions) consider(k);
    const now = this.now();
    for (const [key, k] of this.resolved) {
      if (now - k.at > RESOLVED_TTL_MS) this.resolved.delete(key);
      else consider(k);
    }
    return best;
  }

  prepare(prompt: string, client: string | undefined): void {
    const tokens = tokenSet(prompt);
    if (tokens.size === 0 || this.closed) return;
    const key = [...tokens].sort().join(' ');
    if (this.queuedKeys.has(key) || this.queue.length >= MAX_QUEUED) return;
    const now = this.now();
    const last = this.attempted.get(key);
    if (last !== undefined && now - last < RETRY_PREPARE_MS) return;
    this.attempted.delete(key);
    this.attempted.set(key, now);
    if (this.attempted.size > MAX_RESOLVED * 4) this.attempted.delete(this.attempted.keys().next().value as string);
    this.queuedKeys.add(key);
    this.queue.push({ key, prompt, client });
    void this.drain();
  }

  status(): ReturnType<PreparedContextSource['status']> {
    return { entries: this.predictions.length + this.resolved.size, queued: this.queue.length, daemon: this.reachable, refreshed_at: this.refreshedAt === null ? null : new Date(this.refreshedAt).toISOString() };
  }

  close(): void {
    this.closed = true;
    clearInterval(this.timer);
    this.queue.length = 0;
  }

  /** Waits until the queued misses are prepared (tests and the bench use it to see the next prompt hit). */
  async idle(): Promise<void> {
    while (this.working || this.queue.length > 0) await new Promise((r) => setTimeout(r, 10));
  }

  /** Reads the daemon's live predictions and ready cards now. */
  async refresh(): Promise<void> {
    const daemon = this.client();
    if (daemon === undefined) {
      this.reachable = 'unreachable';
      return;
    }
    try {
      const [{ predictions }, feed] = await Promise.all([daemon.get<{ predictions: PredictionWire[] }>('/predictions'), daemon.get<{ cards: CardWire[] }>('/prepared-work')]);
      const at = this.now();
      this.predictions = predictions
        .filter((p) => (p.state === 'ready' || p.state === 'adopted') && p.briefing !== null)
        .map((p) => {
          const items = p.briefing?.items ?? [];
          return { entry: { id: `prediction:${p.id}`, anticipatedPrompt: p.prompt, items, cards: overlapping(feed.cards, items), adopted: p.state === 'adopted', weight: p.weight }, tokens: tokenSet(p.prompt), at };
        });
      this.reachable = 'reachable';
      this.refreshedAt = at;
    } catch (err) {
      if (this.reachable !== 'unreachable') this.options.logger.warn({ error: err instanceof Error ? err.message : String(err) }, 'prepared context: cannot read the daemon; requests go on without injection');
      this.reachable = 'unreachable';
    }
  }

  private client(extra: Record<string, string> = {}): DaemonClient | undefined {
    const headers = { ...this.options.headers, ...extra };
    if (this.options.daemonUrl !== undefined) return new DaemonClient(this.options.daemonUrl, 10_000, headers);
    const run = readRunState(this.options.paths, 'daemon');
    if (run === undefined || !pidAlive(run.pid)) return undefined;
    return new DaemonClient(daemonBaseUrl(run.host, run.port), 10_000, headers);
  }

  /** Prepares queued misses one at a time, after the requests that queued them have gone on. */
  private async drain(): Promise<void> {
    if (this.working) return;
    this.working = true;
    try {
      for (let job = this.queue.shift(); job !== undefined && !this.closed; job = this.queue.shift()) {
        try {
          const daemon = this.client(job.client === undefined ? {} : { 'x-sous-client': job.client });
          if (daemon === undefined) continue;
          const r = await daemon.post<ResolutionWire>('/v1/resolve', { prompt: job.prompt, budget_tokens: RESOLVE_BUDGET_TOKENS });
          if (r.evidence.length === 0) continue;
          this.resolved.delete(job.key);
          this.resolved.set(job.key, { entry: { id: `resolution:${r.resolution_id}`, anticipatedPrompt: null, items: r.evidence, cards: r.cards.map((c) => ({ id: c.id, kind: c.kind, title: c.title })), adopted: false, weight: 0 }, tokens: tokenSet(job.prompt), at: this.now() });
          if (this.resolved.size > MAX_RESOLVED) this.resolved.delete(this.resolved.keys().next().value as string);
        } catch (err) {
          // The prompt is never logged; only that preparation failed and why.
          this.options.logger.debug({ error: err instanceof Error ? err.message : String(err) }, 'prepared context: a missed prompt could not be prepared');
        } finally {
          this.queuedKeys.delete(job.key);
        }
      }
    } finally {
      this.working = false;
    }
  }
}

/** Ready cards whose evidence shares a path with the items (at most 5, as resolve does). */
function overlapping(cards: readonly CardWire[], items: readonly PreparedItem[]): PreparedCard[] {
  const paths = new Set(items.map((i) => i.path));
  return cards
    .filter((c) => c.evidence.some((e) => paths.has(e.path)))
    .slice(0, 5)
    .map((c) => ({ id: c.id, kind: c.kind, title: c.title }));
}
