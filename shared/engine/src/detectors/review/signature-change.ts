/**
 * Review rule: an exported function whose parameter count changed while callers the change did not
 * touch still pass the old number of arguments. Signatures are read from the whole file before and
 * after the change (so multi-line parameter lists work); callers are found by name in the current
 * texts with a small scanner that skips strings and comments and counts top-level arguments. When
 * in doubt (spread arguments, rest parameters, another definition of the name) it stays silent.
 */
import { posix } from 'node:path';
import { detectLanguage, type Language } from '@sous/retrieval';
import type { RepositoryView } from '../../view/repository-view';
import type { FileDiff } from '../../view/git-history';
import type { Candidate, EvidenceRef } from '../../work/types';
import { commitOf, describeSource, evidenceMarkdown, type ChangeSet } from './changes';

/** Changed files per change set whose signatures are compared (each costs two `git show`s at most). */
const MAX_FILES_PER_CHANGE = 40;
/** Stale call sites listed as evidence per card. */
const MAX_CALL_EVIDENCE = 10;
/** Characters scanned for a closing parenthesis before a call counts as unreadable. */
const MAX_CALL_SPAN = 10_000;

/** How many arguments a signature accepts. */
export interface Signature {
  name: string;
  /** 1-based line of the definition. */
  line: number;
  min: number;
  max: number;
  variadic: boolean;
  /** Rust `self` parameter: `Type::name(x, …)` passes it explicitly. */
  receiver: boolean;
}

export type Family = 'js' | 'python' | 'go' | 'rust' | 'java';
const FAMILY: Partial<Record<Language, Family>> = { typescript: 'js', tsx: 'js', javascript: 'js', python: 'python', go: 'go', rust: 'rust', java: 'java' };

/** Definition starts per family; group 1 is the name, the match ends right after it. `arrow` needs `=>` after the parameters. */
const DEFINITIONS: Record<Family, ReadonlyArray<{ regex: RegExp; arrow?: boolean }>> = {
  js: [
    { regex: /^[ \t]*export[ \t]+(?:default[ \t]+)?(?:declare[ \t]+)?(?:async[ \t]+)?function[ \t]*\*?[ \t]*([A-Za-z_$][\w$]*)/gm },
    { regex: /^[ \t]*export[ \t]+(?:const|let|var)[ \t]+([A-Za-z_$][\w$]*)[ \t]*(?::[^=\n]+)?=[ \t]*(?:async[ \t]+)?function\b[ \t]*\*?[ \t]*(?:[A-Za-z_$][\w$]*)?/gm },
    { regex: /^[ \t]*export[ \t]+(?:const|let|var)[ \t]+([A-Za-z_$][\w$]*)[ \t]*(?::[^=\n]+)?=[ \t]*(?:async[ \t]*)?/gm, arrow: true },
  ],
  python: [{ regex: /^(?:async[ \t]+)?def[ \t]+([A-Za-z]\w*)/gm }],
  go: [{ regex: /^func[ \t]+(?:\([^)\n]*\)[ \t]*)?([A-Z]\w*)/gm }],
  rust: [{ regex: /^[ \t]*pub(?:\([^)\n]*\))?[ \t]+(?:(?:const|async|unsafe)[ \t]+)*(?:extern[ \t]+"[^"\n]*"[ \t]+)?fn[ \t]+([A-Za-z_]\w*)/gm }],
  java: [{ regex: /^[ \t]*public[ \t]+(?:(?:static|final|synchronized|abstract|default|native)[ \t]+)*(?:<[^>\n]*>[ \t]+)?[\w.$]+(?:<[^;{}()\n]*>)?(?:\[\])*[ \t]+([a-z_$][\w$]*)/gm }],
};

/** Stale-caller cards for the change sets (uncommitted first, so its view of a name wins). */
export async function staleCallerCandidates(view: RepositoryView, changes: readonly ChangeSet[], signal: AbortSignal): Promise<Candidate[]> {
  const out = new Map<string, Candidate>();
  for (const change of changes) {
    const touched = new Set(change.files.flatMap((f) => (f.oldPath === undefined ? [f.path] : [f.path, f.oldPath])));
    for (const diff of change.files.slice(0, MAX_FILES_PER_CHANGE)) {
      if (signal.aborted) return [...out.values()];
      const family = FAMILY[detectLanguage(diff.path)];
      if (family === undefined || (diff.status !== 'modified' && diff.status !== 'renamed') || !touchesParameters(diff)) continue;
      const [before, after] = await textsOf(view, change, diff);
      const current = view.text(diff.path);
      if (before === undefined || after === undefined || current === undefined) continue;
      const olds = byName(signatures(before, family));
      const news = byName(signatures(after, family));
      const nows = change.source === 'uncommitted' ? news : byName(signatures(current, family));
      for (const [name, old] of olds) {
        const now = nows.get(name);
        const claim = `${diff.path}|${name}|signature`;
        // Unchanged, removed (another rule's business), or changed again since this commit.
        if (now === undefined || out.has(claim) || sameShape(old, news.get(name) ?? []) || !sameShape(news.get(name) ?? [], now)) continue;
        const calls = staleCalls(view, { path: diff.path, name, family, old, now }, touched, signal);
        if (calls.length > 0) out.set(claim, card(view, change, diff.path, name, old, now, calls));
      }
    }
  }
  return [...out.values()];
}

/** Whether a changed line could be part of a parameter list (cheap filter before reading git). */
function touchesParameters(diff: FileDiff): boolean {
  return diff.hunks.some((h) => h.lines.some((l) => (l.startsWith('+') || l.startsWith('-')) && /[(),]/.test(l)));
}

async function textsOf(view: RepositoryView, change: ChangeSet, diff: FileDiff): Promise<[string | undefined, string | undefined]> {
  const oldPath = diff.oldPath ?? diff.path;
  const sha = commitOf(change);
  if (sha === undefined) return [await view.git.showAt('HEAD', oldPath), view.text(diff.path)];
  return [await view.git.showAt(`${sha}^`, oldPath), await view.git.showAt(sha, diff.path)];
}

function byName(list: readonly Signature[]): Map<string, Signature[]> {
  const out = new Map<string, Signature[]>();
  for (const s of list) out.set(s.name, [...(out.get(s.name) ?? []), s]);
  return out;
}

function sameShape(a: readonly Signature[], b: readonly Signature[]): boolean {
  const key = (list: readonly Signature[]): string => list.map((s) => `${s.min}/${s.max}/${s.variadic}`).sort().join(',');
  return key(a) === key(b);
}

function accepts(list: readonly Signature[], count: number): boolean {
  return list.some((s) => count >= s.min && (s.variadic || count <= s.max));
}

// ---- Signatures -------------------------------------------------------------------------------

/** Exported function signatures in `text` (best effort per language; methods only for Go, Rust, Java). */
export function signatures(text: string, family: Family): Signature[] {
  const masked = maskCode(text, family);
  const lineAt = lineFinder(masked);
  const out: Signature[] = [];
  for (const { regex, arrow } of DEFINITIONS[family]) {
    for (const m of masked.matchAll(regex)) {
      const name = m[1];
      if (name === undefined || m.index === undefined) continue;
      const open = openParen(masked, m.index + m[0].length);
      const close = open === undefined ? undefined : closeParen(masked, open);
      if (open === undefined || close === undefined) continue;
      if (arrow === true && !/^\s*(?::[^;]*?)?=>/.test(masked.slice(close + 1, close + 400))) continue;
      const params = parameters(masked.slice(open + 1, close), family);
      out.push({ name, line: lineAt(m.index + m[0].length), ...params });
    }
  }
  return out;
}

/** The `(` opening the parameters after `from`, past white space and type parameters (`<T>`, Go's `[T any]`). */
function openParen(text: string, from: number): number | undefined {
  let i = from;
  while (i < text.length && /\s/.test(text[i] ?? '')) i++;
  const c = text[i];
  if (c === '<' || c === '[') {
    const end = balanced(text, i, c, c === '<' ? '>' : ']');
    if (end === undefined) return undefined;
    i = end + 1;
    while (i < text.length && /\s/.test(text[i] ?? '')) i++;
  }
  return text[i] === '(' ? i : undefined;
}

function balanced(text: string, at: number, open: string, close: string): number | undefined {
  let depth = 0;
  for (let i = at; i < Math.min(text.length, at + MAX_CALL_SPAN); i++) {
    if (text[i] === open) depth++;
    else if (text[i] === close && !(close === '>' && (text[i - 1] === '=' || text[i - 1] === '-')) && --depth === 0) return i;
  }
  return undefined;
}

/** The `)` matching the `(` at `open` in masked text (brackets only: strings and comments are blank). */
function closeParen(text: string, open: number): number | undefined {
  let depth = 0;
  for (let i = open; i < Math.min(text.length, open + MAX_CALL_SPAN); i++) {
    const c = text[i];
    if (c === '(' || c === '[' || c === '{') depth++;
    else if ((c === ')' || c === ']' || c === '}') && --depth === 0) return c === ')' ? i : undefined;
  }
  return undefined;
}

/** Splits at commas outside brackets (and outside `<…>` when `angles`). */
function splitTopLevel(text: string, angles: boolean): string[] {
  const parts: string[] = [];
  let depth = 0;
  let angle = 0;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '(' || c === '[' || c === '{') depth++;
    else if (c === ')' || c === ']' || c === '}') depth--;
    else if (angles && c === '<') angle++;
    else if (angles && c === '>' && angle > 0 && text[i - 1] !== '=' && text[i - 1] !== '-') angle--;
    else if (c === ',' && depth === 0 && angle === 0) {
      parts.push(text.slice(start, i).trim());
      start = i + 1;
    }
  }
  parts.push(text.slice(start).trim());
  return parts.filter((p) => p !== '');
}

function parameters(list: string, family: Family): Pick<Signature, 'min' | 'max' | 'variadic' | 'receiver'> {
  let max = 0;
  let min = 0;
  let variadic = false;
  let receiver = false;
  for (const raw of splitTopLevel(list, family !== 'python')) {
    const p = raw.replace(/^(?:@[\w.]+(?:\([^)]*\))?\s+)*(?:(?:public|private|protected|readonly|final)\s+)*/, '');
    if (family === 'js' && /^this\s*[:?]/.test(p)) continue;
    if (family === 'python' && (p === '*' || p === '/')) continue;
    if (family === 'rust' && /^(?:&\s*(?:'\w+\s+)?)?(?:mut\s+)?self\b/.test(p)) {
      receiver = true;
      continue;
    }
    if (p.startsWith('...') || p.startsWith('*') || p.includes('...')) {
      variadic = true;
      continue;
    }
    max++;
    const optional = (family === 'js' && /^[\w$]+\s*\?/.test(p)) || ((family === 'js' || family === 'python') && hasDefault(p));
    // Positional languages need every argument up to the last required one; Python can skip by keyword.
    if (!optional) min = family === 'python' ? min + 1 : max;
  }
  return { min, max, variadic, receiver };
}

/** A top-level `=` that is no `=>`, `==`, `<=`, `>=` or `!=`. */
function hasDefault(param: string): boolean {
  let depth = 0;
  for (let i = 0; i < param.length; i++) {
    const c = param[i];
    if (c === '(' || c === '[' || c === '{') depth++;
    else if (c === ')' || c === ']' || c === '}') depth--;
    else if (c === '=' && depth === 0 && !/[=>]/.test(param[i + 1] ?? '') && !/[=!<>]/.test(param[i - 1] ?? '')) return true;
  }
  return false;
}

/** A function from a character index of `text` to its 1-based line (binary search over newline offsets). */
function lineFinder(text: string): (index: number) => number {
  const starts = [0];
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) starts.push(i + 1);
  return (index) => {
    let lo = 0;
    let hi = starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if ((starts[mid] ?? 0) <= index) lo = mid;
      else hi = mid - 1;
    }
    return lo + 1;
  };
}

/**
 * `text` with the contents of comments and string literals replaced by spaces (newlines and quote
 * characters kept), so brackets, commas and names inside them are invisible to the scanners.
 */
export function maskCode(text: string, family: Family): string {
  const out = text.split('');
  const n = text.length;
  const blank = (from: number, to: number): void => {
    for (let k = from; k < to && k < n; k++) if (out[k] !== '\n') out[k] = ' ';
  };
  const endOf = (needle: string, from: number): number => {
    const at = text.indexOf(needle, from);
    return at < 0 ? n : at;
  };
  let i = 0;
  while (i < n) {
    const c = text[i];
    const next = text[i + 1];
    if (family !== 'python' && c === '/' && next === '/') {
      const end = endOf('\n', i);
      blank(i, end);
      i = end;
    } else if (family !== 'python' && c === '/' && next === '*') {
      const end = Math.min(n, endOf('*/', i + 2) + 2);
      blank(i, end);
      i = end;
    } else if (family === 'python' && c === '#') {
      const end = endOf('\n', i);
      blank(i, end);
      i = end;
    } else if (family === 'python' && (text.startsWith('"""', i) || text.startsWith("'''", i))) {
      const end = endOf(text.slice(i, i + 3), i + 3);
      blank(i + 3, end);
      i = Math.min(n, end + 3);
    } else if (c === '"' || c === "'" || (c === '`' && (family === 'js' || family === 'go'))) {
      // A Rust lifetime (`'a`) is no string; a Rust char literal is.
      if (c === "'" && family === 'rust' && !/^'(?:\\.|[^'\\])'/.test(text.slice(i, i + 12))) {
        i++;
        continue;
      }
      const multiline = c === '`';
      const escapes = !(c === '`' && family === 'go');
      let j = i + 1;
      while (j < n && text[j] !== c && (multiline || text[j] !== '\n')) j += escapes && text[j] === '\\' ? 2 : 1;
      blank(i + 1, j);
      i = j < n && text[j] === c ? j + 1 : j;
    } else i++;
  }
  return out.join('');
}

// ---- Callers ----------------------------------------------------------------------------------

interface Target {
  path: string;
  name: string;
  family: Family;
  old: Signature[];
  now: Signature[];
}

interface Call {
  path: string;
  line: number;
  args: number;
  contentHash: string;
  /** The caller imports the definition's file (not only a name match). */
  linked: boolean;
}

/** Calls in untouched files that the old signature accepts and the current one does not. */
function staleCalls(view: RepositoryView, target: Target, touched: ReadonlySet<string>, signal: AbortSignal): Call[] {
  const out: Call[] = [];
  const definers = view.definers(target.name);
  const unique = definers.every((d) => d === target.path);
  // A Rust function without `self` is called by its path (`wit::process(…)`), never as a method:
  // `builder.process(…)` is another type's method of the same name (wasm-bindgen's `Builder::process`).
  const free = target.family === 'rust' && ![...target.old, ...target.now].some((s) => s.receiver);
  // A package at the module's root is imported by the module path alone, which names no folder: not checked.
  const goFolder = target.family === 'go' && target.path.includes('/') ? posix.dirname(target.path) : undefined;
  for (const path of view.paths()) {
    if (signal.aborted) return [];
    if (path === target.path || touched.has(path) || FAMILY[detectLanguage(path)] !== target.family) continue;
    const file = view.file(path);
    const text = view.text(path);
    if (file === undefined || text === undefined || !text.includes(target.name)) continue;
    // A file that defines the name itself calls its own.
    if (file.definitions.some((d) => d.name === target.name)) continue;
    // Go reaches another package's functions and methods through its import (the index resolves one to
    // a file of the package's folder): a file that neither shares the package nor imports it calls some
    // other `Context` (syft's commands call cobra's `cmd.Context()`).
    if (goFolder !== undefined && posix.dirname(path) !== goFolder && !file.imports.some((p) => posix.dirname(p) === goFolder)) continue;
    const linked = file.imports.includes(target.path);
    // Unlinked, the name must be defined only by the target; in JS it must also be imported (a re-export), not a local.
    if (!linked && (!unique || (target.family === 'js' && !importsName(text, target.name)))) continue;
    const masked = maskCode(text, target.family);
    for (const site of callSites(masked, target.name, target.family, linked)) {
      if (free && site.method) continue;
      const args = site.explicitReceiver && target.now.some((s) => s.receiver) ? site.args - 1 : site.args;
      if (accepts(target.old, args) && !accepts(target.now, args)) {
        out.push({ path, line: site.line, args, contentHash: file.sha256, linked });
      }
    }
  }
  return out;
}

/** Whether a JS/TS text imports `name` by name (`import { name } from …`, `const { name } = require(…)`). */
function importsName(text: string, name: string): boolean {
  const n = `(?<![\\w$])${name.replace(/[$]/g, '\\$')}(?![\\w$])`;
  return (
    new RegExp(`\\bimport\\s+(?:type\\s+)?(?:[\\w$]+\\s*,\\s*)?\\{[^}]*${n}[^}]*\\}\\s*from\\b`).test(text) ||
    new RegExp(`\\bimport\\s+${n}\\s*(?:,|from\\b)`).test(text) ||
    new RegExp(`\\{[^}]*${n}[^}]*\\}\\s*=\\s*require\\s*\\(`).test(text)
  );
}

/** One call of a name: `Type::name(…)` passes a Rust receiver explicitly; `x.name(…)` is a method call. */
interface CallSite {
  line: number;
  args: number;
  explicitReceiver: boolean;
  method: boolean;
}

/** Countable calls of `name` in masked text: not definitions, not with spread or unreadable arguments. */
function callSites(masked: string, name: string, family: Family, linked: boolean): CallSite[] {
  const out: CallSite[] = [];
  const escaped = name.replace(/[$]/g, '\\$');
  const lineAt = lineFinder(masked);
  for (const m of masked.matchAll(new RegExp(`(?<![\\w$])${escaped}\\s*(?:<[^<>()\\n]*>\\s*)?\\(`, 'g'))) {
    if (m.index === undefined) continue;
    const before = masked.slice(Math.max(0, m.index - 80), m.index);
    if (/(?:\bfunction\s*\*?|\bdef|\bfn|\bfunc(?:\s*\([^)]*\))?|\bnew)\s*$/.test(before)) continue;
    // `obj.name(` in JS is someone else's method unless the file imports the definition.
    if (family === 'js' && !linked && /\.\s*$/.test(before)) continue;
    const open = m.index + m[0].length - 1;
    const close = closeParen(masked, open);
    if (close === undefined) continue;
    // `name(a, b) {` at the start of a line is a method definition, not a call.
    if (/(?:^|\n)[ \t]*(?:(?:async|static|public|private|protected)[ \t]+)*$/.test(before) && /^\s*(?::[^;{]*)?\{/.test(masked.slice(close + 1, close + 200))) continue;
    const args = splitTopLevel(masked.slice(open + 1, close), false);
    if (args.some((a) => a.startsWith('...') || a.startsWith('*') || a.endsWith('...'))) continue;
    out.push({ line: lineAt(m.index), args: args.length, explicitReceiver: /::\s*$/.test(before), method: /\.\s*$/.test(before) });
  }
  return out;
}

// ---- Card -------------------------------------------------------------------------------------

/** "1 parameter", "2 to 3 parameters", "1 or more parameters". */
function arity(list: readonly Signature[]): string {
  const counts = list.map((s) => (s.variadic ? `${s.min} or more` : s.min === s.max ? `${s.max}` : `${s.min} to ${s.max}`)).join(' or ');
  return `${counts} parameter${counts === '1' ? '' : 's'}`;
}

function card(view: RepositoryView, change: ChangeSet, path: string, name: string, old: Signature[], now: Signature[], calls: Call[]): Candidate {
  const commit = commitOf(change);
  const line = now[0]?.line ?? 1;
  const hash = view.file(path)?.sha256;
  const definition: EvidenceRef = {
    path,
    lineStart: line,
    lineEnd: line,
    ...(hash === undefined ? {} : { contentHash: hash }),
    ...(commit === undefined ? {} : { commit }),
    note: `\`${name}\` now takes ${arity(now)} (was ${arity(old)})`,
  };
  const sites: EvidenceRef[] = calls.slice(0, MAX_CALL_EVIDENCE).map((c) => ({
    path: c.path,
    lineStart: c.line,
    lineEnd: c.line,
    contentHash: c.contentHash,
    note: `calls \`${name}\` with ${c.args} argument${c.args === 1 ? '' : 's'}`,
  }));
  const files = [...new Set(calls.map((c) => c.path))];
  const callers = calls.length === 1 ? '1 call site' : `${calls.length} call sites`;
  const from = describeSource(change);
  return {
    kind: 'review_note',
    detector: 'review.stale_callers',
    claim: `${path}|${name}|signature`,
    title: `\`${name}\` now takes ${arity(now)}; ${callers} still pass${calls.length === 1 ? 'es' : ''} the old count`,
    summary: `\`${name}\` in ${path} went from ${arity(old)} to ${arity(now)} in ${from}. ${callers} in ${files.join(', ')} (not part of the change) still call it the old way.`,
    whyNow: `The signature changed in ${from}.`,
    body: [
      `## What`,
      `The exported \`${name}\` in \`${path}\` took ${arity(old)} and now takes ${arity(now)}. Files the change did not touch still call it with the old number of arguments.`,
      ``,
      `## Why it matters`,
      `Those calls now fail to compile, or silently pass \`undefined\` / drop an argument at run time.`,
      ``,
      `## Evidence`,
      evidenceMarkdown([definition, ...sites]),
      calls.length > MAX_CALL_EVIDENCE ? `- … and ${calls.length - MAX_CALL_EVIDENCE} more call sites` : '',
      ``,
      `## Safe action`,
      `Update the listed call sites, or give the new parameter a default value so old calls stay valid.`,
    ].filter((l, i, all) => l !== '' || all[i - 1] !== '').join('\n'),
    action: `Update the callers of \`${name}\` in ${files.slice(0, 3).join(', ')}${files.length > 3 ? ' and others' : ''}, or give the new parameter a default`,
    evidence: [definition, ...sites],
    strength: calls.every((c) => c.linked) ? 0.8 : 0.6,
    targets: [path, ...files],
  };
}
