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
import { CATEGORY_WINDOW, categoryOf, detectShift, type CategoryShift } from '../predictions/category';
import { DEFAULT_INTENT_POLICY, type IntentPolicy } from '../predictions/policy';
import { HIT_THRESHOLD, jaccard, promptKey, tokenSet } from './similarity';
import { compose, tokensOf } from './compose';
import { EVIDENCE_THRESHOLD, evidenceCoverage } from './coverage';
import type { SkillRanker } from '../skills/ranker';
import { briefingSkills, type BriefingSkill } from '../skills/views';

export { tokensOf };
export const DEFAULT_BRIEFING_BUDGET = 2000;
/** Predictions listed as alternatives (the closest below the winner). */
const ALTERNATIVES = 3;
const CARDS = 5;

export interface ResolveRequest {
  prompt: string;
  budgetTokens?: number;
  /** The `X-Sous-Client` (or body `client`): resolutions are kept per client. */
  client?: string;
  /** The composer session the prompt is drafted in: its `submitted` event is attributed to this resolution. */
  composerSessionId?: string;
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
  /** How a hit matched: `prompt` (words or a repeated request; served from the prepared briefing) or `evidence` (ranked now, covered by the prepared briefing); null on a miss. */
  match: 'prompt' | 'evidence' | null;
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
  /** The area the evidence points at (docs/predictions.md#category-shift), null without evidence. */
  category: string | null;
  /** The shift of request category this resolution completed, with how many predictions went stale; else null. */
  category_shift: (CategoryShift & { stale: number }) | null;
  /** `top_match_auto_include`: the prediction whose prepared briefing was appended on a miss, else null. */
  auto_included: string | null;
  /** Skills the briefing names, best first (relevance × weight; project_local only: docs/skills.md#zones). */
  skills: BriefingSkill[];
  composer_session_id: string | null;
  /** Set once the composer session's `submitted` event is attributed to this resolution (adoption); null until then. */
  composer_event_id: string | null;
  created_at: string;
}

export interface ResolverOptions {
  store: Store;
  workspaceId: string;
  /** Ranked evidence from the live index, or null while it cannot answer (not ready, reading paused). */
  brief(prompt: string): Promise<Briefing | null>;
  /** Live predictions (for `suggest`). */
  predictions(): Promise<PredictionView[]>;
  /** Predictions holding a briefing resolve may serve: ready ones, or with `adopted` the adopted ones. Default: `predictions()`. */
  candidates?(adopted: boolean): Promise<PredictionView[]>;
  readyCards(): Promise<FeedCard[]>;
  /** The bundle's context-injection dimension, read on each call. Default: `policy_hybrid`. */
  policy?(): IntentPolicy;
  /** A `category_shift` happened: stale the predictions prepared for `from`; resolves to how many. */
  categoryShift?(shift: CategoryShift): Promise<number>;
  /** Feedback was recorded (the history source re-reads it). */
  feedbackRecorded?(): Promise<void>;
  /** The skills ranker as of now (synchronous: resolve is a hot path). Default: no skills. */
  skills?(): SkillRanker;
}

export function promptHash(prompt: string): string {
  return createHash('sha256').update(prompt, 'utf8').digest('hex');
}

const round = (n: number): number => Math.round(n * 1000) / 1000;

export class Resolver {
  /** Categories of the newest resolutions, newest first (loaded from the store on first use). */
  private categories: Array<string | undefined> | undefined;

  constructor(private readonly options: ResolverOptions) {}

  async resolve(req: ResolveRequest): Promise<ResolutionView> {
    const budget = req.budgetTokens ?? DEFAULT_BRIEFING_BUDGET;
    const mode = (this.options.policy?.() ?? DEFAULT_INTENT_POLICY).contextInjection;
    const words = tokenSet(req.prompt);
    const key = promptKey(req.prompt);
    const adoptedOnly = mode === 'adopted_package_only';
    const withCards = mode !== 'digest_only' && !adoptedOnly;
    const candidates = this.options.candidates ? this.options.candidates(adoptedOnly) : this.options.predictions();
    // Both reads at once: on a hit they are most of the time spent.
    const [listed, readyCards] = await Promise.all([candidates, withCards ? this.options.readyCards() : Promise.resolve([])]);
    // adopted_package_only: only what the user adopted is injected; otherwise ready predictions.
    const pool = listed.filter((p) => p.briefing && p.state === (adoptedOnly ? 'adopted' : 'ready'));
    // A history prediction has no prompt text: it matches a repeat of its request (same sorted words) only.
    const similarityTo = (p: PredictionView): number => (p.prompt_key ? (p.prompt_key === key ? 1 : 0) : jaccard(words, tokenSet(p.prompt)));
    const scored = pool.map((p) => ({ p, similarity: similarityTo(p) })).sort((a, b) => b.similarity - a.similarity || b.p.weight - a.p.weight);
    const best = scored[0];
    let hit = best && best.similarity >= HIT_THRESHOLD ? best.p : null;
    let match: ResolutionView['match'] = hit ? 'prompt' : null;
    let items: BriefingItem[];
    let included: PredictionView | null = null;
    if (hit) items = hit.briefing!.items;
    else {
      const briefing = await this.options.brief(req.prompt);
      if (!briefing) throw new EngineError('unavailable', 'the index cannot answer yet (still indexing, or reading is paused); retry shortly');
      items = briefing.items;
      const covered = pool.map((p) => ({ p, coverage: evidenceCoverage(items, p.briefing!.items) })).sort((a, b) => b.coverage - a.coverage || b.p.weight - a.p.weight)[0];
      if (covered && covered.coverage >= EVIDENCE_THRESHOLD) {
        hit = covered.p;
        match = 'evidence';
      } else if (mode === 'top_match_auto_include') {
        included = best && best.similarity > 0 ? best.p : covered && covered.coverage > 0 ? covered.p : null;
      }
    }
    const paths = new Set(items.map((i) => i.path));
    const cards = readyCards
      .map((c) => ({ id: c.id, kind: c.kind, title: c.title, paths: [...new Set(c.evidence.map((e) => e.path))] }))
      .filter((c) => c.paths.some((p) => paths.has(p)))
      .slice(0, CARDS);
    // Skills for this prompt and the files it points at; a digest or an adopted package holds none.
    const named = mode === 'digest_only' || adoptedOnly ? [] : briefingSkills(this.options.skills?.().rank(`${req.prompt} ${[...paths].join(' ')}`, { zones: ['project_local'] }) ?? []);
    const composed = compose({ items, cards, prediction: hit, included, budget, mode, skills: named });
    const skills = named.slice(0, composed.skills);
    const served = cards.slice(0, composed.cards);
    const alternatives = scored.filter((s) => s.p !== hit).slice(0, ALTERNATIVES).map((s) => ({ prediction_id: s.p.id, prompt: s.p.prompt, similarity: round(s.similarity) }));
    const similarity = round(best?.similarity ?? 0);
    const category = categoryOf(composed.items.map((i) => i.path));
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
        match,
        similarity,
        prediction_id: hit?.id ?? null,
        scores: composed.items.map((i) => round(i.score)),
        cards: served.map((c) => c.id),
        threshold: HIT_THRESHOLD,
        prompt_key: key,
        category: category ?? null,
        context_injection: mode,
        auto_included: included?.id ?? null,
        composer_session_id: req.composerSessionId ?? null,
        // Ids only: feedback on this resolution reaches these skills through the skills loop.
        ...(skills.length > 0 ? { skills: skills.map((k) => k.id) } : {}),
      },
    });
    const shift = await this.recordCategory(category);
    return {
      resolution_id: row.id,
      cache: hit ? 'hit' : 'miss',
      match,
      similarity,
      prediction_id: hit?.id ?? null,
      briefing: composed.text,
      evidence: composed.items,
      cards: served,
      predicted_response: null,
      alternatives_considered: alternatives,
      briefing_token_used: composed.used,
      briefing_token_budget: budget,
      client: req.client ?? null,
      category: category ?? null,
      category_shift: shift,
      auto_included: included?.id ?? null,
      skills,
      composer_session_id: req.composerSessionId ?? null,
      composer_event_id: null,
      created_at: row.createdAt.toISOString(),
    };
  }

  /** Remembers the newest resolution's category; on a shift, the registry stales what was prepared for the old one. */
  private async recordCategory(category: string | undefined): Promise<(CategoryShift & { stale: number }) | null> {
    if (this.categories === undefined) {
      // The row just inserted is among them: read the window, then drop it (it is pushed below).
      const rows = await this.options.store.resolutions.recent(this.options.workspaceId, CATEGORY_WINDOW + 1);
      this.categories = rows.slice(1).map((r) => ((r.details as { category?: string | null }).category ?? undefined));
    }
    this.categories = [category, ...this.categories].slice(0, CATEGORY_WINDOW);
    const shift = detectShift(this.categories);
    if (!shift) return null;
    const stale = this.options.categoryShift ? await this.options.categoryShift(shift) : 0;
    return { ...shift, stale };
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
    await this.options.feedbackRecorded?.();
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
    this.categories = [];
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
