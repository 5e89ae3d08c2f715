/**
 * Review rule: debug statements and TODO-style comments that the changes under review add. Only
 * added lines count (old leftovers are not this change's business), and only lines still in the
 * current file (a statement added by a commit and removed since is no finding). One card per file
 * and rule, listing its lines, so a second `console.log` in the same file updates the card instead
 * of adding one.
 */
import { detectLanguage, type Language } from '@sous/retrieval';
import type { RepositoryView } from '../../view/repository-view';
import type { Candidate, EvidenceRef } from '../../work/types';
import { addedLines, commitOf, currentLine, describeSource, evidenceMarkdown, joinWords, type ChangeSet } from './changes';
import { isTestPath } from '../../view/file-roles';

/** One kind of debug statement. */
interface DebugPattern {
  /** What the card calls it: `console.log`, `breakpoint()`. */
  label: string;
  regex: RegExp;
  /** How sure a match is a leftover (a `print` may be the program's output; `debugger;` never is). */
  strength: number;
  /** Test files may log on purpose. */
  allowedInTests?: boolean;
}

const JS: DebugPattern[] = [
  { label: 'console.log', regex: /(?<![\w$.])console\.log\s*\(/, strength: 0.7, allowedInTests: true },
  { label: 'console.debug', regex: /(?<![\w$.])console\.debug\s*\(/, strength: 0.7, allowedInTests: true },
  { label: 'console.trace', regex: /(?<![\w$.])console\.trace\s*\(/, strength: 0.7, allowedInTests: true },
  { label: 'debugger', regex: /(?:^|[;{}])\s*debugger\s*;?\s*$/, strength: 0.8 },
];

const PATTERNS: Partial<Record<Language, DebugPattern[]>> = {
  typescript: JS,
  tsx: JS,
  javascript: JS,
  python: [
    { label: 'print()', regex: /(?<![\w.])print\s*\(/, strength: 0.5 },
    { label: 'breakpoint()', regex: /(?<![\w.])breakpoint\s*\(\s*\)/, strength: 0.8 },
    { label: 'pdb.set_trace()', regex: /\bi?pdb\.set_trace\s*\(/, strength: 0.8 },
  ],
  go: [
    { label: 'println()', regex: /(?<![\w.])println\s*\(/, strength: 0.6 },
    { label: 'spew.Dump', regex: /\bspew\.(?:Dump|Sdump)\s*\(/, strength: 0.7 },
    { label: 'DEBUG log', regex: /\blog\.Printf\s*\(\s*"DEBUG/, strength: 0.6 },
  ],
  rust: [
    { label: 'dbg!', regex: /(?<![\w])dbg!\s*\(/, strength: 0.8 },
    { label: 'println!', regex: /(?<![\w])println!\s*\(/, strength: 0.5 },
  ],
  java: [{ label: 'System.out.println', regex: /\bSystem\.out\.println\s*\(/, strength: 0.6 }],
};

/** A TODO-style marker inside a comment. */
const TODO = /(?:\/\/|\/\*|#|^\s*\*)\s*(TODO|FIXME|XXX|HACK)\b/;
const TODO_LANGUAGES: ReadonlySet<Language> = new Set<Language>([
  'typescript', 'tsx', 'javascript', 'python', 'go', 'rust', 'java', 'c', 'cpp', 'csharp', 'ruby', 'php', 'kotlin', 'swift', 'scala', 'shell',
]);
const HASH_COMMENT_LANGUAGES: ReadonlySet<Language> = new Set<Language>(['python', 'ruby', 'shell']);

interface Hit {
  label: string;
  strength: number;
  evidence: EvidenceRef;
}

/** Debug-statement and added-TODO cards for the change sets (uncommitted first, then newest commits). */
export function debugStatementCandidates(view: RepositoryView, changes: readonly ChangeSet[], signal: AbortSignal): Candidate[] {
  const debug = new Map<string, Map<number, Hit>>();
  const todos = new Map<string, Map<number, Hit>>();
  /** Per rule and path, the change sets that added its lines (for "why now"). */
  const sources = new Map<string, Set<string>>();
  const noteSource = (key: string, change: ChangeSet): void => {
    const set = sources.get(key) ?? new Set<string>();
    sources.set(key, set.add(describeSource(change)));
  };
  for (const change of changes) {
    for (const diff of change.files) {
      if (signal.aborted) return [];
      if (diff.status === 'deleted') continue;
      const language = detectLanguage(diff.path);
      const patterns = (PATTERNS[language] ?? []).filter((p) => !(p.allowedInTests === true && isTestPath(diff.path)));
      const todoToo = TODO_LANGUAGES.has(language);
      if (patterns.length === 0 && !todoToo) continue;
      for (const added of addedLines(diff)) {
        const code = codePart(added.text, language);
        const found = patterns.find((p) => p.regex.test(code));
        const todo = todoToo ? TODO.exec(added.text)?.[1] : undefined;
        if (found === undefined && todo === undefined) continue;
        const here = currentLine(view, diff.path, added.line, added.text);
        if (here === undefined) continue;
        const base = { path: diff.path, lineStart: here.line, lineEnd: here.line, contentHash: here.contentHash };
        const commit = commitOf(change);
        const withCommit = commit === undefined ? base : { ...base, commit };
        if (found !== undefined && put(debug, diff.path, { label: found.label, strength: found.strength, evidence: { ...withCommit, note: `adds \`${found.label}\`` } })) {
          noteSource(`debug|${diff.path}`, change);
        }
        if (todo !== undefined && put(todos, diff.path, { label: todo, strength: 0.4, evidence: { ...withCommit, note: `adds a ${todo} comment` } })) {
          noteSource(`todo|${diff.path}`, change);
        }
      }
    }
  }
  const out: Candidate[] = [];
  const from = (key: string): string => joinWords([...(sources.get(key) ?? [])]);
  for (const [path, hits] of debug) out.push(debugCard(path, sorted(hits), from(`debug|${path}`)));
  for (const [path, hits] of todos) out.push(todoCard(path, sorted(hits), from(`todo|${path}`)));
  return out;
}

/** The line without a trailing comment, so `// console.log(x)` (commented out) is no debug statement. */
function codePart(text: string, language: Language): string {
  if (/^\s*(?:\/\/|\/\*|\*)/.test(text)) return '';
  if (HASH_COMMENT_LANGUAGES.has(language)) {
    if (/^\s*#/.test(text)) return '';
    const hash = text.search(/\s#/);
    return hash < 0 ? text : text.slice(0, hash);
  }
  const slashes = text.search(/(?:^|\s)\/\//);
  return slashes < 0 ? text : text.slice(0, slashes);
}

/** Records a hit unless its line already has one (the newest change set comes first); whether it was new. */
function put(into: Map<string, Map<number, Hit>>, path: string, hit: Hit): boolean {
  const byLine = into.get(path) ?? new Map<number, Hit>();
  into.set(path, byLine);
  const line = hit.evidence.lineStart ?? 0;
  if (byLine.has(line)) return false;
  byLine.set(line, hit);
  return true;
}



function sorted(hits: Map<number, Hit>): Hit[] {
  return [...hits.values()].sort((a, b) => (a.evidence.lineStart ?? 0) - (b.evidence.lineStart ?? 0));
}

function lineList(hits: readonly Hit[]): string {
  const parts = hits.slice(0, 6).map((h) => `\`${h.label}\` at line ${h.evidence.lineStart}`);
  return hits.length > 6 ? `${parts.join(', ')} and ${hits.length - 6} more` : parts.join(', ');
}

/** What differs between the two cards this rule makes; the shape is shared (`lineCard`). */
interface LineCardText {
  detector: string;
  claim: string;
  count: string;
  why: string;
  matters: string;
  safeAction: string;
  action: string;
  strength: number;
}

function lineCard(path: string, hits: Hit[], from: string, t: LineCardText): Candidate {
  const evidence = hits.map((h) => h.evidence);
  return {
    kind: 'review_note',
    detector: t.detector,
    claim: t.claim,
    title: `${t.count} added in ${path}`,
    summary: `Added to ${path} in ${from}: ${lineList(hits)}. ${t.why}`,
    whyNow: `Added in ${from}.`,
    body: [`## What`, `${t.count} added to \`${path}\`: ${lineList(hits)}.`, ``, `## Why it matters`, t.matters, ``, `## Evidence`, evidenceMarkdown(evidence), ``, `## Safe action`, t.safeAction].join('\n'),
    action: t.action,
    evidence,
    strength: t.strength,
    targets: [path],
  };
}

const linesOf = (hits: readonly Hit[]): string => `line${hits.length === 1 ? '' : 's'} ${hits.map((h) => h.evidence.lineStart).join(', ')}`;

function debugCard(path: string, hits: Hit[], from: string): Candidate {
  const one = hits.length === 1;
  return lineCard(path, hits, from, {
    detector: 'review.debug_statement',
    claim: `${path}|debug`,
    count: one ? 'A debug statement' : `${hits.length} debug statements`,
    why: 'Statements like these are usually debugging leftovers.',
    matters: 'Debug output and breakpoints left in shipped code clutter logs, can print internal data and can stop a program under a debugger.',
    safeAction: one ? 'Remove the statement before merging, or keep it deliberately and dismiss this note.' : 'Remove the statements before merging, or keep them deliberately and dismiss this note.',
    action: `Remove the debug statement${one ? '' : 's'} from ${path} (${linesOf(hits)})`,
    strength: Math.max(...hits.map((h) => h.strength)),
  });
}

function todoCard(path: string, hits: Hit[], from: string): Candidate {
  const one = hits.length === 1;
  return lineCard(path, hits, from, {
    detector: 'review.todo_added',
    claim: `${path}|todo`,
    count: one ? `A ${hits[0]?.label ?? 'TODO'} comment` : `${hits.length} TODO-style comments`,
    why: 'Unfinished work marked in a change is easy to forget once it is merged.',
    matters: 'A TODO, FIXME, XXX or HACK added by a change marks work the change leaves open. Reviewers should know before it is merged.',
    safeAction: 'Finish the marked work, or track it in an issue and reference it from the comment.',
    action: `Resolve or track the ${one ? 'comment' : 'comments'} in ${path} (${linesOf(hits)})`,
    strength: 0.4,
  });
}
