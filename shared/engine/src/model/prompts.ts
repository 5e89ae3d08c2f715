/**
 * Prompts for the model, built only from the repository view: the index holds in-scope, redacted
 * text and nothing else, and this module never reads a file itself. A candidate that cites anything
 * outside the privacy scope, or a file outside it, gets no prompt at all (the cycle would drop its
 * card anyway), and every finished prompt is redacted once more with the view's patterns in case the
 * index predates them.
 */
import { redactText } from '@sous/protocol';
import type { RepositoryView } from '../view/repository-view';
import type { Candidate, EvidenceRef } from '../work/types';

/** Lines shown above and below an evidence range. */
export const EXCERPT_CONTEXT_LINES = 20;
/** Upper bound on one prompt (system + user), in characters: small local models have small windows. */
export const PROMPT_BUDGET_CHARS = 6_000;
/** Longest title or summary copied from a candidate into a prompt. */
const MAX_CLAIM_CHARS = 500;
/** Longest heuristic draft prompt copied into a prompt. */
const MAX_DRAFT_CHARS = 1_000;
/** Longest skill guidance copied into a prompt (skills/assign.ts builds it). */
const MAX_GUIDANCE_CHARS = 1_500;
/** Below this many characters left, another excerpt is not worth starting. */
const MIN_EXCERPT_CHARS = 200;

export interface PromptMessage {
  role: 'system' | 'user';
  content: string;
}

const BRIEF_SYSTEM = [
  'You are preparing a short research brief for a developer about to work on this code.',
  'Use only the finding and the excerpts below. Say what the code does, what the finding means for it,',
  'what to watch out for when changing it, and which lines to read first. At most 150 words of plain',
  'markdown; do not write code changes; leave out anything the excerpts do not support.',
].join(' ');

const RATIONALE_SYSTEM = [
  'You are telling a developer why a finding matters in this code.',
  'Use only the finding and the excerpts below: what could go wrong here, and when it would show.',
  'At most 80 words of plain text: no headings, no lists, no code changes; leave out anything the',
  'excerpts do not support.',
].join(' ');

const DRAFT_SYSTEM = [
  "You are writing a developer's next request to a coding agent.",
  'Rewrite the draft request below as one concrete request grounded in the excerpts: name the files,',
  'functions and lines to change, what to change, and how to check it. At most 120 words. Answer with',
  'the request only: no preamble, no code.',
].join(' ');

const ANGLE_SYSTEM = [
  'You are reviewing a recently changed file for a developer.',
  'List at most 3 concrete concerns (a bug, an unhandled case, a risky assumption) that the numbered',
  'lines show. Answer only with JSON lines, one object per line:',
  '{"line": <line number>, "quote": "<text copied exactly from that line>", "concern": "<one sentence>"}.',
  'If nothing stands out, answer "none".',
].join(' ');

/**
 * What else a mention of each held kind may name, for the check's KEEP: the shapes its wrong cards
 * took on real repositories (docs/benchmarks.md, "Detector false positives"). Names and Python paths
 * (not listed) keep the wording their measured check was made with.
 */
const CHECK_OTHERS: Readonly<Record<string, string>> = {
  'docs_drift.removed_flag': 'a flag of another program such as git, a compiler, a test runner or a package manager, a flag of a library the project wraps, a flag the document\'s own example defines',
  'docs_drift.removed_env': 'a variable another program, the platform or a library reads, a variable the document\'s own example sets',
  'docs_drift.removed_config_key': 'another program\'s or library\'s setting, a key the document\'s own example defines',
};
const NAME_OTHERS = 'another library, the platform or language, a name the document\'s own example defines';
/** A flag or setting may be gone from one place and still be read in another. */
const STILL_ACCEPTED = ', when the project still accepts it in another way the excerpts show,';

/** The check's instructions for a finding of `detector`. */
function checkSystem(detector: string): string {
  const others = CHECK_OTHERS[detector];
  return [
    'You check one finding before a developer sees it. A detector says that a document names something',
    'a commit removed from this project\'s code, so the document is out of date. Using only the excerpts',
    'below, decide whether the document\'s words refer to that removed code of this project and describe',
    `how things work now. Answer KEEP when they name something else with the same name (${others ?? NAME_OTHERS})${others === undefined ? '' : STILL_ACCEPTED} or name it on purpose as`,
    'history (a note about an older version, a deprecation notice). Answer STALE or KEEP on the first',
    'line, then one sentence why.',
  ].join(' ');
}

/** Longest excerpt of the removing commit's lines copied into a check prompt. */
const MAX_REMOVED_CHARS = 1_500;

/**
 * The prompt asking the model whether a held finding is right (`exploration.confirm_held`): the
 * claim, its evidence, the cited lines and, when given, what the removing commit took out. Undefined
 * as for a brief.
 */
export function checkPrompt(view: RepositoryView, candidate: Candidate, removed: string | undefined): PromptMessage[] | undefined {
  const extra = removed === undefined || removed === '' ? [] : ['', 'What the commit removed (its diff, in part):', cap(removed, MAX_REMOVED_CHARS, { keepLines: true })];
  return groundedPrompt(view, candidate, checkSystem(candidate.detector), extra);
}

/**
 * The research-brief prompt for `candidate`, or undefined when it cites a path outside the scope or
 * none of its evidence has indexed text to show (a brief without excerpts would be ungrounded).
 */
export function researchBriefPrompt(view: RepositoryView, candidate: Candidate): PromptMessage[] | undefined {
  return groundedPrompt(view, candidate, BRIEF_SYSTEM, []);
}

/** The prompt for a short "why this matters here" on `candidate`; undefined as for a brief. */
export function rationalePrompt(view: RepositoryView, candidate: Candidate): PromptMessage[] | undefined {
  return groundedPrompt(view, candidate, RATIONALE_SYSTEM, []);
}

/** The prompt that rewrites a prediction draft's request from its evidence; undefined without a draft. */
export function draftPrompt(view: RepositoryView, candidate: Candidate): PromptMessage[] | undefined {
  if (candidate.draft === undefined) return undefined;
  return groundedPrompt(view, candidate, DRAFT_SYSTEM, ['', `Draft request: ${cap(candidate.draft.prompt, MAX_DRAFT_CHARS)}`]);
}

/**
 * The prompt asking for angles on one file: its indexed text, numbered. Undefined when the file is
 * outside the scope or not indexed, and, with `whole`, when the numbered text does not fit the budget
 * (otherwise it is cut to fit).
 */
export function anglePrompt(view: RepositoryView, path: string, why: string, options: { whole: boolean }): PromptMessage[] | undefined {
  const file = view.file(path);
  if (file === undefined || !view.policy.inScope(path)) return undefined;
  const lines = view.lines(path);
  if (lines === undefined || lines.length === 0) return undefined;
  const head = [`File: ${path}`, `Why now: ${cap(why, MAX_CLAIM_CHARS)}`, '', 'Text (line numbers on the left):'].join('\n');
  const shown = excerpt(view, { path, lineStart: 1, lineEnd: lines.length, contentHash: file.sha256, note: '' }, PROMPT_BUDGET_CHARS - ANGLE_SYSTEM.length - head.length - 1);
  if (shown === undefined || (options.whole && shown.cut)) return undefined;
  const patterns = view.policy.redactPatterns;
  return [
    { role: 'system', content: redactText(ANGLE_SYSTEM, patterns) },
    { role: 'user', content: redactText(`${head}\n${shown.text}`, patterns) },
  ];
}

/** The claim, its evidence and numbered excerpts of the cited lines, under `system`. */
function groundedPrompt(view: RepositoryView, candidate: Candidate, system: string, extra: readonly string[]): PromptMessage[] | undefined {
  if (!citesOnlyScope(view, candidate)) return undefined;
  // A skill the cycle suggested, when its zone lets it reach this model (skills/assign.ts decided).
  const guidance = candidate.skills?.find((s) => s.guidance !== undefined)?.guidance;
  const head = [
    `Finding: ${cap(candidate.title, MAX_CLAIM_CHARS)}`,
    cap(candidate.summary, MAX_CLAIM_CHARS),
    `Why now: ${cap(candidate.whyNow, MAX_CLAIM_CHARS)}`,
    ...extra,
    ...(guidance === undefined ? [] : ['', guidance.length > MAX_GUIDANCE_CHARS ? `${guidance.slice(0, MAX_GUIDANCE_CHARS - 1)}…` : guidance]),
    '',
    'Evidence:',
    ...candidate.evidence.map((e) => `- ${location(e)}: ${cap(e.note, 200)}`),
    '',
    'Excerpts (line numbers on the left):',
  ].join('\n');
  let budget = PROMPT_BUDGET_CHARS - system.length - head.length;
  const excerpts: string[] = [];
  for (const e of uniqueRanges(candidate.evidence)) {
    if (budget < MIN_EXCERPT_CHARS) break;
    const shown = excerpt(view, e, budget);
    if (shown === undefined) continue;
    excerpts.push(shown.text);
    budget -= shown.text.length + 1;
  }
  if (excerpts.length === 0) return undefined;
  const patterns = view.policy.redactPatterns;
  return [
    { role: 'system', content: redactText(system, patterns) },
    { role: 'user', content: redactText(`${head}\n${excerpts.join('\n')}`, patterns) },
  ];
}

/** `path:12-14`, `path:12`, `path` or `path@abc1234` (history evidence). */
function location(e: EvidenceRef): string {
  const lines = e.lineStart === undefined ? '' : e.lineEnd !== undefined && e.lineEnd !== e.lineStart ? `:${e.lineStart}-${e.lineEnd}` : `:${e.lineStart}`;
  return `${e.path}${lines}${e.commit ? `@${e.commit.slice(0, 7)}` : ''}`;
}

/** The evidence range ± context from the indexed text, numbered, cut to `budget` characters. */
function excerpt(view: RepositoryView, e: EvidenceRef, budget: number): { text: string; cut: boolean } | undefined {
  // Lines of history evidence, or of a file changed since, point into other text than the index holds.
  if (e.contentHash === undefined ? e.commit !== undefined : view.file(e.path)?.sha256 !== e.contentHash) return undefined;
  const lines = view.lines(e.path);
  if (lines === undefined || lines.length === 0) return undefined;
  const first = Math.max(1, (e.lineStart ?? 1) - EXCERPT_CONTEXT_LINES);
  const last = Math.min(lines.length, (e.lineEnd ?? e.lineStart ?? 1) + EXCERPT_CONTEXT_LINES);
  if (first > lines.length) return undefined;
  const header = `### ${e.path}:${first}-${last}`;
  const width = String(last).length;
  const out = [header];
  let used = header.length + 1;
  let cut = false;
  for (let n = first; n <= last; n++) {
    const line = `${String(n).padStart(width)} | ${lines[n - 1] ?? ''}`;
    if (used + line.length + 1 > budget) {
      out.push('… (cut to fit)');
      cut = true;
      break;
    }
    out.push(line);
    used += line.length + 1;
  }
  return out.length > 1 && !(cut && out.length === 2) ? { text: out.join('\n'), cut } : undefined;
}

/** One excerpt per path and range; history-only evidence (no file text) is listed, not excerpted. */
function uniqueRanges(evidence: readonly EvidenceRef[]): EvidenceRef[] {
  const seen = new Set<string>();
  return evidence.filter((e) => {
    const key = `${e.path}|${e.lineStart ?? ''}|${e.lineEnd ?? ''}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

function citesOnlyScope(view: RepositoryView, c: Candidate): boolean {
  return c.evidence.every((e) => view.policy.inScope(e.path)) && c.targets.every((t) => view.policy.inScope(t));
}

function cap(text: string, max: number, options: { keepLines?: boolean } = {}): string {
  const one = options.keepLines === true ? text.trim() : text.replace(/\s+/g, ' ').trim();
  return one.length <= max ? one : `${one.slice(0, max - 1)}…`;
}
