/**
 * What a prompt quotes verbatim from the program, to be traced to the file that holds it: message
 * text (an error message, an output line in a code block, a quoted sentence), dotted module names
 * (`sphinx.ext.autodoc`, `clap::builder::arg`) and command-line flags (`--force`). A message is
 * split at its variable parts (quoted values, numbers, paths), because code writes the fixed parts
 * as literals and fills in the rest (`f"cannot move {src}: already exists"`).
 */
import { stripUrls } from './paths';

/** A fixed part of a message shorter than this (characters) is too common to trace. */
export const MIN_PHRASE_CHARS = 14;
/** ...and it needs at least this many words. */
export const MIN_PHRASE_WORDS = 2;
/** Phrases kept per prompt, longest first (each costs a postings intersection and a few text scans). */
export const MAX_PHRASES = 16;

const FENCE_RE = /```[^\n]*\n([\s\S]*?)```/g;
const INLINE_RE = /`([^`\n]+)`/g;
const QUOTED_PROSE_RE = /"([^"\n]{12,200})"|“([^”\n]{12,200})”/g;
const ERROR_LINE_RE = /^\s*(?:[A-Z][\w.]*(?:Error|Exception|Warning)|ERROR|WARNING|error|warning|fatal|panic|FATAL)(?:\[\w+\])?:\s*(.+)$/gm;
// Variable parts of a message: quoted values, numbers, paths, hex, placeholders, brackets' contents.
const VARIABLE_RE = /'[^'\n]*'|"[^"\n]*"|`[^`\n]*`|\{[^}\n]*\}|<[^>\n]*>|\b0x[0-9a-f]+\b|(?:[\w.-]*\/[\w./-]+)|\b\d[\d.,:]*\b|\[[^\]\n]*\]/gi;
// Lines that are code or traces, not program output.
const CODE_LINE_RE = /^\s*(?:File "|at |Traceback|\$ |>>>|\.\.\.|#|\/\/|def |class |import |from \S+ import|fn |func |let |const |var |if |for |return |assert |@|[\w.[\]]+\s*=[^=])|[;{]\s*$/;

/** The fixed parts of one message line: long enough, several words, trimmed of punctuation. */
export function phraseSegments(line: string): string[] {
  const out: string[] = [];
  for (const raw of line.split(VARIABLE_RE)) {
    const segment = raw.replace(/^[\s:;,.!?()\-–—=>*]+|[\s:;,.!?()\-–—=<*]+$/g, '').replace(/\s+/g, ' ');
    if (segment.length < MIN_PHRASE_CHARS) continue;
    // Words apart: `implementation_version` is a name, not a message.
    if (segment.split(' ').filter((word) => /[A-Za-z]{2,}/.test(word)).length < MIN_PHRASE_WORDS) continue;
    out.push(segment);
  }
  return out;
}

/**
 * Message phrases a prompt quotes: error-message lines, output lines of its code blocks, inline code
 * with spaces, quoted sentences; split into their fixed parts, deduplicated, longest first.
 */
export function extractPhrases(text: string): string[] {
  const clean = stripUrls(text);
  const lines: string[] = [];
  for (const m of clean.matchAll(FENCE_RE)) {
    for (const line of (m[1] ?? '').split('\n')) if (!CODE_LINE_RE.test(line)) lines.push(line);
  }
  for (const m of clean.matchAll(ERROR_LINE_RE)) lines.push(m[1] ?? '');
  for (const m of clean.matchAll(INLINE_RE)) if ((m[1] ?? '').includes(' ')) lines.push(m[1] ?? '');
  for (const m of clean.matchAll(QUOTED_PROSE_RE)) lines.push(m[1] ?? m[2] ?? '');
  const seen = new Set<string>();
  for (const line of lines) for (const segment of phraseSegments(line)) seen.add(segment);
  return [...seen].sort((a, b) => b.length - a.length || (a < b ? -1 : 1)).slice(0, MAX_PHRASES);
}

// `a.b.c`, `a::b::c`: at least two separators' worth of segments is not required; two segments are.
const MODULE_RE = /(?<![\w$./:-])[A-Za-z_][\w]*(?:(?:\.|::)[A-Za-z_][\w]*)+(?![\w(])/g;
// Dotted words that are not modules: abbreviations, versions, object chains on common receivers.
const NOT_MODULE = /^(e\.g|i\.e|etc|vs|self|this|cls|np|pd|os\.path|sys|re|json|math|typing|std|core|super)\b/i;

/**
 * Dotted or `::` qualified names (`dvc.repo.move`, `clap::builder::Arg`), lowercased with `/`
 * separators (`dvc/repo/move`), for matching against file paths; each at least two segments.
 */
export function extractModules(text: string): string[] {
  const out = new Set<string>();
  for (const m of stripUrls(text).matchAll(MODULE_RE)) {
    const name = m[0];
    if (NOT_MODULE.test(name)) continue;
    const segments = name.split(/\.|::/).filter((s) => s.length > 0);
    if (segments.length < 2) continue;
    out.add(segments.join('/').toLowerCase());
  }
  return [...out];
}

const FLAG_RE = /(?<![\w-])--([a-z][a-z0-9]*(?:[-_][a-z0-9]+)*)\b/g;

/** Long command-line flags (`--force`, `--no-cache`) as written, without the dashes, deduplicated. */
export function extractFlags(text: string): string[] {
  return [...new Set([...stripUrls(text).matchAll(FLAG_RE)].map((m) => m[1] ?? '').filter((f) => f.length > 1))];
}
