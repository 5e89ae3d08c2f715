/**
 * What a stored resolution says about itself (docs/resolve.md): `explain` and `sous inspect --last`
 * read it back. Built from the row only — hashes, paths, lines, scores and ids — since the prompt and
 * the index's rationale text (which names matched prompt terms) were never stored.
 */
import type { FeedbackRow, ResolutionRow } from '@sous/store';

export interface ResolutionExplanation {
  resolution_id: string;
  created_at: string;
  client: string | null;
  cache: 'hit' | 'miss';
  similarity: number;
  threshold: number;
  prediction_id: string | null;
  prompt_sha256: string;
  evidence: Array<{ path: string; lines: { start: number | null; end: number | null }; score: number | null }>;
  cards: string[];
  alternatives_considered: unknown[];
  briefing_token_used: number;
  briefing_token_budget: number;
  feedback: Array<{ value: string; client: string | null; recorded_at: string }>;
  /** Why it came out this way, one sentence each. */
  rationale: string[];
}

type Details = { client?: string | null; cache?: 'hit' | 'miss'; similarity?: number; threshold?: number; prediction_id?: string | null; scores?: number[]; cards?: string[] };

export function explainResolution(row: ResolutionRow, feedback: FeedbackRow[]): ResolutionExplanation {
  const d = row.details as Details;
  const cache = d.cache ?? 'miss';
  const similarity = d.similarity ?? 0;
  const threshold = d.threshold ?? 0;
  const rationale = [
    cache === 'hit'
      ? `Served from prediction ${d.prediction_id}'s prepared briefing: the prompt's words overlap its anticipated prompt with similarity ${similarity} (threshold ${threshold}).`
      : `No ready prediction came within the threshold (best similarity ${similarity}, threshold ${threshold}): the live index ranked evidence for the prompt.`,
    `${row.evidence.length} evidence item(s) fit the budget (${row.briefingTokenUsed} of ${row.briefingTokenBudget} tokens).`,
  ];
  if ((d.cards ?? []).length) rationale.push(`${d.cards!.length} ready card(s) share a path with the evidence.`);
  return {
    resolution_id: row.id,
    created_at: row.createdAt.toISOString(),
    client: d.client ?? null,
    cache,
    similarity,
    threshold,
    prediction_id: d.prediction_id ?? null,
    prompt_sha256: row.promptHash,
    evidence: row.evidence.map((e, i) => ({ path: e.path, lines: { start: e.lineStart ?? null, end: e.lineEnd ?? null }, score: d.scores?.[i] ?? null })),
    cards: d.cards ?? [],
    alternatives_considered: row.alternativesConsidered,
    briefing_token_used: row.briefingTokenUsed,
    briefing_token_budget: row.briefingTokenBudget,
    feedback: feedback.map((f) => ({ value: f.value, client: f.clientId ?? null, recorded_at: f.createdAt.toISOString() })),
    rationale,
  };
}
