/**
 * What a cycle tells the model besides its candidates: the recently changed files (where angles are
 * looked for) and which claims already have a stored card with model text. Landing keeps a stored
 * card's text when its claim, title and evidence are unchanged (adding model text to a card stored
 * without), so the model's calls go to what is new; and a kept draft keeps the prompt its stored
 * body shows, unless the model now writes one for a card that had none.
 */
import type { WorkProductWithEvidence } from '@sous/store';
import { claimKey } from '../cycle/land';
import { modelWrote } from './byline';
import type { ModelContext } from '../cycle/run-cycle';
import type { Frontier } from '../detectors/types';
import type { Candidate, EvidenceRef } from '../work/types';

/** The context for `propose`, from this cycle's frontier and seeds and the open cards. */
export function modelContext(frontier: Frontier, seeds: ReadonlyMap<string, number>, open: readonly WorkProductWithEvidence[]): ModelContext {
  const byKey = openByKey(open);
  return {
    changed: frontier.entries.filter((e) => seeds.has(e.path)).map((e) => e.path),
    // A card stored without model text (the backend was down then) is asked about again.
    prepared: (c) => {
      const card = storedAs(byKey, c);
      return card !== undefined && modelWrote(card.body);
    },
    cites: (detector, path, sha256) => open.some((card) => card.detector === detector && card.evidence.some((e) => e.path === path && e.contentHash === sha256)),
  };
}

/**
 * Drafts landing would keep as they are stored take the stored prompt and warnings: landing rewrites
 * a kept card's details (where adopt reads the prompt) but not its body, and the two must agree, also
 * when this cycle had no model and the stored prompt is the model's.
 */
export function keepStoredDrafts(candidates: readonly Candidate[], open: readonly WorkProductWithEvidence[]): Candidate[] {
  const byKey = openByKey(open);
  return candidates.map((c) => {
    if (c.kind !== 'prediction_draft') return c;
    const stored = storedAs(byKey, c);
    const draft = stored?.details['draft'] as { prompt?: unknown } | undefined;
    if (stored === undefined || typeof draft?.prompt !== 'string') return c;
    // The model's draft for a card stored without one replaces the stored text (see land.ts).
    if (modelWrote(c.body) && !modelWrote(stored.body)) return c;
    const warnings = stored.details['warnings'];
    return { ...c, draft: { prompt: draft.prompt }, warnings: Array.isArray(warnings) ? warnings.filter((w): w is string => typeof w === 'string') : [] };
  });
}

function openByKey(open: readonly WorkProductWithEvidence[]): Map<string, WorkProductWithEvidence> {
  const byKey = new Map<string, WorkProductWithEvidence>();
  for (const card of open) if (card.claimKey !== null) byKey.set(card.claimKey, card);
  return byKey;
}

/** The open card landing would keep for `c`: same claim, same title, the same evidence first. */
function storedAs(byKey: ReadonlyMap<string, WorkProductWithEvidence>, c: Pick<Candidate, 'detector' | 'claim' | 'title' | 'evidence'>): WorkProductWithEvidence | undefined {
  const card = byKey.get(claimKey(c));
  if (card === undefined || card.title !== c.title || card.evidence.length < c.evidence.length) return undefined;
  // Landing stores a patch's extra targets after the cited evidence; the cited part decides here.
  return c.evidence.every((e, i) => sameRef(card.evidence[i], e)) ? card : undefined;
}

function sameRef(row: WorkProductWithEvidence['evidence'][number] | undefined, e: EvidenceRef): boolean {
  return (
    row !== undefined &&
    row.path === e.path &&
    row.lineStart === (e.lineStart ?? null) &&
    row.lineEnd === (e.lineEnd ?? null) &&
    row.contentHash === (e.contentHash ?? null) &&
    row.commit === (e.commit ?? null)
  );
}
