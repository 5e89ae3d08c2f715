/**
 * Prompt analysis: what a free-text prompt (a bug report, a pasted stack) says about the code —
 * paths, traceback frames, errors, identifiers, code fragments, words — and the weighted query
 * terms derived from them.
 */
import { extractFrames, type TracebackFrame } from './frames';
import { extractFlags, extractModules, extractPhrases } from './literals';
import { extractPaths, pathMatches, type MentionedPath } from './paths';
import { cleanReport } from './report';
import { identifierTokens, normalizeToken } from './tokens';
import { TERM_WEIGHTS, type TermKind } from './weights';

/** An error or exception the prompt mentions. */
export interface ErrorMention {
  /** `TypeError`, `KeyError`, `NullPointerException` (package stripped), or `panic` for Go. */
  type: string;
  /** Text after `Type:` on the same line, trimmed to ERROR_MESSAGE_MAX_CHARS. */
  message?: string;
}

/** One weighted query term (already normalized like `codeTokens` output). */
export interface QueryTerm {
  term: string;
  weight: number;
  /** The strongest source the term came from. */
  kind: TermKind;
}

/** Everything `analyzePrompt` reads out of a prompt. */
export interface PromptAnalysis {
  /** Paths mentioned outside traceback frames. */
  paths: MentionedPath[];
  frames: TracebackFrame[];
  errors: ErrorMention[];
  /** Code-looking names as written (camelCase, snake_case, PascalCase, dotted parts), deduplicated. */
  identifiers: string[];
  /** Contents of backtick code fragments. */
  fragments: string[];
  /** Normalized prose words (stopwords and trace boilerplate dropped), deduplicated. */
  words: string[];
  /** The trace and bug-report boilerplate words that were dropped from `words`, deduplicated. */
  boilerplate: string[];
  /**
   * The component the prompt is about, as an issue title or commit subject labels it before a colon
   * or in brackets at its start (`router: …`, `fix(config): …`, `[qs] …`, `**clover:** …`), as
   * normalized tokens, deduplicated.
   */
  labels: string[];
  /** Fixed parts of messages the prompt quotes (error messages, output lines), longest first (literals.ts). */
  phrases: string[];
  /** Dotted or `::` qualified names as `/`-joined lowercase stems (`dvc/repo/move`). */
  modules: string[];
  /** Long command-line flags without their dashes (`force` for `--force`). */
  flags: string[];
  /** Query terms, highest weight first, ties by term. */
  terms: QueryTerm[];
  /**
   * The terms of the prompt's first line alone, when more lines follow: an issue's title says in a
   * few words what the report is about, which its body can bury under logs and context. Empty for
   * a one-line prompt (its words are all title; counting them twice would outweigh its paths and
   * names).
   */
  titleTerms: QueryTerm[];
}

/** Error messages are clipped to this many characters. */
export const ERROR_MESSAGE_MAX_CHARS = 200;

// Words every pasted trace contains; they say nothing about which file is at fault.
const TRACE_NOISE = new Set([
  'traceback', 'recent', 'call', 'last', 'most', 'line', 'file', 'thread', 'goroutine', 'running',
  'panicked', 'panic', 'exception', 'error', 'stack', 'caused', 'note', 'run', 'backtrace', 'anonymous',
  'object', 'module', 'main', 'at', 'exit',
  // Bug-report prose that names no code.
  'see', 'think', 'seem', 'like', 'please', 'fix', 'bug', 'issue', 'problem', 'happen', 'help', 'try',
  'tried', 'want', 'need', 'know', 'work', 'working', 'doesn', 'isn', 'don', 'instead', 'expected',
]);

const ERROR_RE = /\b([A-Z][A-Za-z0-9]*(?:Error|Exception|Fault|Panic))\b(?::[ \t]*([^\n]*))?/g;
const GO_PANIC_RE = /^panic: ([^\n]+)/gm;
const FRAGMENT_RE = /`{1,3}([^`]+)`{1,3}/g;
// The lookbehind starts matches only at word starts; without it a long word costs O(n²).
const DOTTED_RE = /(?<![\w$])[A-Za-z_$][\w$]*(?:(?:\.|::)[A-Za-z_$][\w$]*)+/g;
const WORD_RE = /[A-Za-z_$][\w$]*/g;
const QUOTED_RE = /'([^'\n]+)'|"([^"\n]+)"/g;
// Addresses and Go argument words (`0xc000010000`) would read as words.
const HEX_RE = /\b0x[0-9a-fA-F]+\b/g;
// Stack lines themselves: their file and function are read by extractFrames; the rest is boilerplate.
const FRAME_LINE_RE = /^\s*(?:at |File "|\d+: ).*$|^\s+\S+\.go:\d+.*$/gm;

// Kinds of change that commit subjects and changelogs put where a component label goes.
const LABEL_NOISE = new Set(['fix', 'fixed', 'fixe', 'bug', 'bugfix', 'feat', 'feature', 'chore', 'refactor', 'perf', 'style', 'revert', 'breaking', 'note', 'warning', 'deprecated', 'security', 'minor', 'major', 'patch', 'new', 'change', 'changed']);

// One leading label: `[x]`, `**x:**`, `x:`, `` `x`: ``, `type(scope):`; a label is at most two words.
const LABEL_RE = /^\s*(?:\[([^\]\n]{1,40})\]|\*\*([^*\n:]{1,40}):\*\*|`([^`\n]{1,40})`\s*:|([\w@./-]{1,40}(?: [\w@./-]{1,40})?)\s*(?:\(([\w@./ -]{1,40})\))?:)(?!\/)/;

/**
 * Labels at the start of the prompt, in order (`[Fix] \`parse\`: …` → Fix, parse). An error
 * (`TypeError: …`) is not a label: `extractErrors` reads it.
 */
function extractLabels(text: string): string[] {
  const labels: string[] = [];
  let rest = text;
  for (let i = 0; i < 4; i++) {
    const m = LABEL_RE.exec(rest);
    if (m === null) break;
    const scoped = m[5];
    const label = scoped ?? m[1] ?? m[2] ?? m[3] ?? m[4] ?? '';
    if (new RegExp(`^${ERROR_RE.source}$`).test(label.trim())) break;
    labels.push(label);
    rest = rest.slice(m[0].length);
  }
  return labels;
}

function clip(text: string): string {
  const trimmed = text.trim();
  return trimmed.length > ERROR_MESSAGE_MAX_CHARS ? trimmed.slice(0, ERROR_MESSAGE_MAX_CHARS) : trimmed;
}

/** camelCase, PascalCase with two humps, snake_case, SCREAMING_CASE or a call `name(`. */
function looksLikeCode(word: string, followedByParen: boolean): boolean {
  if (word.includes('_') || word.includes('$')) return /[A-Za-z]/.test(word);
  if (/[a-z][A-Z]/.test(word) || /[A-Z]{2,}[a-z]/.test(word)) return true;
  return followedByParen && word.length > 1;
}

function extractErrors(text: string): ErrorMention[] {
  const errors: ErrorMention[] = [];
  const seen = new Set<string>();
  const push = (type: string, message: string | undefined): void => {
    const clipped = message === undefined ? '' : clip(message);
    const key = `${type}\u0000${clipped}`;
    if (seen.has(key)) return;
    seen.add(key);
    errors.push(clipped.length > 0 ? { type, message: clipped } : { type });
  };
  for (const m of text.matchAll(ERROR_RE)) push(m[1] ?? '', m[2]);
  for (const m of text.matchAll(GO_PANIC_RE)) push('panic', m[1]);
  return errors;
}

/**
 * A word joined to others by `-` (`Content-Security-Policy`, `--dry-run`) is a header, flag or
 * kebab-case name: its words still count as terms, but none of them alone names a symbol.
 */
function hyphenated(text: string, start: number, length: number): boolean {
  return (text[start - 1] === '-' && /\w/.test(text[start - 2] ?? '')) || (text[start + length] === '-' && /\w/.test(text[start + length + 1] ?? ''));
}

function extractIdentifiers(text: string, fragments: readonly string[]): string[] {
  const found = new Set<string>();
  for (const m of text.matchAll(DOTTED_RE)) {
    const parts = m[0].split(/\.|::/);
    // Drop a package qualifier: `java.lang.NullPointerException` → `NullPointerException`.
    const firstType = parts.findIndex((part) => /^[A-Z]/.test(part));
    for (const part of firstType > 0 ? parts.slice(firstType) : parts) if (part.length > 1) found.add(part);
  }
  for (const m of text.matchAll(WORD_RE)) {
    const after = text[(m.index ?? 0) + m[0].length];
    if (looksLikeCode(m[0], after === '(')) found.add(m[0]);
  }
  for (const fragment of fragments) {
    for (const m of fragment.matchAll(WORD_RE)) if (m[0].length > 1 && !hyphenated(fragment, m.index ?? 0, m[0].length)) found.add(m[0]);
  }
  return [...found];
}

/**
 * Distinct query terms kept from one prompt. Real bug reports have 50 (median) to 100 (most seen in
 * the quality set); a pasted 4,000-word log would cost every later step time for nothing.
 */
export const MAX_QUERY_TERMS = 256;

class TermCollector {
  private readonly terms = new Map<string, QueryTerm>();

  add(token: string | null, kind: TermKind): void {
    if (token === null || TRACE_NOISE.has(token)) return;
    const weight = TERM_WEIGHTS[kind];
    const previous = this.terms.get(token);
    if (previous === undefined || previous.weight < weight) this.terms.set(token, { term: token, weight, kind });
  }

  addIdentifier(name: string, wholeKind: TermKind, partKind: TermKind): void {
    const { whole, parts } = identifierTokens(name);
    this.add(whole, wholeKind);
    for (const part of parts) this.add(part, partKind);
  }

  /**
   * The terms, heaviest first; at most `MAX_QUERY_TERMS`, the heaviest and, among equals, the first
   * seen (a pasted log's tail matters least).
   */
  sorted(): QueryTerm[] {
    const all = [...this.terms.values()];
    // Array sort is stable: equal weights stay in first-seen order.
    const kept = all.length <= MAX_QUERY_TERMS ? all : [...all].sort((a, b) => b.weight - a.weight).slice(0, MAX_QUERY_TERMS);
    return kept.sort((a, b) => b.weight - a.weight || (a.term < b.term ? -1 : a.term > b.term ? 1 : 0));
  }
}

/**
 * Reads a free-text prompt. Deterministic and pure; handles any text (an empty prompt yields empty
 * lists). Issue-template boilerplate is dropped first (`cleanReport`). Identifiers and traceback
 * function names weigh more than prose (see TERM_WEIGHTS).
 */
export function analyzePrompt(prompt: string): PromptAnalysis {
  const analysis = analyzeText(cleanReport(prompt));
  const lines = prompt.split('\n').filter((line) => line.trim().length > 0);
  return { ...analysis, titleTerms: lines.length > 1 ? analyzeText(lines[0] ?? '').terms : [] };
}

/** Everything but the title terms, of text already cleaned of template boilerplate. */
function analyzeText(text: string): Omit<PromptAnalysis, 'titleTerms'> {
  const frames = extractFrames(text);
  const blank = (found: string): string => ' '.repeat(found.length);
  // Frame lines go first so that skipped library frames do not come back as named paths.
  const { paths: mentioned, rest } = extractPaths(text.replace(FRAME_LINE_RE, blank).replace(HEX_RE, blank));
  // `panicked at src/x.rs:10:5` is read as a frame; do not count the same spot again as a named path.
  const paths = mentioned.filter((p) => !frames.some((f) => p.line !== undefined && p.line === f.line && pathMatches(p.path, f.file)));
  const errors = extractErrors(rest);
  const fragments = [...rest.matchAll(FRAGMENT_RE)].map((m) => (m[1] ?? '').trim()).filter((f) => f.length > 0);
  const identifiers = extractIdentifiers(rest, fragments);

  const terms = new TermCollector();
  const words = new Set<string>();
  const boilerplate = new Set<string>();
  for (const m of rest.matchAll(WORD_RE)) {
    const word = normalizeToken(m[0]);
    if (word === null) continue;
    if (TRACE_NOISE.has(word)) {
      boilerplate.add(word);
      continue;
    }
    words.add(word);
    terms.add(word, 'word');
  }
  for (const path of paths) {
    const base = path.path.split('/').pop() ?? '';
    terms.addIdentifier(base.replace(/\.[^.]+$/, ''), 'path', 'path');
  }
  for (const fragment of fragments) {
    for (const m of fragment.matchAll(WORD_RE)) terms.addIdentifier(m[0], 'fragment', 'fragment');
  }
  for (const error of errors) {
    terms.addIdentifier(error.type, 'error_type', 'identifier_part');
    // Quoted values (`'id'`) point at code; the rest of the message is prose.
    for (const q of (error.message ?? '').matchAll(QUOTED_RE)) {
      for (const m of (q[1] ?? q[2] ?? '').matchAll(WORD_RE)) terms.addIdentifier(m[0], 'error_message', 'error_message');
    }
  }
  for (const name of identifiers) terms.addIdentifier(name, 'identifier', 'identifier_part');
  for (const frame of frames) {
    if (frame.function !== undefined) terms.addIdentifier(frame.function, 'frame_function', 'identifier_part');
  }
  const labels = new Set<string>();
  for (const label of extractLabels(text)) {
    for (const m of label.matchAll(WORD_RE)) {
      for (const token of [identifierTokens(m[0]).whole, ...identifierTokens(m[0]).parts]) if (token !== null && !LABEL_NOISE.has(token)) labels.add(token);
    }
  }
  return {
    paths,
    frames,
    errors,
    identifiers,
    fragments,
    words: [...words],
    boilerplate: [...boilerplate],
    labels: [...labels],
    phrases: extractPhrases(text.replace(FRAME_LINE_RE, '')),
    modules: extractModules(rest),
    flags: extractFlags(text),
    terms: terms.sorted(),
  };
}

/**
 * The analysis with its boilerplate words taken as plain words, for a prompt that matched no file
 * without them ("windows has \r\n line separator"): a weak answer beats an empty one there.
 * Undefined when nothing was dropped.
 */
export function withBoilerplate(analysis: PromptAnalysis): PromptAnalysis | undefined {
  const added = analysis.boilerplate.filter((w) => !analysis.words.includes(w));
  if (added.length === 0) return undefined;
  const terms = new Map(analysis.terms.map((t) => [t.term, t]));
  for (const word of added) if (!terms.has(word)) terms.set(word, { term: word, weight: TERM_WEIGHTS.word, kind: 'word' });
  const sorted = [...terms.values()].sort((a, b) => b.weight - a.weight || (a.term < b.term ? -1 : a.term > b.term ? 1 : 0));
  return { ...analysis, words: [...analysis.words, ...added], boilerplate: [], terms: sorted };
}
