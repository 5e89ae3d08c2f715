/**
 * The `history` prediction source (spec 2.4; docs/predictions.md): past resolutions and their
 * feedback. A resolution keeps no prompt, only `prompt_key` (the sha256 of its sorted word tokens), so
 * a history prediction anticipates *the same request asked again*: it is matched by that key, and its
 * briefing is the evidence the past resolution served. Feedback and adoption set its weight; the rows
 * are rebuilt from the store (resolutions, feedback), so they survive restarts and `sous forget`.
 */
import type { FeedbackRow, PredictionRow, ResolutionRow, Store } from '@sous/store';
import { BASE_WEIGHT, type PathHashes } from './rules';
import { categoryOf } from './category';
import type { Briefing } from './predictions';

/** Resolutions read to build history (newest first). */
export const HISTORY_WINDOW = 200;
/** History predictions kept (heaviest first), before the bundle's drafting multiplier. */
export const HISTORY_KEEP = 10;
/** Each positive (useful, adopted: 1; partial: 0.5) multiplies the weight by this... */
export const HISTORY_RAISE = 1.5;
/** ...and each negative (irrelevant, wrong) by this. */
export const HISTORY_LOWER = 0.5;
/** Below this a request is not anticipated (negative feedback outweighed the positive). */
export const HISTORY_MIN = 0.15;
/** History never outweighs a declared goal or a draft in progress. */
export const HISTORY_MAX = 0.85;

/** One past request (by key) as history sees it. */
export interface HistoryEntry {
  key: string;
  /** Resolutions of this request in the window. */
  asked: number;
  positive: number;
  negative: number;
  weight: number;
  /** The newest resolution's evidence: where the request was answered. */
  briefing: Briefing;
}

const POSITIVE: Record<string, number> = { useful: 1, partial: 0.5 };
const NEGATIVE: Record<string, number> = { irrelevant: 1, wrong: 1 };

/**
 * The requests worth anticipating: grouped by `prompt_key`, each with at least one positive signal
 * (useful/partial feedback, or adoption: a composer event attributed to it) and a weight of at least
 * HISTORY_MIN after its negative feedback. Heaviest first (ties: most recently asked first).
 */
export function historyEntries(rows: ResolutionRow[], feedback: FeedbackRow[]): HistoryEntry[] {
  const byResolution = new Map<string, FeedbackRow[]>();
  for (const f of feedback) if (f.resolutionId) byResolution.set(f.resolutionId, [...(byResolution.get(f.resolutionId) ?? []), f]);
  const groups = new Map<string, { rows: ResolutionRow[]; positive: number; negative: number }>();
  for (const row of rows) {
    const key = (row.details as { prompt_key?: string }).prompt_key;
    if (typeof key !== 'string') continue;
    const g = groups.get(key) ?? { rows: [], positive: 0, negative: 0 };
    g.rows.push(row);
    if (row.composerEventId) g.positive += 1;
    for (const f of byResolution.get(row.id) ?? []) {
      g.positive += POSITIVE[f.value] ?? 0;
      g.negative += NEGATIVE[f.value] ?? 0;
    }
    groups.set(key, g);
  }
  const out: HistoryEntry[] = [];
  for (const [key, g] of groups) {
    if (g.positive === 0) continue;
    const weight = Math.round(Math.min(HISTORY_MAX, BASE_WEIGHT.history * HISTORY_RAISE ** g.positive * HISTORY_LOWER ** g.negative) * 1e6) / 1e6;
    if (weight < HISTORY_MIN) continue;
    const newest = g.rows.find((r) => r.evidence.length > 0) ?? g.rows[0]!;
    const scores = (newest.details as { scores?: number[] }).scores ?? [];
    const items = newest.evidence.map((e, i) => ({
      path: e.path,
      score: scores[i] ?? 0,
      rationale: ['a past resolution of this request pointed here'],
      lines: { start: e.lineStart ?? 1, end: e.lineEnd ?? e.lineStart ?? 1 },
    }));
    out.push({ key, asked: g.rows.length, positive: g.positive, negative: g.negative, weight, briefing: { items } });
  }
  return out.sort((a, b) => b.weight - a.weight);
}

/** What reconciling history needs of the registry. */
export interface HistoryDeps {
  store: Store;
  workspaceId: string;
  all(): Promise<PredictionRow[]>;
  hashes(paths: string[]): Promise<PathHashes>;
}

/** The anticipated prompt of a history prediction: what is known without the prompt's text. */
function titleOf(e: HistoryEntry): string {
  const paths = [...new Set(e.briefing.items.map((i) => i.path))].slice(0, 3);
  return `ask again: a past request (asked ${e.asked}×, ${e.positive} positive, ${e.negative} negative) answered in ${paths.join(', ') || 'no file'}`;
}

/**
 * One `history` prediction per kept entry: a live one is re-weighed, a stale one replaced (fresh
 * hashes), and history predictions of requests no longer kept go (adopted ones stay on record).
 */
export async function reconcileHistory(deps: HistoryDeps, entries: HistoryEntry[], keep: number): Promise<void> {
  const kept = entries.slice(0, keep);
  const keyOf = (p: PredictionRow): string => String((p.details as { prompt_key?: string }).prompt_key ?? '');
  const mine = (await deps.all()).filter((p) => p.source === 'history' && p.state !== 'adopted');
  const current = new Set(kept.map((e) => e.key));
  await deps.store.predictions.delete(mine.filter((p) => !current.has(keyOf(p)) || p.state === 'stale').map((p) => p.id));
  for (const e of kept) {
    const live = mine.find((p) => keyOf(p) === e.key && p.state !== 'stale');
    if (live !== undefined) {
      if (live.weight !== e.weight || live.title !== titleOf(e)) await deps.store.predictions.update(live.id, { weight: e.weight, title: titleOf(e) });
      continue;
    }
    const paths = [...new Set(e.briefing.items.map((i) => i.path))];
    await deps.store.predictions.insert({
      workspaceId: deps.workspaceId,
      source: 'history',
      title: titleOf(e),
      weight: e.weight,
      state: 'ready',
      pathHashes: (await deps.hashes(paths)) as Record<string, string>,
      details: { prompt_key: e.key, briefing: e.briefing, category: categoryOf(paths) ?? null },
    });
  }
}
