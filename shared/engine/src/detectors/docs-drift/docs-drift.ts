/**
 * docs_drift: a doc mentions a name, file, flag, environment variable or config key that the code no
 * longer has, and git shows the commit that removed (or renamed, or moved) it after the doc was last
 * edited. Absence alone is never enough: docs mention other projects' names all the time, so a card
 * needs the removing commit, a diff line that took the thing away, and the thing present in that
 * file at the doc's last commit. When the same diff lines replace it by exactly one new name (or git
 * recorded a file rename) and the new one exists now, a virtual diff updates the doc's mentions.
 */
import * as path from 'node:path';
import { redactText } from '@sous/protocol';
import type { RepositoryView } from '../../view/repository-view';
import type { CommitRef, FileDiff } from '../../view/git-history';
import { makeVirtualDiff } from '../../work/virtual-diff';
import type { Candidate, EvidenceRef } from '../../work/types';
import type { Detector, DetectorContext, DetectorResult } from '../types';
import { extractMentions, isDocFile, type Mention, type MentionKind } from './mentions';

/** Docs examined per cycle at most, those on the frontier first. */
const MAX_DOCS = 500;
/** Newest removing commits looked at per mention. */
const PICKAXE_LIMIT = 10;
/** Doc lines cited per finding. */
const MAX_SITES_CITED = 5;
/** Commit subjects are repository text: cut to a title's length. */
const MAX_SUBJECT_CHARS = 72;

/** Everything a doc says about one thing: its kind, value and every site. */
interface MentionGroup {
  kind: MentionKind;
  value: string;
  sites: Mention[];
}

/** The commit that took a mentioned thing away after the doc's last edit. */
interface Removal {
  commit: CommitRef;
  /** The code file it was removed from, as named before the commit. */
  file: string;
  /** The same file now, when it still exists (renamed or edited, not deleted). */
  current?: string;
  /** Its one replacement (a name, or a file's new path) when the commit renamed it and that exists now. */
  renamedTo?: string;
}

export const docsDriftDetector: Detector = {
  name: 'docs_drift',
  kinds: ['docs_drift', 'virtual_diff'],
  async detect({ view, frontier, signal }: DetectorContext): Promise<DetectorResult> {
    const docs = view
      .paths()
      .filter((p) => isDocFile(p, view.file(p)?.language))
      .sort((a, b) => frontier.priority(b) - frontier.priority(a) || (a < b ? -1 : 1))
      // Every doc may mention what a change removed, not only docs on the frontier; those come first.
      .slice(0, MAX_DOCS);
    const repo = repoFacts(view);
    const candidates: Candidate[] = [];
    const covered: string[] = [];
    for (const doc of docs) {
      if (signal.aborted) break;
      const found = await examineDoc(view, repo, doc, signal);
      if (found === null) break;
      candidates.push(...found);
      covered.push(doc);
    }
    return { candidates, covered };
  },
};

/** Cards for one doc, or null when the cycle was cancelled before the doc was done. */
async function examineDoc(view: RepositoryView, repo: RepoFacts, doc: string, signal: AbortSignal): Promise<Candidate[] | null> {
  const text = view.text(doc);
  if (text === undefined || text.includes('\0')) return [];
  const missing = groupMentions(extractMentions(doc, text)).filter((g) => !repo.existsNow(g.kind, g.value));
  if (missing.length === 0) return [];
  const history = await view.git.history();
  const docCommit = history.lastTouch(doc) ?? (history.complete ? null : await view.git.lastCommit(doc));
  if (docCommit === null) return []; // never committed: no history to show what the doc was written against
  // Cheap first: only mentions that something in the history could have removed are worth git calls.
  const docAt = history.position(docCommit.sha);
  const newer = (c: CommitRef | undefined): boolean => c !== undefined && (docAt < 0 || history.position(c.sha) < docAt);
  const plausible = missing.filter((g) =>
    g.kind === 'path' ? newer(history.lastTouch(g.value)) || (!history.complete && history.lastTouch(g.value) === undefined) : history.removing(needleOf(g.kind, g.value)).some(newer),
  );
  if (plausible.length === 0) return [];
  const committed = await view.git.showAt(docCommit.sha, doc);
  if (committed === undefined) return [];
  const out: Candidate[] = [];
  for (const group of plausible) {
    if (signal.aborted) return null;
    // A mention added after the last commit was written against today's code, not the removed name.
    if (!containsBounded(committed, group.sites[0]?.raw ?? '', group.kind)) continue;
    const removal = group.kind === 'path' ? await repo.pathRemoval(group.value, docCommit) : await repo.nameRemoval(group, docCommit);
    if (removal !== undefined) out.push(...cards(view, doc, text, group, removal, docCommit));
  }
  return out;
}

function groupMentions(mentions: readonly Mention[]): MentionGroup[] {
  const groups = new Map<string, MentionGroup>();
  for (const m of mentions) {
    const key = `${m.kind}|${m.value}`;
    const group = groups.get(key);
    if (group === undefined) groups.set(key, { kind: m.kind, value: m.value, sites: [m] });
    else group.sites.push(m);
  }
  return [...groups.values()];
}

/** What the code of the repository holds now, and what git says happened to a mention; cached per cycle. */
interface RepoFacts {
  existsNow(kind: MentionKind, value: string): boolean;
  nameRemoval(group: MentionGroup, docCommit: CommitRef): Promise<Removal | undefined>;
  pathRemoval(value: string, docCommit: CommitRef): Promise<Removal | undefined>;
}

function repoFacts(view: RepositoryView): RepoFacts {
  let words: Set<string> | undefined;
  /** Every word of every indexed non-doc file (hyphenated words whole and in parts): the code's vocabulary. */
  const codeWords = (): Set<string> => {
    if (words !== undefined) return words;
    words = new Set();
    for (const p of view.paths()) {
      if (isDocFile(p, view.file(p)?.language)) continue;
      for (const w of (view.text(p) ?? '').match(/[A-Za-z_$][\w$]*(?:-[\w$]+)*/g) ?? []) {
        words.add(w);
        if (w.includes('-')) for (const part of w.split('-')) words.add(part);
      }
    }
    return words;
  };
  const commitDiff = (sha: string): Promise<FileDiff[]> => view.git.commitDiff(sha);
  const existsNow = (kind: MentionKind, value: string): boolean => {
    if (kind === 'path') return view.file(value) !== undefined;
    if (kind === 'identifier' && view.definers(value).some((p) => !isDocFile(p))) return true;
    const needle = needleOf(kind, value);
    const w = codeWords();
    return w.has(needle) || w.has(camel(needle)) || w.has(needle.replace(/-/g, '_'));
  };

  return {
    existsNow,
    async nameRemoval(group, docCommit) {
      const needle = needleOf(group.kind, group.value);
      if (needle.length < 3) return undefined;
      // Commits after the doc's last edit whose removed lines hold the word (git's pickaxe, read once per cycle).
      const history = await view.git.history();
      const docAt = history.position(docCommit.sha);
      const after = history.removing(needle).filter((c) => docAt < 0 || history.position(c.sha) < docAt);
      for (const commit of after.slice(0, PICKAXE_LIMIT)) {
        const files = (await commitDiff(commit.sha)).filter((f) => !isDocFile(f.oldPath ?? f.path) && !isDocFile(f.path));
        const removedFrom = netRemovals(files, needle, group.kind);
        const first = removedFrom[0];
        if (first === undefined) continue; // this commit added or moved it; an older one may have removed it
        const before = first.oldPath ?? first.path;
        // It must have been in that file when the doc was last edited, or the doc never described it.
        const then = await view.git.showAt(docCommit.sha, before);
        if (then === undefined || !containsBounded(then, needle, group.kind)) return undefined;
        const replacement = singleReplacement(files, needle, group.kind);
        const renamedTo = replacement !== undefined && existsNow(group.kind, renamedValue(group.kind, group.value, replacement)) ? replacement : undefined;
        return withCurrent(view, { commit: redacted(view, commit), file: before, ...(renamedTo !== undefined ? { renamedTo } : {}) }, first);
      }
      return undefined;
    },
    async pathRemoval(value, docCommit) {
      if (!view.policy.inScope(value)) return undefined; // out of scope: never flagged
      const history = await view.git.history();
      const commit = history.lastTouch(value) ?? (await view.git.lastCommit(value));
      if (commit === null || commit.sha === docCommit.sha) return undefined;
      const [at, docAt] = [history.position(commit.sha), history.position(docCommit.sha)];
      const newer = at >= 0 && docAt >= 0 ? at < docAt : await view.git.isAncestor(docCommit.sha, commit.sha);
      if (!newer) return undefined;
      const change = (await commitDiff(commit.sha)).find((f) => f.oldPath === value || (f.path === value && f.status === 'deleted'));
      if (change === undefined || (await view.git.showAt(docCommit.sha, value)) === undefined) return undefined;
      const moved = change.status === 'renamed' && view.file(change.path) !== undefined ? change.path : undefined;
      return withCurrent(view, { commit: redacted(view, commit), file: value, ...(moved !== undefined ? { renamedTo: moved } : {}) }, change);
    },
  };
}

function withCurrent(view: RepositoryView, removal: Removal, change: FileDiff): Removal {
  return change.status !== 'deleted' && view.file(change.path) !== undefined ? { ...removal, current: change.path } : removal;
}

/** The string git's pickaxe and the code's vocabulary are searched for. */
function needleOf(kind: MentionKind, value: string): string {
  if (kind === 'flag') return value.replace(/^--/, '');
  if (kind === 'config_key') return value.slice(value.lastIndexOf('.') + 1);
  return value;
}

/** `dry-run` → `dryRun` (a flag's name as a parser option often reads). */
function camel(word: string): string {
  return word.replace(/[-_]([a-z0-9])/g, (_m, c: string) => c.toUpperCase());
}

/** Characters that continue a word of this kind (flags and keys are hyphenated). */
function wordChars(kind: MentionKind): string {
  return kind === 'identifier' || kind === 'env' ? '\\w$' : '\\w$-';
}

/** `needle` as a whole word; a flag's name may follow its dashes (`--dry-run`) but not another word (`no-dry-run`). */
function boundedRegExp(needle: string, kind: MentionKind, flags = ''): RegExp {
  const c = wordChars(kind);
  const escaped = needle.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const before = kind === 'flag' || kind === 'config_key' ? '(?<![\\w$]|[\\w$]-)' : `(?<![${c}])`;
  return new RegExp(`${before}${escaped}(?![${c}])`, flags);
}

function containsBounded(text: string, needle: string, kind: MentionKind): boolean {
  return needle !== '' && boundedRegExp(needle, kind === 'path' ? 'flag' : kind).test(text);
}

/** Files whose `-` lines drop more occurrences of `needle` than their `+` lines add, most first. */
function netRemovals(files: readonly FileDiff[], needle: string, kind: MentionKind): FileDiff[] {
  const re = boundedRegExp(needle, kind, 'g');
  const count = (f: FileDiff, sign: string): number =>
    f.hunks.reduce((n, h) => n + h.lines.filter((l) => l.startsWith(sign)).reduce((k, l) => k + (l.slice(1).match(re)?.length ?? 0), 0), 0);
  const net = files.map((f) => ({ f, removed: count(f, '-') }));
  const added = files.reduce((n, f) => n + count(f, '+'), 0);
  const removed = net.reduce((n, x) => n + x.removed, 0);
  if (removed <= added) return [];
  // The file that defined it is the one to cite, ahead of its importers and callers.
  const definition = new RegExp(`\\b(?:function|class|def|const|let|var|interface|type|enum|fn|func|struct|trait)\\s+\\*?\\s*${boundedRegExp(needle, kind).source}`);
  const defines = (f: FileDiff): number => (f.hunks.some((h) => h.lines.some((l) => l.startsWith('-') && definition.test(l))) ? 1 : 0);
  return net
    .filter((x) => x.removed > 0)
    .sort((a, b) => defines(b.f) - defines(a.f) || b.removed - a.removed)
    .map((x) => x.f);
}

/**
 * The one name that replaced `needle` in the commit: each `-` line holding it is compared with each
 * `+` line of its hunk; a pair that differs only in that word (`export function parseConfig(` /
 * `export function loadConfig(`) names a replacement. More than one distinct replacement: none.
 */
function singleReplacement(files: readonly FileDiff[], needle: string, kind: MentionKind): string | undefined {
  const re = boundedRegExp(needle, kind);
  const found = new Set<string>();
  for (const hunk of files.flatMap((f) => f.hunks)) {
    const minus = hunk.lines.filter((l) => l.startsWith('-') && re.test(l.slice(1))).map((l) => l.slice(1));
    const plus = hunk.lines.filter((l) => l.startsWith('+')).map((l) => l.slice(1));
    for (const m of minus) for (const p of plus) {
      const replaced = swappedWord(m, p, wordChars(kind));
      const [old, next] = [replaced?.old.replace(/^-+/, ''), replaced?.new.replace(/^-+/, '')];
      if (old === needle && next !== undefined && next !== '' && next !== needle) found.add(next);
    }
  }
  return found.size === 1 ? [...found][0] : undefined;
}

/** When `a` and `b` differ in exactly one word, that word on each side. */
function swappedWord(a: string, b: string, chars: string): { old: string; new: string } | undefined {
  const isWord = new RegExp(`^[${chars}]$`);
  let start = 0;
  while (start < a.length && start < b.length && a[start] === b[start]) start++;
  let endA = a.length;
  let endB = b.length;
  while (endA > start && endB > start && a[endA - 1] === b[endB - 1]) {
    endA--;
    endB--;
  }
  if (start === a.length && start === b.length) return undefined;
  while (start > 0 && isWord.test(a[start - 1] ?? '')) start--;
  while (endA < a.length && isWord.test(a[endA] ?? '')) endA++;
  while (endB < b.length && isWord.test(b[endB] ?? '')) endB++;
  const old = a.slice(start, endA);
  const replacement = b.slice(start, endB);
  const whole = new RegExp(`^[${chars}]+$`);
  return whole.test(old) && whole.test(replacement) ? { old, new: replacement } : undefined;
}

/** The mention's value after the rename (a key keeps its prefix; a flag its dashes). */
function renamedValue(kind: MentionKind, value: string, replacement: string): string {
  if (kind === 'flag') return `--${replacement}`;
  if (kind === 'config_key') return `${value.slice(0, value.lastIndexOf('.') + 1)}${replacement}`;
  return replacement;
}

/** What a site's raw text becomes (a link is rewritten relative to the doc, as it was written). */
function replacementAt(doc: string, site: Mention, kind: MentionKind, value: string, renamedTo: string): string {
  if (kind !== 'path') return renamedValue(kind, value, renamedTo); // raw is the value for every other kind
  const relative = site.raw.startsWith('./') || site.raw.startsWith('../');
  if (!relative) return site.raw.startsWith('/') ? `/${renamedTo}` : renamedTo;
  const rel = path.posix.relative(path.posix.dirname(doc), renamedTo);
  return rel.startsWith('../') || !site.raw.startsWith('./') ? rel : `./${rel}`;
}

/** The doc's text with every site's raw text replaced (only where it still reads as recorded). */
function rewriteSites(text: string, sites: readonly Mention[], replace: (site: Mention) => string): string {
  const lines = text.split('\n');
  for (const site of [...sites].sort((a, b) => b.line - a.line || b.column - a.column)) {
    const line = lines[site.line - 1];
    if (line === undefined || line.slice(site.column, site.column + site.raw.length) !== site.raw) continue;
    lines[site.line - 1] = line.slice(0, site.column) + replace(site) + line.slice(site.column + site.raw.length);
  }
  return lines.join('\n');
}

function redacted(view: RepositoryView, commit: CommitRef): CommitRef {
  const subject = redactText(commit.subject, view.policy.redactPatterns).replace(/[`\r\n]/g, "'");
  return { ...commit, subject: subject.length > MAX_SUBJECT_CHARS ? `${subject.slice(0, MAX_SUBJECT_CHARS - 1)}…` : subject };
}

const KIND_LABEL: Record<MentionKind, string> = {
  identifier: 'name',
  path: 'file',
  flag: 'CLI flag',
  env: 'environment variable',
  config_key: 'config key',
};

const RULE: Record<MentionKind, string> = {
  identifier: 'removed_name',
  path: 'removed_path',
  flag: 'removed_flag',
  env: 'removed_env',
  config_key: 'removed_config_key',
};

/** The drift card, and the rename diff when there is a single replacement that exists now. */
function cards(view: RepositoryView, doc: string, text: string, group: MentionGroup, removal: Removal, docCommit: CommitRef): Candidate[] {
  const { kind, value } = group;
  const commitText = `${removal.commit.sha.slice(0, 7)} "${removal.commit.subject}"`;
  const lines = [...new Set(group.sites.map((s) => s.line))];
  const where = `${doc} line ${lines[0] ?? 1}`;
  const renamed = removal.renamedTo !== undefined ? renamedValue(kind, value, removal.renamedTo) : undefined;
  const moved = kind === 'path' ? 'moved' : 'renamed';
  const change = renamed === undefined ? `removed \`${value}\`` : `${moved} \`${value}\` to \`${renamed}\``;
  const docHash = view.file(doc)?.sha256;
  const evidence: EvidenceRef[] = lines.slice(0, MAX_SITES_CITED).map((line) => ({
    path: doc,
    lineStart: line,
    lineEnd: line,
    ...(docHash !== undefined ? { contentHash: docHash } : {}),
    note: `mentions \`${value}\``,
  }));
  const current = removal.current !== undefined ? view.file(removal.current) : undefined;
  const definedAt = kind === 'identifier' ? current?.definitions.find((d) => d.name === renamed) : undefined;
  evidence.push({
    path: current?.path ?? removal.file,
    ...(definedAt !== undefined ? { lineStart: definedAt.line, lineEnd: definedAt.endLine } : {}),
    ...(current !== undefined ? { contentHash: current.sha256 } : {}),
    commit: removal.commit.sha,
    note: change,
  });
  const whyNow = `Commit ${commitText} ${change} after ${doc} was last edited (${docCommit.sha.slice(0, 7)}).`;
  const body = (what: string, action: string): string =>
    [
      `**What:** ${what}`,
      '',
      `**Why:** commit ${commitText} ${change} in \`${removal.file}\`, after ${doc} was last edited in ${docCommit.sha.slice(0, 7)}, when \`${removal.file}\` still had it.`,
      '',
      '**Evidence:**',
      ...evidence.map((e) => `- \`${e.path}\`${e.lineStart !== undefined ? ` line ${e.lineStart}` : ''}${e.commit !== undefined ? ` (commit ${e.commit.slice(0, 7)})` : ''}: ${e.note}`),
      '',
      `**Safe action:** ${action}`,
    ].join('\n');
  const drift: Candidate = {
    kind: 'docs_drift',
    detector: `docs_drift.${kind === 'path' && renamed !== undefined ? 'moved_path' : RULE[kind]}`,
    claim: `${doc}|${kind}|${value}`,
    title: `${where} mentions \`${value}\`, ${renamed === undefined ? 'removed' : `${moved} to \`${renamed}\``} in ${commitText}`,
    summary: `${where} mentions the ${KIND_LABEL[kind]} \`${value}\`, which no longer exists in the repository. Commit ${commitText} ${change} after the doc was last edited.`,
    whyNow,
    body: body(
      `${where} mentions the ${KIND_LABEL[kind]} \`${value}\`; nothing in the indexed code has it now.`,
      renamed === undefined ? `update or remove the mention in ${where}.` : `replace \`${value}\` with \`${renamed}\` in ${doc}.`,
    ),
    action: renamed === undefined ? `Update or remove the mention in ${where}` : `Update ${where}: \`${value}\` → \`${renamed}\``,
    evidence,
    strength: kind === 'identifier' || kind === 'path' ? 0.85 : 0.8,
    targets: [doc, ...(current !== undefined && current.path !== doc ? [current.path] : [])],
  };
  const renamedTo = removal.renamedTo;
  if (renamedTo === undefined || renamed === undefined) return [drift];
  const after = rewriteSites(text, group.sites, (site) => replacementAt(doc, site, kind, value, renamedTo));
  const made = makeVirtualDiff(view, [{ path: doc, after }]);
  if ('refused' in made) return [drift];
  const rename: Candidate = {
    kind: 'virtual_diff',
    detector: 'docs_drift.rename_diff',
    claim: `${doc}|rename|${value}`,
    title: `Update ${doc}: \`${value}\` → \`${renamed}\` (${moved} in ${commitText})`,
    summary: `A patch replacing \`${value}\` with \`${renamed}\` where ${doc} mentions it (line ${lines.join(', ')}). Commit ${commitText} ${change} after the doc was last edited.`,
    whyNow,
    body: body(
      `a patch to ${doc} that replaces \`${value}\` with \`${renamed}\` at its mentions (line ${lines.join(', ')}) and nowhere else; \`${renamed}\` exists now, \`${value}\` does not.`,
      'export the patch, read it, and apply it yourself; Sous never applies it.',
    ),
    action: 'Export the patch and apply it after review',
    evidence: evidence.map((e) => ({ ...e })),
    strength: 0.9,
    targets: [doc],
    diff: made.diff,
  };
  return [drift, rename];
}
