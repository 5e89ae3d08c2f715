/**
 * One preparation cycle (spec 1): build the frontier from the trigger and recent activity, let every
 * detector propose candidates, let the model (when there is one) write rationales and draft prompts
 * and add briefs and angles, score each candidate, land the strongest as ready, keep the rest as
 * candidates, and retire cards whose claim is no longer found. Bounded by the caller's AbortSignal
 * (`compute.max_cycle_seconds` in the daemon).
 */
import * as os from 'node:os';
import type { SousConfig } from '@sous/config';
import type { Store, WorkProductWithEvidence } from '@sous/store';
import { newId } from '@sous/store';
import type { Detector, DetectorResult, Frontier } from '../detectors/types';
import type { EngineEvents } from '../events/engine-events';
import type { RepositoryView } from '../view/repository-view';
import { keepStoredDrafts, modelContext } from '../model/cycle-context';
import { withSkills, type CycleSkills } from '../skills/assign';
import type { Candidate, CycleTrigger, ModelCheck } from '../work/types';
import { buildFrontier, frontierSeeds } from './frontier';
import { applyFeedBudget, heldByBudget } from './budget';
import { detectorOff, heldByDetector, isHeld } from './held';
import { withHeldChecks } from './held-checks';
import { claimKey, land, type Scored } from './land';
import { combine, READY_THRESHOLD, suppressed, usefulness, type FeedbackCounts, type ScoreParts } from './score';

/** Commits whose files seed the frontier. */
export const FRONTIER_COMMITS = 5;
/** Cards loaded to judge novelty and retire what is gone. */
const CARDS_CONSIDERED = 500;

/** What the model is told about a cycle besides its candidates (see model/cycle-context.ts). */
export interface ModelContext {
  /** Recently changed files on the frontier (trigger paths, uncommitted work, latest commits), highest priority first. */
  changed: readonly string[];
  /**
   * Whether an open card with this claim, title and evidence is stored: landing keeps a stored card's
   * text, so anything the model wrote for it again would be lost.
   */
  prepared(candidate: Pick<Candidate, 'detector' | 'claim' | 'title' | 'evidence'>): boolean;
  /** Whether an open card of `detector` cites `path` at `sha256` (that version of the file was looked at). */
  cites(detector: string, path: string, sha256: string): boolean;
}

/** The model's share of a cycle. */
export interface ModelProposal {
  /** The candidates it was given, same order and strength, some with model-written text (rationales, draft prompts). */
  revised: Candidate[];
  /** New candidates (research briefs, angles). */
  added: Candidate[];
}

/** Adds model-written text and angles; see model/. Must not throw. */
export interface ModelAssist {
  propose(view: RepositoryView, candidates: readonly Candidate[], signal: AbortSignal, context?: ModelContext): Promise<ModelProposal>;
  /**
   * The model's verdict on each held finding (`exploration.confirm_held`), same order; undefined where
   * it gave none (no prompt, a failed call). Must not throw.
   */
  check?(view: RepositoryView, candidates: readonly Candidate[], signal: AbortSignal): Promise<ReadonlyArray<ModelCheck | undefined>>;
}

export interface CycleOptions {
  store: Store;
  workspaceId: string;
  view: RepositoryView;
  trigger: CycleTrigger;
  config: Pick<SousConfig, 'compute' | 'exploration'>;
  detectors: readonly Detector[];
  signal?: AbortSignal;
  events?: EngineEvents;
  model?: ModelAssist;
  /** Held findings the model checks per cycle (`exploration.confirm_held`). Default `CHECK_CALLS_PER_CYCLE`; benchmarks raise it. */
  maxHeldChecks?: number;
  /** Detectors run at once. Default: from `compute.cpu_fraction` of the cores, at least 1. */
  concurrency?: number;
  /** Skills to suggest for each candidate (docs/skills.md#in-preparation). Default: none. */
  skills?: CycleSkills;
}

export interface DetectorReport {
  name: string;
  candidates: number;
  ms: number;
  /** One line when the detector failed (the cycle goes on without it). */
  error?: string;
}

export interface CycleResult {
  id: string;
  trigger: CycleTrigger['kind'];
  duration_ms: number;
  frontier: number;
  candidates: number;
  /** Ids of cards that are ready after this cycle and were found in it. */
  ready: string[];
  /** Cards that became ready in this cycle (new, regenerated or promoted). */
  landed: number;
  /** Ids of the cards this cycle stored anew or moved (inserted, superseded by a new card, or updated), ready or candidate. */
  produced: string[];
  held: number;
  superseded: number;
  stale: number;
  /** Detector ids whose cards feedback has suppressed in this repository. */
  suppressed: string[];
  detectors: DetectorReport[];
}

export async function runCycle(options: CycleOptions): Promise<CycleResult> {
  const started = Date.now();
  const signal = options.signal ?? new AbortController().signal;
  const id = newId();
  const { store, workspaceId, view, trigger, events } = options;
  events?.emit({ type: 'cycle.started', cycle: id, trigger: trigger.kind });

  const exploration = options.config.exploration;
  const seeds = await frontierSeeds(view, trigger.paths ?? [], FRONTIER_COMMITS);
  const frontier = buildFrontier(view, seeds, {
    maxDepth: exploration.max_exploration_depth,
    maxSize: exploration.frontier_max_size,
    minPriority: exploration.min_priority,
  });

  const reports: DetectorReport[] = [];
  const results: Array<{ detector: Detector; result: DetectorResult }> = [];
  const concurrency = options.concurrency ?? Math.max(1, Math.floor(os.cpus().length * options.config.compute.cpu_fraction));
  await eachLimit(options.detectors, concurrency, async (detector) => {
    signal.throwIfAborted();
    const t = Date.now();
    try {
      const result = await detector.detect({
        view,
        trigger,
        frontier,
        signal,
        isOff: (id) => detectorOff(id, exploration.detectors_off),
        isHeld: (id) => detectorOff(id, exploration.detectors_held),
      });
      results.push({ detector, result });
      reports.push({ name: detector.name, candidates: result.candidates.length, ms: Date.now() - t });
    } catch (err) {
      if (signal.aborted) throw err;
      reports.push({ name: detector.name, candidates: 0, ms: Date.now() - t, error: err instanceof Error ? err.message.split('\n')[0] ?? 'failed' : String(err) });
    }
  });
  signal.throwIfAborted();

  // A draft that follows a finding is off with the finding's detector (a draft after a note nobody sees).
  const on = (c: Candidate): boolean => !detectorOff(c.detector, exploration.detectors_off) && (c.follows === undefined || !detectorOff(c.follows, exploration.detectors_off));
  // Skills first: the model's prompts may follow the skill suggested for a candidate.
  const skilled = (list: Candidate[]): Candidate[] => (options.skills === undefined ? list : list.map((c) => withSkills(c, options.skills!)));
  let candidates = skilled(dedupe(results.flatMap((r) => r.result.candidates)).filter((c) => on(c) && citesOnlyScope(view, c)));
  const openCards = () => store.workProducts.listWithEvidence({ workspaceId, states: ['ready', 'candidate'], limit: CARDS_CONSIDERED });
  if (options.model !== undefined) {
    // The model writes only for cards that may be shown: a held detector's card (and a draft after
    // one) stays a candidate whatever it says, so it would only take a rationale's place.
    const held = (c: Candidate): boolean => isHeld(c, exploration.detectors_held);
    const proposal = await options.model.propose(view, candidates.filter((c) => !held(c)), signal, modelContext(frontier, seeds, await openCards()));
    candidates = skilled(dedupe([...proposal.revised, ...proposal.added, ...candidates.filter(held)]).filter((c) => on(c) && citesOnlyScope(view, c)));
  }
  signal.throwIfAborted();

  const feedback = await store.feedback.countsByDetector(workspaceId);
  // Read again: model calls take a while, and cards go stale meanwhile.
  const open = await openCards();
  // Held findings the user lets the model confirm (exploration.confirm_held), a few per cycle.
  const check = options.model?.check?.bind(options.model);
  // Asked about only where it would be shown: scored as if not held (no held list).
  const elsewhere = openReadyElsewhere(open, candidates);
  const readyScore = (c: Candidate): number | undefined => {
    const s = score(c, view, frontier, [], feedback.get(c.detector), elsewhere, []);
    return s.state === 'ready' ? s.score : undefined;
  };
  candidates = await withHeldChecks(candidates, { check, view, open, exploration, signal, readyScore, ...(options.maxHeldChecks !== undefined ? { maxCalls: options.maxHeldChecks } : {}) });
  signal.throwIfAborted();
  candidates = keepStoredDrafts(candidates, open);
  const current = new Set(candidates.map(claimKey));
  // Retired first: a card that is no longer found must not hold a place in the feed budget.
  const retired = await retire(options, results, open, current);
  const budget = applyFeedBudget(
    scoreAll(candidates, view, frontier, open, feedback, exploration.detectors_held),
    open.filter((card) => card.state === 'ready' && card.claimKey !== null && !current.has(card.claimKey) && !retired.has(card.id)),
    exploration.max_ready_cards,
  );
  const scored = budget.scored;

  const result: CycleResult = {
    id,
    trigger: trigger.kind,
    duration_ms: 0,
    frontier: frontier.entries.length,
    candidates: candidates.length,
    ready: [],
    landed: 0,
    produced: [],
    held: 0,
    superseded: 0,
    stale: 0,
    suppressed: [...feedback].filter(([, counts]) => suppressed(counts)).map(([detector]) => detector).sort(),
    detectors: reports.sort((a, b) => (a.name < b.name ? -1 : 1)),
  };
  for (const s of scored) {
    signal.throwIfAborted();
    const before = open.find((card) => card.claimKey === claimKey(s.candidate))?.state;
    const outcome = await land({ store, workspaceId, cycleId: id, trigger: trigger.kind, ...(events ? { events } : {}) }, s);
    if (outcome.outcome === 'superseded') result.superseded++;
    if (outcome.outcome === 'inserted' || outcome.outcome === 'superseded' || outcome.outcome === 'updated') result.produced.push(outcome.id);
    if (outcome.state === 'ready') {
      result.ready.push(outcome.id);
      if (before !== 'ready' || outcome.outcome === 'superseded') result.landed++;
    } else if (outcome.state === 'candidate') result.held++;
  }

  result.stale = retired.size;
  for (const card of budget.demote) {
    // Still true, just outranked: held as a candidate, not retired (it returns when room frees up).
    if ((await store.workProducts.get(card.id))?.state !== 'ready') continue;
    await store.workProducts.update(card.id, { state: 'candidate', stateReason: heldByBudget(exploration.max_ready_cards) });
    result.held++;
  }
  result.duration_ms = Date.now() - started;
  events?.emit({
    type: 'cycle.finished',
    cycle: id,
    trigger: trigger.kind,
    duration_ms: result.duration_ms,
    candidates: result.candidates,
    landed: result.landed,
    stale: result.stale,
    superseded: result.superseded,
  });
  return result;
}

/**
 * Scores candidates strongest first, so that novelty also counts the cards this cycle has already
 * made ready: a second card on the same line (a brief on a finding) scores lower than the first.
 */
function scoreAll(
  candidates: readonly Candidate[],
  view: RepositoryView,
  frontier: Frontier,
  open: readonly WorkProductWithEvidence[],
  feedback: ReadonlyMap<string, FeedbackCounts>,
  held: readonly string[],
): Scored[] {
  const others = openReadyElsewhere(open, candidates);
  const firstPass = candidates.map((c) => score(c, view, frontier, [], feedback.get(c.detector), others, held));
  firstPass.sort((a, b) => b.score - a.score);
  const readyLines: Array<{ key: string; path: string; line: number | undefined }> = [];
  const out: Scored[] = [];
  for (const { candidate } of firstPass) {
    const s = score(candidate, view, frontier, readyLines, feedback.get(candidate.detector), others, held);
    if (s.state === 'ready') readyLines.push({ key: claimKey(candidate), path: candidate.evidence[0]?.path ?? '', line: candidate.evidence[0]?.lineStart });
    out.push(s);
  }
  return out.sort((a, b) => b.score - a.score);
}

/** Ready cards not found again in this cycle (those found again are judged in this cycle's order, not against their old selves). */
function openReadyElsewhere(open: readonly WorkProductWithEvidence[], candidates: readonly Candidate[]): WorkProductWithEvidence[] {
  const current = new Set(candidates.map(claimKey));
  return open.filter((card) => card.state === 'ready' && card.claimKey !== null && !current.has(card.claimKey));
}

function score(
  candidate: Candidate,
  view: RepositoryView,
  frontier: Frontier,
  landedNow: ReadonlyArray<{ key: string; path: string; line: number | undefined }>,
  counts: FeedbackCounts | undefined,
  others: readonly WorkProductWithEvidence[],
  held: readonly string[],
): Scored {
  const fresh = candidate.evidence.every((e) => e.contentHash === undefined || view.file(e.path)?.sha256 === e.contentHash);
  const cited = [...candidate.targets, ...candidate.evidence.map((e) => e.path)];
  const relevance = Math.max(0, ...cited.map((p) => frontier.priority(p)));
  const primary = candidate.evidence[0];
  const key = claimKey(candidate);
  const overlapping =
    others.filter((card) => card.evidence.some((e) => e.path === primary?.path && e.lineStart === primary?.lineStart)).length +
    landedNow.filter((l) => l.key !== key && l.path === primary?.path && l.line === primary?.lineStart).length;
  const parts: ScoreParts = {
    strength: clamp(candidate.strength),
    freshness: fresh ? 1 : 0,
    relevance,
    novelty: Math.max(0, 1 - 0.5 * overlapping),
    usefulness: usefulness(counts),
  };
  const total = combine(parts);
  const worthy = total >= READY_THRESHOLD && !suppressed(counts);
  // A held detector's card (and a draft after one) is scored as any other, and kept a candidate.
  const heldBack = worthy && isHeld(candidate, held);
  if (heldBack) {
    const refuted = candidate.check?.verdict === 'refuted' ? `; the model ${candidate.check.model} did not confirm it: ${candidate.check.why}` : '';
    return { candidate, score: total, parts, state: 'candidate', held: `${heldByDetector(candidate.detector)}${refuted}` };
  }
  return { candidate, score: total, parts, state: worthy ? 'ready' : 'candidate' };
}

/**
 * Cards whose detector looked at their targets in this cycle but did not find the claim again go
 * stale ("no longer detected": the drift was fixed, the debug line removed).
 */
async function retire(options: CycleOptions, results: ReadonlyArray<{ detector: Detector; result: DetectorResult }>, open: readonly WorkProductWithEvidence[], found: ReadonlySet<string>): Promise<Set<string>> {
  const stale = new Set<string>();
  for (const card of open) {
    if (card.claimKey === null || found.has(card.claimKey)) continue;
    const follows = card.details['follows'];
    if (detectorOff(card.detector, options.config.exploration.detectors_off) || (typeof follows === 'string' && detectorOff(follows, options.config.exploration.detectors_off))) {
      // Turned off since it landed: it leaves the feed now, not when its code changes.
      await options.store.workProducts.update(card.id, { state: 'stale', stateReason: 'its detector is off (exploration.detectors_off)' });
      if (card.state === 'ready') options.events?.emit({ type: 'card.stale', id: card.id, kind: card.kind, reason: 'detector off' });
      stale.add(card.id);
      continue;
    }
    const run = results.find((r) => card.detector.startsWith(`${r.detector.name}.`));
    if (run === undefined) continue;
    const targets = (card.details['targets'] as string[] | undefined) ?? card.evidence.map((e) => e.path);
    const covered = run.result.covered;
    if (covered !== 'all' && !targets.some((t) => covered.includes(t))) continue;
    await options.store.workProducts.update(card.id, { state: 'stale', stateReason: 'no longer detected: the code it pointed at changed' });
    if (card.state === 'ready') options.events?.emit({ type: 'card.stale', id: card.id, kind: card.kind, reason: 'no longer detected' });
    stale.add(card.id);
  }
  return stale;
}

/** One candidate per claim key (the first, which detectors order by strength). */
function dedupe(candidates: Candidate[]): Candidate[] {
  const seen = new Set<string>();
  return candidates.filter((c) => {
    const key = claimKey(c);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** No card ever cites a file outside the privacy scope (belt and braces: detectors read the index only). */
function citesOnlyScope(view: RepositoryView, c: Candidate): boolean {
  return c.evidence.length > 0 && c.evidence.every((e) => view.policy.inScope(e.path)) && c.targets.every((t) => view.policy.inScope(t));
}

function clamp(n: number): number {
  return Number.isFinite(n) ? Math.min(1, Math.max(0, n)) : 0;
}

async function eachLimit<T>(items: readonly T[], limit: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const workers = Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) await fn(items[next++] as T);
  });
  await Promise.all(workers);
}
