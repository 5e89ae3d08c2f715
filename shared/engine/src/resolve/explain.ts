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
  /** `prompt`, `evidence` (see docs/resolve.md) or null on a miss. */
  match: 'prompt' | 'evidence' | null;
  similarity: number;
  threshold: number;
  prediction_id: string | null;
  prompt_sha256: string;
  /** The area the evidence points at (category_shift compares these). */
  category: string | null;
  /** The bundle's context-injection mode the briefing was composed under. */
  context_injection: string | null;
  auto_included: string | null;
  composer_session_id: string | null;
  /** The composer event attributed to this resolution on adoption (spec 2.5), else null. */
  composer_event_id: string | null;
  evidence: Array<{ path: string; lines: { start: number | null; end: number | null }; score: number | null }>;
  cards: string[];
  /** Ids of the skills the briefing named (docs/skills.md); feedback on the resolution reaches them. */
  skills: string[];
  alternatives_considered: unknown[];
  briefing_token_used: number;
  briefing_token_budget: number;
  feedback: Array<{ value: string; client: string | null; recorded_at: string }>;
  /** Why it came out this way, one sentence each. */
  rationale: string[];
}

type Details = {
  client?: string | null;
  cache?: 'hit' | 'miss';
  match?: 'prompt' | 'evidence' | null;
  similarity?: number;
  threshold?: number;
  prediction_id?: string | null;
  scores?: number[];
  cards?: string[];
  category?: string | null;
  context_injection?: string;
  auto_included?: string | null;
  composer_session_id?: string | null;
  skills?: string[];
};

export function explainResolution(row: ResolutionRow, feedback: FeedbackRow[]): ResolutionExplanation {
  const d = row.details as Details;
  const cache = d.cache ?? 'miss';
  const similarity = d.similarity ?? 0;
  const threshold = d.threshold ?? 0;
  const match = d.match ?? (cache === 'hit' ? 'prompt' : null);
  const rationale = [
    match === 'prompt'
      ? `Served from prediction ${d.prediction_id}'s prepared briefing: the prompt's words overlap its anticipated prompt with similarity ${similarity} (threshold ${threshold}).`
      : match === 'evidence'
        ? `Matched prediction ${d.prediction_id} by evidence: the live index's top files for the prompt lie in its prepared briefing (word similarity ${similarity} was below ${threshold}).`
        : `No ready prediction came within the threshold (best similarity ${similarity}, threshold ${threshold}): the live index ranked evidence for the prompt.`,
    `${row.evidence.length} evidence item(s) fit the budget (${row.briefingTokenUsed} of ${row.briefingTokenBudget} tokens).`,
  ];
  if ((d.cards ?? []).length) rationale.push(`${d.cards!.length} ready card(s) share a path with the evidence.`);
  if ((d.skills ?? []).length) rationale.push(`${d.skills!.length} skill(s) relevant to the prompt were named; feedback on this resolution counts for them.`);
  if (d.auto_included) rationale.push(`Context injection top_match_auto_include appended prediction ${d.auto_included}'s prepared briefing.`);
  if (row.composerEventId) rationale.push(`Adopted: composer event ${row.composerEventId} is attributed to it.`);
  return {
    resolution_id: row.id,
    created_at: row.createdAt.toISOString(),
    client: d.client ?? null,
    cache,
    match,
    similarity,
    threshold,
    prediction_id: d.prediction_id ?? null,
    prompt_sha256: row.promptHash,
    category: d.category ?? null,
    context_injection: d.context_injection ?? null,
    auto_included: d.auto_included ?? null,
    composer_session_id: d.composer_session_id ?? null,
    composer_event_id: row.composerEventId ?? null,
    evidence: row.evidence.map((e, i) => ({ path: e.path, lines: { start: e.lineStart ?? null, end: e.lineEnd ?? null }, score: d.scores?.[i] ?? null })),
    cards: d.cards ?? [],
    skills: d.skills ?? [],
    alternatives_considered: row.alternativesConsidered,
    briefing_token_used: row.briefingTokenUsed,
    briefing_token_budget: row.briefingTokenBudget,
    feedback: feedback.map((f) => ({ value: f.value, client: f.clientId ?? null, recorded_at: f.createdAt.toISOString() })),
    rationale,
  };
}
