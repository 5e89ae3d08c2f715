/**
 * Angles: concerns the model raises about a recently changed file that no detector flagged. The
 * model answers JSON lines `{"line", "quote", "concern"}`; an angle is kept only when its quote
 * appears in the indexed text at or within `ANGLE_LINE_SLACK` lines of the cited line, and it then
 * cites that line with the file's hash like any finding. Anything else in the answer is ignored:
 * a garbled answer yields no angles, never an error.
 */
import { createHash } from 'node:crypto';
import type { RepositoryView } from '../view/repository-view';
import type { Candidate } from '../work/types';
import { cleanLine, withoutThinking } from './answers';
import { MODEL_MARK } from './byline';

/**
 * An angle's strength: grounded in one quoted line but a guess about it, so below every review
 * finding (0.4 and up). It lands only when the rest of the score carries it: about files changed in
 * uncommitted work or the latest commit or two, with no other card on the line and no bad feedback.
 */
export const ANGLE_STRENGTH = 0.35;
/** Concerns kept per file. */
export const MAX_ANGLES_PER_FILE = 3;
/** How far from the cited line the quote may be found. */
export const ANGLE_LINE_SLACK = 2;
/** Quotes shorter than this (ignoring spaces) match too much to ground anything (`}`, `return`). */
const MIN_QUOTE_CHARS = 6;
/** Objects looked at in one answer: a runaway answer is not parsed to its end. */
const MAX_OBJECTS = 10;
const MAX_CONCERN_CHARS = 300;
const MAX_TITLE_CONCERN_CHARS = 90;

/** One concern as the model stated it. */
export interface Angle {
  line: number;
  quote: string;
  concern: string;
}

/** The well-formed angle objects in an answer (JSON lines, a JSON array or objects in prose). */
export function parseAngles(answer: string): Angle[] {
  const angles: Angle[] = [];
  for (const raw of jsonObjects(withoutThinking(answer)).slice(0, MAX_OBJECTS)) {
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch {
      continue;
    }
    const angle = asAngle(value);
    if (angle !== undefined) angles.push(angle);
  }
  return angles;
}

/** The line (1-based) nearest to the cited one whose text contains the quote; undefined when none does. */
export function groundAngle(lines: readonly string[], angle: Angle): number | undefined {
  const quote = normalized(angle.quote);
  if (quote.replace(/\s/g, '').length < MIN_QUOTE_CHARS) return undefined;
  for (let d = 0; d <= ANGLE_LINE_SLACK; d++) {
    for (const n of d === 0 ? [angle.line] : [angle.line - d, angle.line + d]) {
      if (n >= 1 && n <= lines.length && normalized(lines[n - 1] ?? '').includes(quote)) return n;
    }
  }
  return undefined;
}

/**
 * The grounded angles of `answer` about `path` as bug hypotheses (detector `model.angle`), at most
 * `MAX_ANGLES_PER_FILE`, one per quoted text.
 */
export function angleCandidates(view: RepositoryView, path: string, answer: string, why: string, model: string): Candidate[] {
  const file = view.file(path);
  const lines = view.lines(path);
  if (file === undefined || lines === undefined) return [];
  const out: Candidate[] = [];
  const seen = new Set<string>();
  for (const angle of parseAngles(answer)) {
    if (out.length >= MAX_ANGLES_PER_FILE) break;
    const line = groundAngle(lines, angle);
    if (line === undefined) continue;
    // The claim names the quoted text by its hash: stable across cycles, and no file text in the key.
    const quoted = createHash('sha256').update(normalized(angle.quote)).digest('hex').slice(0, 16);
    if (seen.has(quoted)) continue;
    const concern = cleanLine(angle.concern, MAX_CONCERN_CHARS, view);
    if (concern === '') continue;
    seen.add(quoted);
    out.push({
      kind: 'bug_hypothesis',
      detector: 'model.angle',
      claim: `${path}|${quoted}`,
      title: `Possible issue at ${path}:${line}: ${cleanLine(angle.concern, MAX_TITLE_CONCERN_CHARS, view)}`,
      summary: concern,
      whyNow: why,
      body: [
        concern,
        '',
        `The concern quotes line ${line} of \`${path}\`; the quote was checked against the indexed text.`,
        '',
        `${MODEL_MARK}${model}: a hypothesis to check, not a finding. The cited line is the ground truth._`,
      ].join('\n'),
      action: `Check ${path}:${line} before building on it`,
      evidence: [{ path, lineStart: line, lineEnd: line, contentHash: file.sha256, note: 'the line the concern quotes' }],
      strength: ANGLE_STRENGTH,
      targets: [path],
      warnings: [`Proposed by the model ${model} from the file's text; check it against line ${line}.`],
    });
  }
  return out;
}

function asAngle(value: unknown): Angle | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const v = value as Record<string, unknown>;
  const line = typeof v['line'] === 'string' ? Number(v['line']) : v['line'];
  if (typeof line !== 'number' || !Number.isInteger(line) || line < 1) return undefined;
  if (typeof v['quote'] !== 'string' || typeof v['concern'] !== 'string' || v['concern'].trim() === '') return undefined;
  return { line, quote: v['quote'], concern: v['concern'] };
}

/** Top-level `{…}` spans of `text`, braces inside JSON strings respected. */
function jsonObjects(text: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let start = -1;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (inString) {
      if (ch === '\\') i++;
      else if (ch === '"') inString = false;
      continue;
    }
    if (ch === '"' && depth > 0) inString = true;
    else if (ch === '{') {
      if (depth === 0) start = i;
      depth++;
    } else if (ch === '}' && depth > 0) {
      depth--;
      if (depth === 0) out.push(text.slice(start, i + 1));
    }
  }
  return out;
}

/** Whitespace collapsed, and the backticks or quotes a model wraps code in dropped. */
function normalized(text: string): string {
  return text.replace(/\s+/g, ' ').trim().replace(/^[`'"]+|[`'"]+$/g, '').trim();
}
