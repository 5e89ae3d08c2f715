/**
 * How a prediction row reads on the wire (HTTP, MCP) and the shape of its `details` (docs/predictions.md).
 */
import type { PredictionRow, PredictionSource, PredictionState, StaleReason } from '@sous/store';
import { categoryOf } from './category';
import type { PathHashes } from './rules';

/** One ranked evidence item of a briefing: where and why, never file contents. */
export interface BriefingItem {
  path: string;
  score: number;
  rationale: string[];
  /** 1-based inclusive lines the index would serve (redacted) for this prompt. */
  lines: { start: number; end: number };
}

export interface Briefing {
  items: BriefingItem[];
}

/** A prediction on the wire (HTTP, MCP). */
export interface PredictionView {
  id: string;
  source: PredictionSource;
  /** The anticipated prompt. */
  prompt: string;
  weight: number;
  state: PredictionState;
  stale_reason: StaleReason | null;
  goal_id: string | null;
  /** The composer session a `composer_intent` prediction belongs to, else null. */
  composer_session_id: string | null;
  /** The composer event an adoption attributes to (spec 2.5), else null. */
  composer_event_id: string | null;
  /** For an adopted prediction: `pending` (refinement's confirmation window), `confirmed`; `withdrawn` once contradicted; else null. */
  adoption: Adoption['status'] | null;
  /** When a pending adoption is confirmed unless contradicted first, else null. */
  adoption_confirm_at: string | null;
  /** The area its briefing (else its evidence) points at: what `category_shift` compares (docs/predictions.md). */
  category: string | null;
  /** For a `history` prediction: the sha256 of the past request's sorted words, which a repeat matches; else null. */
  prompt_key: string | null;
  /** Path → sha256 the prediction was made against (null: the file did not exist). */
  evidence: PathHashes;
  briefing: Briefing | null;
  created_at: string;
  updated_at: string;
}


/** An adoption under refinement: pending until `confirm_at`, then confirmed, or withdrawn when contradicted. */
export interface Adoption {
  status: 'pending' | 'confirmed' | 'withdrawn';
  confirm_at?: string;
}
export type Details = { briefing?: Briefing | null; area?: string; query?: string; composer_event_id?: string; adoption?: Adoption; category?: string | null; prompt_key?: string };

/** The category a prediction was prepared for: stored at preparation, else read from its briefing or evidence paths. */
export function categoryOfRow(row: PredictionRow): string | null {
  const d = row.details as Details;
  if (typeof d.category === 'string') return d.category;
  const paths = d.briefing?.items.map((i) => i.path) ?? Object.keys(row.pathHashes);
  return categoryOf(paths) ?? null;
}

export function predictionView(row: PredictionRow): PredictionView {
  const d = row.details as Details;
  return {
    id: row.id,
    source: row.source,
    prompt: row.title,
    weight: row.weight,
    state: row.state,
    stale_reason: row.staleReason ?? null,
    goal_id: row.goalId ?? null,
    composer_session_id: row.composerSessionId ?? null,
    composer_event_id: d.composer_event_id ?? null,
    adoption: d.adoption?.status ?? (row.state === 'adopted' ? 'confirmed' : null),
    adoption_confirm_at: d.adoption?.status === 'pending' ? (d.adoption.confirm_at ?? null) : null,
    category: categoryOfRow(row),
    prompt_key: d.prompt_key ?? null,
    evidence: row.pathHashes as PathHashes,
    briefing: d.briefing ?? null,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}

/** Most weight first; ties: most recently updated first (the store's order). */
export function byWeight(rows: PredictionRow[]): PredictionView[] {
  return rows.map(predictionView).sort((a, b) => b.weight - a.weight);
}

