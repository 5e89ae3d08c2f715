/**
 * Cleaning what the model answers before any of it reaches a card: reasoning models' `<think>`
 * blocks dropped, length capped, and the view's redact patterns applied again (the prompt was
 * redacted, but a model can still echo or invent a key-shaped string).
 */
import { redactText } from '@sous/protocol';
import type { RepositoryView } from '../view/repository-view';

/** Longest brief kept; a runaway answer is cut. */
export const MAX_BRIEF_CHARS = 4_000;
/** A rationale is at most this many words ("why this matters here"). */
export const RATIONALE_MAX_WORDS = 80;
/** Longest model-written draft request kept. */
export const MAX_DRAFT_CHARS = 1_200;
/** Longest feed summary taken from a model answer. */
const MAX_SUMMARY_CHARS = 240;

/** A brief: markdown kept as written, capped, redacted. */
export function cleanBrief(answer: string, view: RepositoryView): string {
  return redactText(capChars(withoutThinking(answer), MAX_BRIEF_CHARS), view.policy.redactPatterns);
}

/** A rationale: one paragraph of at most `RATIONALE_MAX_WORDS` words (headings dropped), redacted. */
export function cleanRationale(answer: string, view: RepositoryView): string {
  const prose = withoutThinking(answer)
    .split('\n')
    .filter((l) => !/^\s*(#|```)/.test(l))
    .join(' ');
  const words = prose.split(/\s+/).filter((w) => w !== '');
  const text = words.length <= RATIONALE_MAX_WORDS ? words.join(' ') : `${words.slice(0, RATIONALE_MAX_WORDS).join(' ')}…`;
  return redactText(text, view.policy.redactPatterns);
}

/** A draft request: code fences, wrapping quotes and a leading "Request:" label dropped, capped, redacted. */
export function cleanDraft(answer: string, view: RepositoryView): string {
  let text = withoutThinking(answer)
    .replace(/^```[\w-]*\n?|\n?```$/g, '')
    .trim()
    .replace(/^(?:next request|request|prompt)\s*:\s*/i, '')
    .trim();
  if (/^(["'“]).*["'”]$/s.test(text)) text = text.slice(1, -1).trim();
  return redactText(capChars(text, MAX_DRAFT_CHARS), view.policy.redactPatterns);
}

/** One line of text for a card (a concern, an error), whitespace collapsed, capped, redacted. */
export function cleanLine(text: string, max: number, view: RepositoryView): string {
  return redactText(capChars(text.replace(/\s+/g, ' ').trim(), max), view.policy.redactPatterns);
}

/** The answer's first prose line (not a heading or a list marker), bounded; undefined when there is none. */
export function firstProseLine(text: string): string | undefined {
  const line = text
    .split('\n')
    .map((l) => l.replace(/^\s*(?:[-*>]|\d+\.)\s+/, '').trim())
    .find((l) => l !== '' && !l.startsWith('#') && !l.startsWith('```'));
  if (line === undefined) return undefined;
  return capChars(line, MAX_SUMMARY_CHARS);
}

/** An error's first line, bounded and redacted: what status may show. */
export function errorLine(err: unknown, view: RepositoryView): string {
  const message = err instanceof Error ? err.message : String(err);
  return redactText((message.split('\n')[0] ?? '').slice(0, 300) || 'the model call failed', view.policy.redactPatterns);
}

export function withoutThinking(answer: string): string {
  return answer.replace(/<think>[\s\S]*?<\/think>/g, '').trim();
}

function capChars(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}
