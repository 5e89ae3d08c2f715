/**
 * Landing: turning a scored candidate into a stored card, or leaving the stored card as it is.
 * The claim key (detector + claim) decides identity: the same claim with the same evidence is the
 * same card (its state follows the new score; a stale one is regenerated), the same claim with
 * other evidence supersedes the old card, and a dismissed claim stays hidden.
 */
import type { EvidenceInput, Store, WorkProductState, WorkProductWithEvidence } from '@sous/store';
import type { EngineEvents } from '../events/engine-events';
import { modelWrote } from '../model/byline';
import { canTransition } from '../work/lifecycle';
import type { Candidate, EvidenceRef } from '../work/types';
import type { ScoreParts } from './score';

/** The key that makes two findings the same claim. */
export function claimKey(candidate: Pick<Candidate, 'detector' | 'claim'>): string {
  return `${candidate.detector}|${candidate.claim}`;
}

/** What landing did with one candidate. */
export type LandOutcome = 'inserted' | 'kept' | 'updated' | 'superseded' | 'dismissed_before';

export interface Scored {
  candidate: Candidate;
  score: number;
  parts: ScoreParts;
  state: Extract<WorkProductState, 'ready' | 'candidate'>;
  /** Why a candidate that scored high enough to be ready is held back (the feed budget, or a held detector). */
  held?: string;
}

export interface LandContext {
  store: Store;
  workspaceId: string;
  events?: EngineEvents;
  cycleId: string;
  trigger: string;
}

/** Stores one scored candidate; returns what happened and the card id it ended up as. */
export async function land(ctx: LandContext, scored: Scored): Promise<{ outcome: LandOutcome; id: string; state: WorkProductState }> {
  const { candidate } = scored;
  const key = claimKey(candidate);
  const existing = await ctx.store.workProducts.findByClaim(ctx.workspaceId, key);
  if (existing?.state === 'hidden') return { outcome: 'dismissed_before', id: existing.id, state: 'hidden' };

  if (existing !== undefined && sameContent(existing, candidate)) {
    const from = existing.state;
    // The same card keeps its text, except that what the model wrote is added to a card stored
    // without it (the backend was down or busy then).
    const text = modelWrote(candidate.body) && !modelWrote(existing.body) ? { body: candidate.body, summary: candidate.summary } : {};
    if (from === scored.state) {
      // A held card's reason may have grown (the model's verdict came later); other reasons stay as set.
      const reason = scored.held !== undefined && scored.held !== existing.stateReason ? { stateReason: scored.held } : {};
      await ctx.store.workProducts.update(existing.id, { score: scored.score, details: details(ctx, scored), ...reason, ...text });
      return { outcome: 'kept', id: existing.id, state: from };
    }
    const transition = from === 'stale' ? 'regenerated' : scored.state === 'ready' ? 'landed' : 'held';
    if (!canTransition(from, transition)) return { outcome: 'kept', id: existing.id, state: from };
    await ctx.store.workProducts.update(existing.id, { state: scored.state, score: scored.score, stateReason: scored.held ?? null, details: details(ctx, scored), ...text });
    if (scored.state === 'ready') ctx.events?.emit({ type: 'card.landed', id: existing.id, kind: candidate.kind, title: candidate.title });
    return { outcome: 'updated', id: existing.id, state: scored.state };
  }

  const row = await ctx.store.workProducts.insert({
    workspaceId: ctx.workspaceId,
    kind: candidate.kind,
    state: scored.state,
    title: candidate.title,
    summary: candidate.summary,
    body: candidate.body,
    rationale: rationale(scored),
    details: details(ctx, scored),
    detector: candidate.detector,
    claimKey: key,
    score: scored.score,
    ...(scored.held !== undefined ? { stateReason: scored.held } : {}),
    evidence: evidenceOf(candidate).map(evidenceInput),
  });
  if (scored.state === 'ready') ctx.events?.emit({ type: 'card.landed', id: row.id, kind: candidate.kind, title: candidate.title });
  if (existing !== undefined) {
    await ctx.store.workProducts.update(existing.id, { state: 'superseded', stateReason: `superseded by ${row.id}: the same claim with newer evidence` });
    ctx.events?.emit({ type: 'card.superseded', id: existing.id, kind: existing.kind, by: row.id });
    return { outcome: 'superseded', id: row.id, state: scored.state };
  }
  return { outcome: 'inserted', id: row.id, state: scored.state };
}

/** The candidate's evidence plus any patch target it does not cite (so freshness watches every target). */
function evidenceOf(c: Candidate): EvidenceRef[] {
  const extra = (c.diff?.targets ?? [])
    .filter((t) => !c.evidence.some((e) => e.path === t.path && e.contentHash === t.sha256))
    .map((t) => ({ path: t.path, contentHash: t.sha256, note: 'file the patch changes' }));
  return [...c.evidence, ...extra];
}

function evidenceInput(e: EvidenceRef): EvidenceInput {
  return {
    path: e.path,
    note: e.note,
    ...(e.lineStart === undefined ? {} : { lineStart: e.lineStart }),
    ...(e.lineEnd === undefined ? {} : { lineEnd: e.lineEnd }),
    ...(e.contentHash === undefined ? {} : { contentHash: e.contentHash }),
    ...(e.commit === undefined ? {} : { commit: e.commit }),
  };
}

/** Same evidence (paths, lines, hashes, commits), same patch, same title: nothing new to show (its text and the model's verdict stay). */
export function sameContent(card: WorkProductWithEvidence, candidate: Candidate): boolean {
  const stored = card.evidence.map((e) => [e.path, e.lineStart ?? null, e.lineEnd ?? null, e.contentHash ?? null, e.commit ?? null]);
  const fresh = evidenceOf(candidate).map((e) => [e.path, e.lineStart ?? null, e.lineEnd ?? null, e.contentHash ?? null, e.commit ?? null]);
  const storedPatch = (card.details['diff'] as { patch?: string } | undefined)?.patch ?? null;
  return JSON.stringify(stored) === JSON.stringify(fresh) && storedPatch === (candidate.diff?.patch ?? null) && card.title === candidate.title;
}

/** Why now, and why this angle won, in words (the numbers are in `details.score_parts`). */
function rationale(scored: Scored): string {
  const c = scored.candidate;
  const reasons: string[] = [];
  if (scored.parts.strength >= 0.8) reasons.push('the evidence is precise');
  if (scored.parts.relevance >= 0.8) reasons.push('it concerns files you are changing now');
  else if (scored.parts.relevance > 0) reasons.push('it concerns files near recent changes');
  if (scored.parts.novelty < 1) reasons.push('another card already covers part of it');
  if (scored.parts.usefulness > 0.6) reasons.push('cards of this kind were marked useful here');
  return `${c.whyNow}${reasons.length ? ` Chosen because ${reasons.join(', ')}.` : ''}`;
}

function details(ctx: LandContext, scored: Scored): Record<string, unknown> {
  const c = scored.candidate;
  return {
    why_now: c.whyNow,
    action: c.action,
    targets: c.targets,
    ...(c.warnings?.length ? { warnings: c.warnings } : {}),
    ...(c.diff ? { diff: c.diff } : {}),
    ...(c.draft ? { draft: c.draft } : {}),
    ...(c.follows !== undefined ? { follows: c.follows } : {}),
    ...(c.check !== undefined ? { model_check: c.check } : {}),
    // Ids only (never a skill's text): feedback on the card reaches these skills through the skills loop.
    ...(c.skills?.length ? { skills: c.skills.map((s) => s.id) } : {}),
    score_parts: scored.parts,
    ...(scored.held !== undefined ? { held: scored.held } : {}),
    cycle: ctx.cycleId,
    trigger: ctx.trigger,
  };
}
