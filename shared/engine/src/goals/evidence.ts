/**
 * Goal reconciliation as a pure function (spec 2.3): a goal's evidence is the content hash each
 * related file had when the goal was declared or last re-activated (null: the file did not exist
 * or was outside the privacy scope). Comparing it with the repository now gives the goal's
 * reconciliation state. Deterministic: the same evidence and the same files give the same answer;
 * nothing decays with time.
 */

/** The reconciliation states Sous maintains (docs/goals.md). */
export const RECONCILIATION_STATES = ['unreconciled', 'current', 'stale', 'confirmed'] as const;
export type ReconciliationState = (typeof RECONCILIATION_STATES)[number];

/** Path → sha256 when the evidence was recorded, null when the file was absent then. */
export type GoalEvidence = Record<string, string | null>;

export interface Reconciliation {
  state: ReconciliationState;
  /** Why, one sentence per file that moved the state; empty for `current`. */
  reasons: string[];
}

/**
 * The state of a goal whose evidence is `evidence` when its related files hash to `now`:
 * - `stale` (demoted) when a file that existed was deleted or changed since the evidence was recorded;
 * - `confirmed` (promoted) when nothing went stale and a file that was missing now exists (the work
 *   the goal names has started landing);
 * - `current` when every file still matches its evidence.
 * Stale wins over confirming: one broken link is enough for the user to look again.
 */
export function reconcile(evidence: GoalEvidence, now: GoalEvidence): Reconciliation {
  const stale: string[] = [];
  const confirming: string[] = [];
  for (const [path, then] of Object.entries(evidence)) {
    const current = now[path] ?? null;
    if (then !== null && current === null) stale.push(`${path} was deleted`);
    else if (then !== null && current !== then) stale.push(`${path} changed since declared`);
    else if (then === null && current !== null) confirming.push(`${path} now exists`);
  }
  if (stale.length > 0) return { state: 'stale', reasons: stale };
  if (confirming.length > 0) return { state: 'confirmed', reasons: confirming };
  return { state: 'current', reasons: [] };
}

/**
 * A related-file path in its one canonical form (workspace-relative, `/`-separated, no `.` segments),
 * or undefined when it is not one: absolute, escaping with `..`, empty, or carrying a backslash.
 */
export function canonicalRelatedPath(raw: string): string | undefined {
  if (raw.includes('\\') || raw.startsWith('/') || /^[a-zA-Z]:/.test(raw)) return undefined;
  const parts = raw.split('/').filter((p) => p !== '' && p !== '.');
  if (parts.length === 0 || parts.includes('..')) return undefined;
  return parts.join('/');
}
