/**
 * Prompts for the model, built only from the repository view: the index holds in-scope, redacted
 * text and nothing else, and this module never reads a file itself. A candidate that cites anything
 * outside the privacy scope gets no prompt at all (the cycle would drop its card anyway), and the
 * finished prompt is redacted once more with the view's patterns in case the index predates them.
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

/**
 * The research-brief prompt for `candidate`, or undefined when it cites a path outside the scope or
 * none of its evidence has indexed text to show (a brief without excerpts would be ungrounded).
 */
export function researchBriefPrompt(view: RepositoryView, candidate: Candidate): PromptMessage[] | undefined {
  if (!citesOnlyScope(view, candidate)) return undefined;
  const head = [
    `Finding: ${cap(candidate.title, MAX_CLAIM_CHARS)}`,
    cap(candidate.summary, MAX_CLAIM_CHARS),
    `Why now: ${cap(candidate.whyNow, MAX_CLAIM_CHARS)}`,
    '',
    'Evidence:',
    ...candidate.evidence.map((e) => `- ${location(e)}: ${cap(e.note, 200)}`),
    '',
    'Excerpts (line numbers on the left):',
  ].join('\n');
  let budget = PROMPT_BUDGET_CHARS - BRIEF_SYSTEM.length - head.length;
  const excerpts: string[] = [];
  for (const e of uniqueRanges(candidate.evidence)) {
    if (budget < MIN_EXCERPT_CHARS) break;
    const text = excerpt(view, e, budget);
    if (text === undefined) continue;
    excerpts.push(text);
    budget -= text.length + 1;
  }
  if (excerpts.length === 0) return undefined;
  const patterns = view.policy.redactPatterns;
  return [
    { role: 'system', content: redactText(BRIEF_SYSTEM, patterns) },
    { role: 'user', content: redactText(`${head}\n${excerpts.join('\n')}`, patterns) },
  ];
}

/** `path:12-14`, `path:12`, `path` or `path@abc1234` (history evidence). */
function location(e: EvidenceRef): string {
  const lines = e.lineStart === undefined ? '' : e.lineEnd !== undefined && e.lineEnd !== e.lineStart ? `:${e.lineStart}-${e.lineEnd}` : `:${e.lineStart}`;
  return `${e.path}${lines}${e.commit ? `@${e.commit.slice(0, 7)}` : ''}`;
}

/** The evidence range ± context from the indexed text, numbered, cut to `budget` characters. */
function excerpt(view: RepositoryView, e: EvidenceRef, budget: number): string | undefined {
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
  for (let n = first; n <= last; n++) {
    const line = `${String(n).padStart(width)} | ${lines[n - 1] ?? ''}`;
    if (used + line.length + 1 > budget) {
      out.push('… (cut to fit)');
      break;
    }
    out.push(line);
    used += line.length + 1;
  }
  return out.length > 1 ? out.join('\n') : undefined;
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

function cap(text: string, max: number): string {
  const one = text.replace(/\s+/g, ' ').trim();
  return one.length <= max ? one : `${one.slice(0, max - 1)}…`;
}
