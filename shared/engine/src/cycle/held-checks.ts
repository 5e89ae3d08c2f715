/**
 * The cycle's side of `exploration.confirm_held`: which held findings the model is asked about this
 * cycle, and which verdicts are reused. A verdict stays with its card (`details.model_check`) for as
 * long as the card's evidence is the same; a finding whose evidence changed is asked about again.
 */
import type { WorkProductWithEvidence } from '@sous/store';
import type { RepositoryView } from '../view/repository-view';
import { CHECK_CALLS_PER_CYCLE } from '../model/check-held';
import type { Candidate, ModelCheck } from '../work/types';
import { detectorOff, isHeld, storedCheck } from './held';
import { claimKey, sameContent } from './land';

/** The model's verdict on each candidate, same order (`ModelAssist.check`); must not throw. */
export type CheckHeld = (view: RepositoryView, candidates: readonly Candidate[], signal: AbortSignal) => Promise<ReadonlyArray<ModelCheck | undefined>>;

export interface HeldCheckOptions {
  /** Undefined without a model (verdicts stored before are still reused). */
  check: CheckHeld | undefined;
  view: RepositoryView;
  /** Open cards (ready and candidate), for verdicts already given. */
  open: readonly WorkProductWithEvidence[];
  exploration: { detectors_held: readonly string[]; confirm_held: readonly string[] };
  signal: AbortSignal;
  /** Calls this cycle. Default `CHECK_CALLS_PER_CYCLE`. */
  maxCalls?: number;
  /**
   * The score a finding would land with were it not held, or undefined when it would stay a candidate
   * anyway (under the ready bar, its detector suppressed): no call is spent on a finding nobody would see.
   */
  readyScore: (candidate: Candidate) => number | undefined;
}

/** `candidates` with the model's verdicts on the held findings `exploration.confirm_held` names. */
export async function withHeldChecks(candidates: readonly Candidate[], options: HeldCheckOptions): Promise<Candidate[]> {
  const { exploration } = options;
  const out = [...candidates];
  if (exploration.confirm_held.length === 0) return out;
  const asked: Array<{ i: number; score: number }> = [];
  const stored = new Map(options.open.map((card) => [card.claimKey, card]));
  for (const [i, c] of out.entries()) {
    // Findings only: a draft follows its finding's fate, and the model checks claims, not requests.
    if (c.follows !== undefined || !detectorOff(c.detector, exploration.confirm_held) || !isHeld(c, exploration.detectors_held)) continue;
    const card = stored.get(claimKey(c));
    const known = card !== undefined && sameContent(card, c) ? storedCheck(card) : undefined;
    if (known !== undefined) {
      out[i] = withCheck(c, known);
      continue;
    }
    const score = options.readyScore(c);
    if (score !== undefined) asked.push({ i, score });
  }
  const { check } = options;
  if (check === undefined || asked.length === 0) return out;
  // The best scored first; the rest wait for later cycles.
  const now = asked
    .sort((a, b) => b.score - a.score || a.i - b.i)
    .slice(0, options.maxCalls ?? CHECK_CALLS_PER_CYCLE)
    .map((a) => a.i);
  const verdicts = await check(options.view, now.map((i) => out[i]!), options.signal);
  now.forEach((i, k) => {
    const verdict = verdicts[k];
    if (verdict !== undefined) out[i] = withCheck(out[i]!, verdict);
  });
  return out;
}

/** The candidate with its verdict, and, when confirmed, a warning that says who let it through. */
function withCheck(c: Candidate, check: ModelCheck): Candidate {
  if (check.verdict === 'refuted') return { ...c, check };
  const warning = `Its detector is held back (wrong too often on real repositories); the model ${check.model} confirmed this finding from the cited lines (exploration.confirm_held): ${check.why}`;
  return { ...c, check, warnings: [...(c.warnings ?? []), warning] };
}
