/**
 * How cards look on the wire. The default shape is UI-safe: what was prepared, why now, the
 * evidence, the safe action and the actions the server allows. Lifecycle, scores and detector ids
 * are added only for diagnostic clients (`?diagnostic=true`, docs/prepared-work.md).
 */
import { DEFAULT_MAX_READY_CARDS } from '@sous/config';
import type { EvidenceRow, WorkProductRow, WorkProductState, WorkProductWithEvidence } from '@sous/store';

/**
 * Most cards the feed returns when no configured budget is given (invariant 7: the feed is small):
 * the default of `exploration.max_ready_cards`, which also bounds how many cards a cycle keeps ready.
 */
export const FEED_CAP = DEFAULT_MAX_READY_CARDS;

/** Actions a client may offer (spec 2.1); the server lists them per card, clients never infer them. */
export type CardAction = 'inspect' | 'export' | 'adopt' | 'dismiss' | 'feedback';

/** The actions allowed on a card in its current state. */
export function allowedActions(card: Pick<WorkProductRow, 'kind' | 'state' | 'details'>): CardAction[] {
  const actions: CardAction[] = ['inspect'];
  const exportable = card.kind === 'virtual_diff' ? card.state === 'ready' || card.state === 'candidate' : card.state !== 'superseded';
  if (exportable) actions.push('export');
  if (card.kind === 'prediction_draft' && card.state === 'ready' && card.details['adopted_at'] === undefined) actions.push('adopt');
  if (card.state === 'ready' || card.state === 'candidate' || card.state === 'stale') actions.push('dismiss');
  if (card.state !== 'superseded') actions.push('feedback');
  return actions;
}

export interface WireEvidence {
  path: string;
  line_start: number | null;
  line_end: number | null;
  commit: string | null;
  note: string;
  /** Inspect and diagnostic views only. */
  content_hash?: string | null;
}

export interface FeedCard {
  id: string;
  kind: string;
  title: string;
  summary: string;
  why_now: string;
  action: string;
  evidence: WireEvidence[];
  actions: CardAction[];
  prepared_at: string;
  /** Only with `diagnostic`. */
  diagnostic?: Diagnostic;
}

interface Diagnostic {
  state: WorkProductState;
  state_reason: string | null;
  score: number | null;
  score_parts: unknown;
  detector: string;
  claim_key: string | null;
  cycle: unknown;
  trigger: unknown;
  created_at: string;
  updated_at: string;
}

export function wireEvidence(e: EvidenceRow, withHash: boolean): WireEvidence {
  return {
    path: e.path,
    line_start: e.lineStart,
    line_end: e.lineEnd,
    commit: e.commit,
    note: e.note,
    ...(withHash ? { content_hash: e.contentHash } : {}),
  };
}

function diagnostic(card: WorkProductRow): Diagnostic {
  return {
    state: card.state,
    state_reason: card.stateReason,
    score: card.score,
    score_parts: card.details['score_parts'] ?? null,
    detector: card.detector,
    claim_key: card.claimKey,
    cycle: card.details['cycle'] ?? null,
    trigger: card.details['trigger'] ?? null,
    created_at: card.createdAt.toISOString(),
    updated_at: card.updatedAt.toISOString(),
  };
}

/** A card as the feed and lists show it. */
export function feedCard(card: WorkProductWithEvidence, withDiagnostic: boolean): FeedCard {
  return {
    id: card.id,
    kind: card.kind,
    title: card.title,
    summary: card.summary,
    why_now: String(card.details['why_now'] ?? ''),
    action: String(card.details['action'] ?? ''),
    evidence: card.evidence.map((e) => wireEvidence(e, withDiagnostic)),
    actions: allowedActions(card),
    prepared_at: card.updatedAt.toISOString(),
    ...(withDiagnostic ? { diagnostic: diagnostic(card) } : {}),
  };
}

/** Longest preview on inspect, in lines. */
const PREVIEW_LINES = 40;

/** Inspect (spec 2.1): body, rationale, evidence, warnings, preview, allowed actions. */
export function inspectCard(card: WorkProductWithEvidence, withDiagnostic: boolean): Record<string, unknown> {
  const diff = card.details['diff'] as { patch?: string } | undefined;
  const warnings = [...((card.details['warnings'] as string[] | undefined) ?? [])];
  if (card.state === 'stale' && card.stateReason) warnings.unshift(`Stale: ${card.stateReason}`);
  if (card.state === 'superseded' && card.stateReason) warnings.unshift(`Superseded: ${card.stateReason}`);
  const source = diff?.patch ?? card.body;
  const lines = source.split('\n');
  return {
    ...feedCard(card, withDiagnostic),
    evidence: card.evidence.map((e) => wireEvidence(e, true)),
    body: card.body,
    rationale: card.rationale,
    warnings,
    preview: lines.slice(0, PREVIEW_LINES).join('\n') + (lines.length > PREVIEW_LINES ? '\n…' : ''),
  };
}
