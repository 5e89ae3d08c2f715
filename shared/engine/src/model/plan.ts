/**
 * Which model calls a cycle makes, within one budget: research briefs, rationales, draft rewrites
 * and angles, each behind `exploration.llm_gate` and a cap of its own. The calls are made in turns
 * (a brief, a draft, a rationale, an angle, then again) so that a small budget is shared rather than
 * spent on one pass. A candidate gets a brief or a rationale, not both: the brief already explains it.
 */
import type { LlmGate } from '@sous/config';
import { claimKey } from '../cycle/land';
import type { ModelContext } from '../cycle/run-cycle';
import type { RepositoryView } from '../view/repository-view';
import type { Candidate } from '../work/types';
import { anglePrompt, draftPrompt, rationalePrompt, researchBriefPrompt, type PromptMessage } from './prompts';

/** Under the `non_trivial` gate, only candidates at least this strong reach the model. */
export const NON_TRIVIAL_MIN_STRENGTH = 0.6;
/** Under the `non_trivial` gate, angles are asked only about files at most this large (the whole file must fit the prompt). */
export const ANGLE_MAX_FILE_BYTES = 5_000;
/** Calls per pass and cycle; their sum is the default budget. */
export const PASS_CAPS = { brief: 2, draft: 1, rationale: 2, angle: 1 } as const;

export type Pass = keyof typeof PASS_CAPS;
/** Calls per pass and cycle (Deep-Run deepens them). */
export type PassCaps = Readonly<Record<Pass, number>>;
/** The order passes take their turns in. */
const TURNS: readonly Pass[] = ['brief', 'draft', 'rationale', 'angle'];

export type ModelTask =
  | { pass: 'brief' | 'rationale' | 'draft'; index: number; prompt: PromptMessage[] }
  | { pass: 'angle'; path: string; sha256: string; why: string; prompt: PromptMessage[] };

/**
 * Kinds worth a brief: a suspected bug or a review finding asks for understanding. Mechanical
 * findings (docs drift, a patch) and a leaked key need none; a brief on them would only be noise.
 */
const BRIEFED_KINDS: ReadonlySet<Candidate['kind']> = new Set(['bug_hypothesis', 'review_note']);
/** Code is where angles are looked for; prose and data files are the docs detectors' business. */
const NOT_CODE: ReadonlySet<string> = new Set(['markdown', 'json', 'yaml', 'toml', 'text']);
/** A leaked key's card says only where it is; nothing about it is worth a model's words. */
const SECRET_DETECTOR = 'review.secret_added';

/**
 * The calls to make, in order, at most `limit`. `askedBefore` says whether angles were already asked
 * about a file in this version (by this assist, in an earlier cycle).
 */
export function planCalls(
  view: RepositoryView,
  candidates: readonly Candidate[],
  gate: LlmGate,
  limit: number,
  context: ModelContext | undefined,
  askedBefore: (path: string, sha256: string) => boolean = () => false,
  caps: PassCaps = PASS_CAPS,
): ModelTask[] {
  if (gate === 'never' || limit <= 0) return [];
  const ordered = candidates
    .map((c, index) => ({ c, index }))
    .filter(({ c }) => c.detector !== SECRET_DETECTOR && passesGate(view, c, gate))
    .sort((a, b) => b.c.strength - a.c.strength || a.index - b.index);
  const taken = new Set<number>();
  const fresh = (c: Pick<Candidate, 'detector' | 'claim' | 'title' | 'evidence'>): boolean => context?.prepared(c) !== true;
  const next: Record<Pass, () => ModelTask | undefined> = {
    brief: nextOf(ordered, taken, (c) => (BRIEFED_KINDS.has(c.kind) && fresh(briefShell(c)) ? researchBriefPrompt(view, c) : undefined), 'brief'),
    draft: nextOf(ordered, taken, (c) => (c.kind === 'prediction_draft' && fresh(c) ? draftPrompt(view, c) : undefined), 'draft'),
    rationale: nextOf(ordered, taken, (c) => (c.kind !== 'prediction_draft' && c.kind !== 'research_brief' && fresh(c) ? rationalePrompt(view, c) : undefined), 'rationale'),
    angle: angleTasks(view, gate, context, askedBefore),
  };
  // Each pass picks its share in turn order (briefs first, so the strongest findings get one), then
  // the calls are interleaved so that a budget smaller than the caps' sum still reaches every pass.
  const picked = TURNS.map((pass) => {
    const out: ModelTask[] = [];
    while (out.length < caps[pass]) {
      const task = next[pass]();
      if (task === undefined) break;
      out.push(task);
    }
    return out;
  });
  const tasks: ModelTask[] = [];
  for (let round = 0; tasks.length < limit && picked.some((p) => p.length > round); round++) {
    for (const p of picked) if (p[round] !== undefined && tasks.length < limit) tasks.push(p[round]!);
  }
  return tasks;
}

/** The cheap checks of `non_trivial`: strong enough, and about a file the index holds. */
function passesGate(view: RepositoryView, c: Candidate, gate: LlmGate): boolean {
  if (gate === 'always') return true;
  return c.strength >= NON_TRIVIAL_MIN_STRENGTH && c.evidence.some((e) => view.file(e.path) !== undefined);
}

/** Walks the ordered candidates for one pass; a candidate serves one pass only. */
function nextOf(
  ordered: ReadonlyArray<{ c: Candidate; index: number }>,
  taken: Set<number>,
  prompt: (c: Candidate) => PromptMessage[] | undefined,
  pass: 'brief' | 'rationale' | 'draft',
): () => ModelTask | undefined {
  let at = 0;
  return () => {
    while (at < ordered.length) {
      const { c, index } = ordered[at++]!;
      if (taken.has(index)) continue;
      const messages = prompt(c);
      if (messages === undefined) continue;
      taken.add(index);
      return { pass, index, prompt: messages };
    }
    return undefined;
  };
}

/**
 * Files to ask for angles: recently changed, indexed, in scope, code, not looked at in this version
 * already (asked before, or an open angle card cites it); under `non_trivial` also small enough to
 * show whole.
 */
function angleTasks(view: RepositoryView, gate: LlmGate, context: ModelContext | undefined, askedBefore: (path: string, sha256: string) => boolean): () => ModelTask | undefined {
  const paths = [...(context?.changed ?? [])];
  return () => {
    while (paths.length > 0) {
      const path = paths.shift()!;
      const file = view.file(path);
      if (file === undefined || !view.policy.inScope(path) || NOT_CODE.has(file.language)) continue;
      if (askedBefore(path, file.sha256) || context?.cites('model.angle', path, file.sha256) === true) continue;
      if (gate === 'non_trivial' && file.bytes > ANGLE_MAX_FILE_BYTES) continue;
      const why = `${path} changed recently (uncommitted work or one of the latest commits).`;
      const prompt = anglePrompt(view, path, why, { whole: gate === 'non_trivial' });
      if (prompt !== undefined) return { pass: 'angle', path, sha256: file.sha256, why, prompt };
    }
    return undefined;
  };
}

/** The parts of a candidate's brief that decide whether it is already stored. */
export function briefShell(source: Candidate): Pick<Candidate, 'detector' | 'claim' | 'title' | 'evidence'> {
  return { detector: 'model.research_brief', claim: `brief|${claimKey(source)}`, title: `Research brief: ${source.title}`, evidence: source.evidence };
}
