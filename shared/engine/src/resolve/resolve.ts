/**
 * `sous.resolve` (spec 2.5; docs/resolve.md): a prompt becomes a briefing — ranked evidence, the ready
 * cards whose paths overlap it, and the prepared prediction it matches, if any — within a token
 * budget, recorded as a resolution. A prompt close enough to a ready prediction's anticipated prompt
 * is served from that prediction's prepared briefing (`cache: "hit"`); otherwise the live index ranks
 * evidence now (`miss`). The prompt itself is never stored or logged: the resolution keeps its sha256,
 * and the stored evidence keeps paths, lines and scores only (the rationale names matched prompt terms).
 */
import { createHash } from 'node:crypto';
import type { FeedbackValue, ResolutionRow, Store } from '@sous/store';
import { explainResolution, type ResolutionExplanation } from './explain';
import { EngineError } from '../errors';
import type { FeedCard } from '../feed/cards';
import type { Briefing, BriefingItem, PredictionView } from '../predictions/predictions';
import { HIT_THRESHOLD, jaccard, tokenSet } from './similarity';

export const DEFAULT_BRIEFING_BUDGET = 2000;
/** Predictions listed as alternatives (the closest below the winner). */
const ALTERNATIVES = 3;
const CARDS = 5;

export interface ResolveRequest {
  prompt: string;
  budgetTokens?: number;
  /** The `X-Sous-Client` (or body `client`): resolutions are kept per client. */
  client?: string;
}

export interface ResolveCard {
  id: string;
  kind: string;
  title: string;
  paths: string[];
}

export interface Alternative {
  prediction_id: string;
  prompt: string;
  similarity: number;
}

export interface ResolutionView {
  resolution_id: string;
  cache: 'hit' | 'miss';
  /** Similarity to the best ready prediction (0 when there is none). */
  similarity: number;
  prediction_id: string | null;
  briefing: string;
  evidence: BriefingItem[];
  cards: ResolveCard[];
  /** Only when a model produced one; Sous without a model leaves it null. */
  predicted_response: string | null;
  alternatives_considered: Alternative[];
  briefing_token_used: number;
  briefing_token_budget: number;
  client: string | null;
  created_at: string;
}

export interface ResolverOptions {
  store: Store;
  workspaceId: string;
  /** Ranked evidence from the live index, or null while it cannot answer (not ready, reading paused). */
  brief(prompt: string): Promise<Briefing | null>;
  predictions(): Promise<PredictionView[]>;
  readyCards(): Promise<FeedCard[]>;
}

/** A rough token count (4 characters a token): budgets are advisory, the count must be cheap. */
export function tokensOf(text: string): number {
  return Math.ceil(text.length / 4);
}

export function promptHash(prompt: string): string {
  return createHash('sha256').update(prompt, 'utf8').digest('hex');
}

const round = (n: number): number => Math.round(n * 1000) / 1000;

/** Lines of the briefing, most relevant first, cut where the budget ends. */
function compose(items: BriefingItem[], cards: ResolveCard[], prediction: PredictionView | null, budget: number): { text: string; used: number; items: BriefingItem[] } {
  const lines: string[] = [];
  let used = 0;
  const take = (line: string): boolean => {
    const cost = tokensOf(line) + 1;
    if (used + cost > budget) return false;
    lines.push(line);
    used += cost;
    return true;
  };
  if (prediction) take(`Prepared for: ${prediction.prompt}`);
  const kept: BriefingItem[] = [];
  for (const i of items) {
    if (!take(`${i.path}:${i.lines.start}-${i.lines.end} — ${i.rationale.join('; ') || 'ranked by the index'}`)) break;
    kept.push(i);
  }
  for (const c of cards) if (!take(`Ready card ${c.id} (${c.kind}): ${c.title}`)) break;
  return { text: lines.join('\n'), used, items: kept };
}

export class Resolver {
  constructor(private readonly options: ResolverOptions) {}

  async resolve(req: ResolveRequest): Promise<ResolutionView> {
    const budget = req.budgetTokens ?? DEFAULT_BRIEFING_BUDGET;
    const words = tokenSet(req.prompt);
    // Both reads at once: on a hit they are most of the time spent.
    const [live, readyCards] = await Promise.all([this.options.predictions(), this.options.readyCards()]);
    const ready = live.filter((p) => p.state === 'ready' && p.briefing);
    const scored = ready.map((p) => ({ p, similarity: jaccard(words, tokenSet(p.prompt)) })).sort((a, b) => b.similarity - a.similarity || b.p.weight - a.p.weight);
    const best = scored[0];
    const hit = best && best.similarity >= HIT_THRESHOLD ? best.p : null;
    let items: BriefingItem[];
    if (hit) items = hit.briefing!.items;
    else {
      const briefing = await this.options.brief(req.prompt);
      if (!briefing) throw new EngineError('unavailable', 'the index cannot answer yet (still indexing, or reading is paused); retry shortly');
      items = briefing.items;
    }
    const paths = new Set(items.map((i) => i.path));
    const cards = readyCards
      .map((c) => ({ id: c.id, kind: c.kind, title: c.title, paths: [...new Set(c.evidence.map((e) => e.path))] }))
      .filter((c) => c.paths.some((p) => paths.has(p)))
      .slice(0, CARDS);
    const composed = compose(items, cards, hit, budget);
    const alternatives = scored.filter((s) => s.p !== hit).slice(0, ALTERNATIVES).map((s) => ({ prediction_id: s.p.id, prompt: s.p.prompt, similarity: round(s.similarity) }));
    const similarity = round(best?.similarity ?? 0);
    const row = await this.options.store.resolutions.insert({
      workspaceId: this.options.workspaceId,
      promptHash: promptHash(req.prompt),
      // Stored without rationale (it names matched prompt terms) nor the briefing text: paths, lines, scores.
      evidence: composed.items.map((i) => ({ path: i.path, lineStart: i.lines.start, lineEnd: i.lines.end })),
      alternativesConsidered: alternatives.map((a) => ({ prediction_id: a.prediction_id, similarity: a.similarity })),
      briefingTokenUsed: composed.used,
      briefingTokenBudget: budget,
      details: {
        client: req.client ?? null,
        cache: hit ? 'hit' : 'miss',
        similarity,
        prediction_id: hit?.id ?? null,
        scores: composed.items.map((i) => round(i.score)),
        cards: cards.map((c) => c.id),
        threshold: HIT_THRESHOLD,
      },
    });
    return {
      resolution_id: row.id,
      cache: hit ? 'hit' : 'miss',
      similarity,
      prediction_id: hit?.id ?? null,
      briefing: composed.text,
      evidence: composed.items,
      cards,
      predicted_response: null,
      alternatives_considered: alternatives,
      briefing_token_used: composed.used,
      briefing_token_budget: budget,
      client: req.client ?? null,
      created_at: row.createdAt.toISOString(),
    };
  }

  /** The rationale of one resolution of this workspace, with its feedback. */
  async explain(id: string): Promise<ResolutionExplanation> {
    const row = await this.row(id);
    return explainResolution(row, await this.options.store.feedback.listForResolution(id));
  }

  /** The newest resolution (of `client`, when given), explained; not_found when there is none. */
  async last(client?: string): Promise<ResolutionExplanation> {
    const row = await this.options.store.resolutions.latest(this.options.workspaceId, client);
    if (!row) throw new EngineError('not_found', client === undefined ? 'no resolution yet' : `no resolution yet for client ${JSON.stringify(client)}`);
    return explainResolution(row, await this.options.store.feedback.listForResolution(row.id));
  }

  /** Records whether a resolution helped. */
  async feedback(id: string, value: FeedbackValue, client?: string): Promise<{ resolution_id: string; value: FeedbackValue; recorded_at: string }> {
    await this.row(id);
    const row = await this.options.store.feedback.record({ resolutionId: id, value, ...(client !== undefined ? { clientId: client } : {}) });
    return { resolution_id: id, value: row.value, recorded_at: row.createdAt.toISOString() };
  }

  /** Likely next prompts: the ready predictions' anticipated prompts, most weight first. */
  async suggest(limit: number): Promise<Suggestion[]> {
    const ready = (await this.options.predictions()).filter((p) => p.state === 'ready');
    return ready.slice(0, limit).map((p) => ({ prediction_id: p.id, prompt: p.prompt, weight: p.weight, source: p.source }));
  }

  /** Deletes the workspace's resolutions and all its feedback (cards' too); returns how many of each went. */
  async forget(): Promise<{ resolutions: number; feedback: number }> {
    const feedback = await this.options.store.feedback.deleteForWorkspace(this.options.workspaceId);
    const resolutions = await this.options.store.resolutions.deleteForWorkspace(this.options.workspaceId);
    return { resolutions, feedback };
  }

  private async row(id: string): Promise<ResolutionRow> {
    const row = await this.options.store.resolutions.get(id);
    if (!row || row.workspaceId !== this.options.workspaceId) throw new EngineError('not_found', `no resolution ${JSON.stringify(id)} in this workspace`);
    return row;
  }
}

export type { ResolutionRow };

export interface Suggestion {
  prediction_id: string;
  prompt: string;
  weight: number;
  source: string;
}
