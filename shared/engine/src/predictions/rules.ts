/**
 * The prediction rules as pure functions (spec 2.4; docs/predictions.md): the weight a source starts
 * with, how an invalidation signal demotes it, and the area an arc of edits names. Nothing here reads
 * a clock: the same signals give the same weights however much time passes.
 */
import type { PredictionSource } from '@sous/store';

/** The weight a new prediction starts with: declared intent counts more than an inferred arc. */
export const BASE_WEIGHT: Record<PredictionSource, number> = { goal: 1, composer_intent: 0.9, arc: 0.6, pattern: 0.4, history: 0.3 };

/** Each invalidation signal halves the weight (a stale prediction is still listed, lower). */
export const DEMOTION = 0.5;

export function demote(weight: number): number {
  return Math.round(weight * DEMOTION * 1e6) / 1e6;
}

/** Path → sha256 (null: missing or outside the privacy scope). */
export type PathHashes = Record<string, string | null>;

/** The evidence paths whose content is no longer what the prediction was made against. */
export function changedPaths(evidence: PathHashes, now: PathHashes): string[] {
  return Object.keys(evidence).filter((p) => (evidence[p] ?? null) !== (now[p] ?? null));
}

/**
 * The area an arc of edits names: the directory holding most of the changed paths (ties: the one
 * listed first), `.` for the repository root.
 */
export function arcArea(paths: string[]): string | undefined {
  const counts = new Map<string, number>();
  for (const p of paths) {
    const dir = p.includes('/') ? p.slice(0, p.lastIndexOf('/')) : '.';
    counts.set(dir, (counts.get(dir) ?? 0) + 1);
  }
  let best: string | undefined;
  for (const [dir, n] of counts) if (best === undefined || n > counts.get(best)!) best = dir;
  return best;
}
