/**
 * The evidence match of resolve (docs/resolve.md#cache-lookup): a prompt whose words match no
 * prediction can still be what one was prepared for, when the live index's answer to it lands in the
 * prepared briefing's files. Paths only; cheap next to the ranking that produced them.
 */
import type { BriefingItem } from '../predictions/predictions';

/** Top distinct paths of the live answer compared. */
export const EVIDENCE_TOP = 5;
/** Fewer distinct paths than this in the live answer: no evidence match (in a tiny repository every answer covers every briefing). */
export const EVIDENCE_MIN_PATHS = 3;
/** Share of the live top paths (the first one included) the prepared briefing must hold. */
export const EVIDENCE_THRESHOLD = 0.6;

/**
 * The share of the live answer's top EVIDENCE_TOP distinct paths found among the prepared briefing's
 * paths; 0 when the live answer has fewer than EVIDENCE_MIN_PATHS distinct paths or its first path is
 * not prepared.
 */
export function evidenceCoverage(live: BriefingItem[], prepared: BriefingItem[]): number {
  const top = [...new Set(live.map((i) => i.path))].slice(0, EVIDENCE_TOP);
  if (top.length < EVIDENCE_MIN_PATHS) return 0;
  const have = new Set(prepared.map((i) => i.path));
  if (!have.has(top[0]!)) return 0;
  return top.filter((p) => have.has(p)).length / top.length;
}
