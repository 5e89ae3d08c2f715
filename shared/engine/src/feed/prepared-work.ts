/**
 * PreparedWork: what surfaces do with cards (spec 4.1). The feed (ready, fresh, capped), the
 * diagnostic list, inspect, export, dismiss, feedback and adopt. Reads what cycles stored; never
 * runs detectors or a model (no surface sits in the model's hot path).
 */
import { redactText } from '@sous/protocol';
import type { ScopePolicy } from '@sous/retrieval';
import type { FeedbackValue, Store, WorkProductKind, WorkProductState, WorkProductWithEvidence } from '@sous/store';
import { EngineError } from '../errors';
import type { EngineEvents } from '../events/engine-events';
import { changedEvidence } from '../cycle/freshness';
import { canTransition } from '../work/lifecycle';
import { allowedActions, FEED_CAP, feedCard, inspectCard, type FeedCard } from './cards';
import { exportMarkdown } from './export-markdown';
import type { SkillRanker } from '../skills/ranker';
import { cardSkills } from '../skills/views';

/** Ready cards read to fill the feed (more than the cap: some may turn out stale on the way). */
const FEED_SCAN = 100;

export interface PreparedWorkOptions {
  store: Store;
  workspaceId: string;
  /** The privacy scope in force (exports are redacted by it). */
  policy: () => ScopePolicy;
  /** The file's sha256 as the live index has it (fast; the feed's freshness check). */
  indexedHash: (path: string) => Promise<string | null>;
  /** The file's sha256 on disk (authoritative; export's check). */
  diskHash: (path: string) => Promise<string | null>;
  events?: EngineEvents;
  /** Most cards a feed shows: `exploration.max_ready_cards` as configured now; `FEED_CAP` without it. */
  cap?: () => number;
  /** The skills ranker, to name a card's skills on inspect and adopt (docs/skills.md). Default: ids only. */
  skills?: () => SkillRanker;
}

export interface ExportPayload {
  id: string;
  kind: WorkProductKind;
  format: 'markdown' | 'patch';
  /** A file name a client may save it under. */
  filename: string;
  content: string;
  /** Patch exports: the snapshot it applies to. */
  targets?: Array<{ path: string; sha256: string; git_blob: string }>;
}

export class PreparedWork {
  constructor(private readonly options: PreparedWorkOptions) {}

  /** The feed: ready cards whose evidence still matches the index, best first, at most the cap. */
  async feed(diagnostic = false): Promise<{ cards: FeedCard[]; cap: number }> {
    const { store, workspaceId } = this.options;
    const cap = this.options.cap?.() ?? FEED_CAP;
    const ready = await store.workProducts.listWithEvidence({ workspaceId, states: ['ready'], limit: FEED_SCAN });
    ready.sort((a, b) => (b.score ?? 0) - (a.score ?? 0) || b.updatedAt.getTime() - a.updatedAt.getTime());
    const cards: FeedCard[] = [];
    for (const card of ready) {
      if (cards.length >= cap) break;
      const changed = await changedEvidence(card, this.options.indexedHash);
      if (changed !== undefined) {
        await this.goStale(card, changed.reason);
        continue;
      }
      cards.push(feedCard(card, diagnostic));
    }
    return { cards, cap };
  }

  /** Every card (diagnostic, spec 4.1 `/work-products`), newest first, optionally filtered. */
  async list(filter: { states?: WorkProductState[]; kinds?: WorkProductKind[]; limit?: number }, diagnostic = true): Promise<FeedCard[]> {
    const cards = await this.options.store.workProducts.listWithEvidence({ workspaceId: this.options.workspaceId, ...filter });
    return cards.map((c) => feedCard(c, diagnostic));
  }

  async inspect(id: string, diagnostic = false): Promise<Record<string, unknown>> {
    const card = await this.card(id);
    return { ...inspectCard(card, diagnostic), skills: this.skillsOf(card) };
  }

  /** The skills a card recorded, named where their zone allows. */
  private skillsOf(card: WorkProductWithEvidence): ReturnType<typeof cardSkills> {
    return cardSkills(card.details['skills'], this.options.skills?.() ?? { get: () => undefined });
  }

  /**
   * Service-owned content to take away: a patch for a virtual diff (refused with `conflict` when a
   * target changed since the snapshot), markdown otherwise. Never applies anything.
   */
  async export(id: string): Promise<ExportPayload> {
    const card = await this.card(id);
    if (!allowedActions(card).includes('export')) {
      throw new EngineError('conflict', exportRefusal(card), { state: card.state, reason: card.stateReason });
    }
    const redact = (text: string): string => redactText(text, this.options.policy().redactPatterns);
    if (card.kind === 'virtual_diff') {
      const changed = await changedEvidence(card, this.options.diskHash);
      if (changed !== undefined) {
        await this.goStale(card, changed.reason);
        throw new EngineError('conflict', `this virtual diff is stale: ${changed.reason}`, { state: 'stale', reason: changed.reason });
      }
      const diff = card.details['diff'] as { patch: string; targets: Array<{ path: string; sha256: string; gitBlob: string }> };
      return {
        id: card.id,
        kind: card.kind,
        format: 'patch',
        filename: `sous-${card.id}.patch`,
        content: redact(diff.patch),
        targets: diff.targets.map((t) => ({ path: t.path, sha256: t.sha256, git_blob: t.gitBlob })),
      };
    }
    return { id: card.id, kind: card.kind, format: 'markdown', filename: `sous-${card.id}.md`, content: redact(exportMarkdown(card)) };
  }

  /** Hides a card from every feed for good (idempotent). */
  async dismiss(id: string): Promise<FeedCard> {
    const card = await this.card(id);
    if (card.state === 'hidden') return feedCard(card, false);
    if (!canTransition(card.state, 'dismissed')) {
      throw new EngineError('conflict', `card ${id} is ${card.state}; only ready, candidate or stale cards can be dismissed`, { state: card.state });
    }
    const updated = await this.options.store.workProducts.update(id, { state: 'hidden', stateReason: 'dismissed by the user' });
    this.options.events?.emit({ type: 'card.dismissed', id, kind: card.kind });
    return feedCard(updated ?? card, false);
  }

  /** Records feedback; future cycles score this card's detector by it. */
  async feedback(id: string, value: FeedbackValue, clientId?: string): Promise<{ id: string; value: FeedbackValue; recorded_at: string }> {
    const card = await this.card(id);
    if (!allowedActions(card).includes('feedback')) throw new EngineError('conflict', `card ${id} was superseded; give feedback on the card that replaced it`, { state: card.state, reason: card.stateReason });
    const row = await this.options.store.feedback.record({ workProductId: id, value, ...(clientId ? { clientId } : {}) });
    this.options.events?.emit({ type: 'card.feedback', id, kind: card.kind, value });
    return { id: row.id, value, recorded_at: row.createdAt.toISOString() };
  }

  /**
   * Adopt (spec 2.1): a ready prediction-backed draft becomes the current intent. The prediction is
   * recorded as adopted (source `history`, with the hashes it was made against) and the draft prompt
   * and its briefing are handed over. A draft is adopted once.
   */
  async adopt(id: string): Promise<{ id: string; prediction_id: string; adopted_at: string; prompt: string; briefing: string; skills: ReturnType<typeof cardSkills> }> {
    const card = await this.card(id);
    if (!allowedActions(card).includes('adopt')) {
      const why =
        card.kind !== 'prediction_draft'
          ? `adopt applies to ready prediction-backed drafts; card ${id} is a ${card.kind}`
          : card.details['adopted_at'] !== undefined
            ? `draft ${id} was already adopted at ${String(card.details['adopted_at'])}`
            : `card ${id} is ${card.state}; only a ready draft can be adopted`;
      throw new EngineError('conflict', why, { state: card.state, kind: card.kind });
    }
    const adoptedAt = new Date().toISOString();
    const prediction = await this.options.store.predictions.insert({
      workspaceId: this.options.workspaceId,
      source: 'history',
      title: card.title,
      summary: card.summary,
      state: 'adopted',
      pathHashes: Object.fromEntries(card.evidence.flatMap((e) => (e.contentHash ? [[e.path, e.contentHash]] : []))),
      details: { work_product_id: id, adopted_at: adoptedAt },
    });
    await this.options.store.workProducts.update(id, { details: { ...card.details, adopted_at: adoptedAt, prediction_id: prediction.id } });
    const redact = (text: string): string => redactText(text, this.options.policy().redactPatterns);
    const prompt = (card.details['draft'] as { prompt?: string } | undefined)?.prompt ?? card.body;
    return { id, prediction_id: prediction.id, adopted_at: adoptedAt, prompt: redact(prompt), briefing: redact(card.body), skills: this.skillsOf(card) };
  }

  private async card(id: string): Promise<WorkProductWithEvidence> {
    const card = await this.options.store.workProducts.get(id);
    if (card === undefined || card.workspaceId !== this.options.workspaceId) {
      throw new EngineError('not_found', `no work product ${id}; list them with GET /work-products`);
    }
    return card;
  }

  private async goStale(card: WorkProductWithEvidence, reason: string): Promise<void> {
    if (!canTransition(card.state, 'went_stale')) return;
    await this.options.store.workProducts.update(card.id, { state: 'stale', stateReason: reason });
    if (card.state === 'ready') this.options.events?.emit({ type: 'card.stale', id: card.id, kind: card.kind, reason });
  }
}

function exportRefusal(card: WorkProductWithEvidence): string {
  if (card.state === 'stale') return `this virtual diff is stale: ${card.stateReason ?? 'a target file changed'}; export is blocked until the next cycle regenerates it`;
  if (card.state === 'superseded') return `this card was superseded: ${card.stateReason ?? 'a newer card replaced it'}`;
  return `export is not available for a ${card.state} ${card.kind}`;
}
