/**
 * docs_drift: a doc mentions a name, file, flag, environment variable or config key that the code no
 * longer has, and git shows the commit that removed (or renamed, or moved) it while the doc named it.
 * Absence alone is never enough: docs mention other projects' names all the time, so a card needs
 * the removing commit, a diff line of the code that took the thing away, and the doc naming it in
 * that very commit (left behind, not written later; a line the removing commit wrote itself is
 * never cited). A name imported from another project, by the code that dropped it or by the doc's own
 * example, is that project's and never drift; so is one the project moved out into a package of its
 * own that its docs name (`winston-couchdb`). Changelogs, release notes, migration guides and
 * dated docs record history and are never examined. When the same diff lines replace it by exactly one new name (or git
 * recorded a file rename) and the new one exists now, a virtual diff updates the doc's mentions.
 * One commit that left docs behind is one card per kind of mention (every doc and name it left),
 * not a card per doc: translations of one page, or the ten names a refactor removed, are one piece
 * of work, and the feed stays small.
 */
import * as path from 'node:path';
import { isUserDoc } from '../../view/file-roles';
import type { RepositoryView } from '../../view/repository-view';
import { makeVirtualDiff, type FileEdit } from '../../work/virtual-diff';
import type { Candidate, EvidenceRef } from '../../work/types';
import type { Detector, DetectorContext, DetectorResult } from '../types';
import { docSnapshots, exampleLines, extractMentions, generatedClients, isDeprecatedPage, isHistoryDoc, isProseDoc, isRecordedDecision, olderVersionDocs, ownAddress, readerCreatesFiles, unmaintainedSites, type Mention, type MentionKind } from './mentions';
import { projectPrograms } from './programs';
import { importedFromElsewhere, importLines } from './imports';
import { collectPackageWords, installedPackages, installsSplitPackage, movedToOwnPackage, splitOutSuffixes } from './split-packages';
import { docOwnVariable, exampleDeclares, exampleDeclaresFlag, needleForms, needleOf, negatedBase, removalKey, renamedValue, repoFacts, type MentionGroup, type RepoFacts, type Removal } from './history-facts';

/**
 * Docs examined per cycle at most, those on the frontier first. Sites translated into many languages
 * hold hundreds of pages (fastapi: 667, 84 of them in docs/zh); a page cut off here is never checked.
 */
const MAX_DOCS = 1500;
/** Doc lines cited per finding. */
const MAX_SITES_CITED = 5;

export const docsDriftDetector: Detector = {
  name: 'docs_drift',
  kinds: ['docs_drift', 'virtual_diff'],
  async detect({ view, frontier, signal, isOff, isHeld }: DetectorContext): Promise<DetectorResult> {
    // A kind whose cards are off is not looked for, and so gets no patch either; a held kind (names,
    // flags, variables, config keys by default) is looked for, its cards kept as candidates. Moves are
    // the exception: a moved file's or module's patch is made while patches (`docs_drift.rename_diff`,
    // on by default: 2 of 29 wrong, docs/benchmarks.md) are on, even with the module-path cards off.
    const detectorOn = (detector: string): boolean => isOff?.(detector) !== true;
    // A file or module that moved has cards of its own (`moved_path`), on or off apart from deleted
    // ones (`removed_path`): both on by default (judged on fresh set 13, moved files right 3 times in
    // 3, deleted ones wrong once in 16), each turned off by its own name.
    const cardOn = (kind: MentionKind): boolean => detectorOn(`docs_drift.${RULE[kind]}`) || (moves(kind) && detectorOn(`docs_drift.moved_${kind}`));
    const wanted = (kind: MentionKind): boolean => cardOn(kind) || (moves(kind) && detectorOn('docs_drift.rename_diff'));
    const older = olderVersionDocs(view.paths());
    const snapshots = docSnapshots(view.paths());
    const generated = generatedClients(view.paths());
    const docs = view
      .paths()
      .filter((p) => isProseDoc(p, view.file(p)?.language) && isUserDoc(p) && !isHistoryDoc(p) && !older(p) && !generated(p))
      .sort((a, b) => frontier.priority(b) - frontier.priority(a) || (a < b ? -1 : 1))
      // Every doc may mention what a change removed, not only docs on the frontier; those come first.
      .slice(0, MAX_DOCS);
    // The mentions first: the code is then scanned once for just those words, not kept whole in memory.
    const mentions = new Map<string, MentionGroup[]>();
    // A flag in a command line is the command's: the project's own commands are known from its manifests.
    const programs = projectPrograms(view);
    const needles = new Set<string>();
    const flagNeedles = new Set<string>();
    /** Per doc with mentions, the import statements its examples hold (read once with its text). */
    const importsOf = new Map<string, string[]>();
    /** Hyphenated package names any doc gives (`winston-couchdb`): where the project moved things out to. */
    const packageWords = new Set<string>();
    /** Per doc with mentions, the packages its install commands name (read once with its text). */
    const installedOf = new Map<string, ReadonlySet<string>>();
    /** Pages that open by saying they are deprecated or no longer maintained: history, and a sign of an old site around them. */
    const deprecated = new Set<string>();
    for (const doc of docs) {
      const text = view.text(doc);
      if (text === undefined || text.includes('\0') || isRecordedDecision(text)) continue;
      if (isDeprecatedPage(text)) {
        deprecated.add(doc);
        continue;
      }
      // A name or flag the doc's own example declares (`is_offer: bool`, `StringVar(&author, "author", …)`
      // in its code block) is the example's.
      const examples = exampleLines(doc, text);
      importsOf.set(doc, importLines(text.split('\n')));
      const installed = installedPackages(text);
      installedOf.set(doc, installed);
      collectPackageWords(text, installed, packageWords);
      // In a tutorial that has the reader create files, a file named in backticks (not linked) is the reader's.
      const readersFiles = readerCreatesFiles(text);
      const groups = groupMentions(extractMentions(doc, text, programs)).filter(
        (g) => wanted(g.kind) && !(g.kind === 'env' && docOwnVariable(text, g.value)) && !(g.kind === 'path' && readersFiles && g.sites.every((site) => site.link !== true)),
      );
      mentions.set(doc, examples.length === 0 ? groups : groups.filter((g) => !(g.kind === 'identifier' ? exampleDeclares(examples, g.value) : g.kind === 'flag' && exampleDeclaresFlag(examples, g.value))));
    }
    // A docs site kept for an older release is history as a whole, its unmarked pages and translations too.
    const unmaintained = unmaintainedSites(docs, deprecated);
    for (const doc of mentions.keys()) if (unmaintained(doc)) mentions.delete(doc);
    const repo = repoFacts(view, needles, flagNeedles, programs, (doc) => (mentions.get(doc) ?? []).flatMap((g) => g.sites.map((site) => site.line)));
    const splitOut = splitOutSuffixes(packageWords, repo.ownModules());
    const folderExists = (folder: string): boolean => view.paths().some((p) => p.startsWith(`${folder}/`));
    for (const [doc, groups] of mentions) {
      // A name the doc itself imports from another project (`from django.db.models.signals import
      // post_save` in its example) is that project's; so is one the project moved out into a package
      // its docs name (`winston-couchdb`).
      const imports = importsOf.get(doc) ?? [];
      // So is one every mention of which links to another project's pages (`[`core::iter::Step`](https://doc.rust-lang.org/…)`).
      const othersName = (g: MentionGroup): boolean =>
        g.kind === 'identifier' &&
        ((imports.length > 0 && importedFromElsewhere(imports, g.value, repo.ownModules())) || movedToOwnPackage(g.value, splitOut) || g.sites.every((s) => s.href !== undefined && !ownAddress(s.href, repo.ownModules())));
      const kept = ownDotted(groups, repo).filter((g) => !othersName(g) && !underSiteRoot(view, doc, g));
      mentions.set(doc, kept);
      for (const g of kept) {
        if (moves(g.kind)) continue;
        for (const form of needleForms(g.kind, g.value)) needles.add(form);
        if (g.kind === 'flag') flagNeedles.add(needleOf(g.kind, g.value));
      }
    }
    // What the code lacks now is known from the index; then one read of the history for just those words.
    const words = new Set<string>();
    let missingPaths = false;
    for (const groups of mentions.values()) {
      for (const g of groups) {
        if (signal.aborted) break;
        if (g.kind === 'path') missingPaths ||= !repo.existsNow(g.kind, g.value);
        if (g.kind === 'module_path') {
          const word = await repo.dottedWord(g.value);
          if (word !== undefined) words.add(word);
        } else if (g.kind !== 'path' && !repo.existsNow(g.kind, g.value)) {
          words.add(removalKey(g.kind, needleOf(g.kind, g.value)));
          const base = negatedBase(g.kind, needleOf(g.kind, g.value));
          if (base !== undefined) words.add(removalKey(g.kind, base));
        }
      }
    }
    const asked = [...words].filter((w) => w.length >= 3);
    if (asked.length > 0 || missingPaths) await repo.prepare(asked);
    const findings: Finding[] = [];
    const covered: string[] = [];
    for (const doc of docs) {
      if (signal.aborted) break;
      const found = await examineDoc(view, repo, doc, mentions.get(doc) ?? [], snapshots(doc), signal);
      if (found === null) break;
      // A name removed from a file or folder named like a package the docs name (`src/xstate/` and
      // `jotai-xstate`) moved out into that package; so did what a whole deleted file took on the page
      // of a package split out of the project (haystack's `tika_url` on the page that installs `tika-haystack`).
      const packagePage = installsSplitPackage(installedOf.get(doc) ?? new Set(), repo.ownModules());
      const packages = (f: Finding): boolean =>
        (f.group.kind === 'identifier' && movedToOwnPackage(f.group.value, splitOut, { file: f.removal.file, folderExists })) ||
        (packagePage && SPLIT_KINDS.has(f.group.kind) && f.removal.current === undefined);
      findings.push(...found.filter((f) => !packages(f)));
      covered.push(doc);
    }
    // A held kind (names, flags by default: exploration.detectors_held) keeps its cards as candidates,
    // and no patch shown in the feed may rest on a finding nobody is shown.
    const patchOn = (f: Finding): boolean => isHeld?.(cardDetector(f.group.kind, [f])) !== true;
    return { candidates: cardsByCommit(view, findings, cardOn, patchOn).filter((c) => c.kind !== 'docs_drift' || detectorOn(c.detector)), covered };
  },
};

/** What a package split out of the project takes with it: its names, variables and settings (not files or flags). */
const SPLIT_KINDS: ReadonlySet<MentionKind> = new Set(['identifier', 'env', 'config_key']);

/** One thing a doc names that a commit took away. */
interface Finding {
  doc: string;
  group: MentionGroup;
  removal: Removal;
}

/** Findings for one doc, or null when the cycle was cancelled before the doc was done. */
async function examineDoc(view: RepositoryView, repo: RepoFacts, doc: string, groups: readonly MentionGroup[], snapshot: boolean, signal: AbortSignal): Promise<Finding[] | null> {
  if (view.text(doc) === undefined) return [];
  const out: Finding[] = [];
  for (const group of groups.filter((g) => g.kind === 'module_path')) {
    if (signal.aborted) return null;
    const found = await leftBehind(repo, doc, group, await orNone(repo.dottedRemoval(group, doc)), snapshot);
    if (found !== undefined) out.push(found);
  }
  const missing = groups.filter((g) => g.kind !== 'module_path' && !repo.existsNow(g.kind, g.value));
  if (missing.length === 0) return out;
  const history = await view.git.history();
  // Cheap first: only mentions that something in the history could have removed are worth git calls.
  const plausible = missing.filter((g) => {
    if (g.kind === 'path') return history.lastTouch(g.value) !== undefined || repo.deleting(g.value) !== undefined;
    const base = negatedBase(g.kind, needleOf(g.kind, g.value));
    return repo.removing(removalKey(g.kind, needleOf(g.kind, g.value))).length > 0 || (base !== undefined && repo.removing(removalKey(g.kind, base)).length > 0);
  });
  for (const group of plausible) {
    if (signal.aborted) return null;
    const found = await leftBehind(repo, doc, group, await orNone(group.kind === 'path' ? repo.pathRemoval(group, doc) : repo.nameRemoval(group, doc)), snapshot);
    if (found !== undefined) out.push(found);
  }
  return out;
}

/**
 * A dotted span is read two ways at extraction (a Python path, and a key or a name); once the
 * repository's packages are known, one reading stays: the Python path when its first word is one of
 * them (its other reading's sites are dropped), else the other.
 */
function ownDotted(groups: readonly MentionGroup[], repo: RepoFacts): MentionGroup[] {
  const own = groups.filter((g) => g.kind === 'module_path' && repo.isOwnDotted(g.value));
  const covered = (site: Mention): boolean => own.some((g) => g.sites.some((s) => s.line === site.line && site.column >= s.column && site.column < s.column + s.raw.length));
  const out: MentionGroup[] = [...own];
  for (const g of groups) {
    if (g.kind === 'module_path') continue;
    const sites = own.length === 0 ? g.sites : g.sites.filter((s) => !covered(s));
    if (sites.length > 0) out.push(sites.length === g.sites.length ? g : { ...g, sites });
  }
  return out;
}

/**
 * A link written from a docs site's root (`/docs/api/Client.md`) when the site is served from a folder
 * (undici's docsify site from `docs/`): it resolves under one of the doc's folders, where the file is.
 */
function underSiteRoot(view: RepositoryView, doc: string, g: MentionGroup): boolean {
  if (g.kind !== 'path' || !g.sites.every((s) => s.raw.startsWith('/'))) return false;
  const folders = doc.split('/').slice(0, -1);
  for (let k = folders.length; k >= 1; k--) if (view.file(`${folders.slice(0, k).join('/')}/${g.value}`) !== undefined) return true;
  return false;
}

/**
 * The finding for a removal, with only the mentions it left behind (RepoFacts.leftBehind; all of
 * them when git cannot say); none without a removal or when no mention is left.
 */
async function leftBehind(repo: RepoFacts, doc: string, group: MentionGroup, removal: Removal | undefined, snapshot: boolean): Promise<Finding | undefined> {
  if (removal === undefined) return undefined;
  let left: MentionGroup | undefined = group;
  try {
    left = await repo.leftBehind(group, doc, removal, snapshot);
  } catch {
    // a blame that failed outright: every mention counts
  }
  return left === undefined ? undefined : { doc, group: left, removal };
}

/**
 * One mention's history read failed (a partial clone lacks the blob git needed): that mention gets no
 * card, the other mentions and docs are still examined.
 */
async function orNone(found: Promise<Removal | undefined>): Promise<Removal | undefined> {
  try {
    return await found;
  } catch {
    return undefined;
  }
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

/** What a site's raw text becomes (a link is rewritten relative to the doc, as it was written). */
function replacementAt(doc: string, site: Mention, kind: MentionKind, value: string, renamedTo: string): string {
  if (kind !== 'path') return renamedValue(kind, value, renamedTo); // raw is the value for every other kind
  const relative = site.raw.startsWith('./') || site.raw.startsWith('../');
  if (!relative) return site.raw.startsWith('/') ? `/${renamedTo}` : renamedTo;
  const rel = path.posix.relative(path.posix.dirname(doc), renamedTo);
  return rel.startsWith('../') || !site.raw.startsWith('./') ? rel : `./${rel}`;
}

/** The doc's text with each site's raw text replaced by its edit (only where it still reads as recorded). */
function rewriteSites(text: string, edits: ReadonlyArray<{ site: Mention; replacement: string }>): string {
  const lines = text.split('\n');
  for (const { site, replacement } of [...edits].sort((a, b) => b.site.line - a.site.line || b.site.column - a.site.column)) {
    const line = lines[site.line - 1];
    if (line === undefined || line.slice(site.column, site.column + site.raw.length) !== site.raw) continue;
    lines[site.line - 1] = line.slice(0, site.column) + replacement + line.slice(site.column + site.raw.length);
  }
  return lines.join('\n');
}

/** Files and Python modules move (a new path replaces the old); the other kinds are renamed. */
function moves(kind: MentionKind): boolean {
  return kind === 'path' || kind === 'module_path';
}

const KIND_LABEL: Record<MentionKind, string> = {
  identifier: 'name',
  path: 'file',
  flag: 'CLI flag',
  env: 'environment variable',
  config_key: 'config key',
  module_path: 'Python path',
};

const RULE: Record<MentionKind, string> = {
  identifier: 'removed_name',
  path: 'removed_path',
  flag: 'removed_flag',
  env: 'removed_env',
  config_key: 'removed_config_key',
  module_path: 'removed_module_path',
};

/** Docs cited line by line on one card at most; the body lists the rest. */
const MAX_DOC_EVIDENCE = 30;
/** Code files of the removing commit cited per card. */
const MAX_CODE_EVIDENCE = 3;
/** Mentions the body lists one by one. */
const MAX_BODY_ITEMS = 40;
/** Names a title spells out. */
const MAX_TITLE_NAMES = 3;

/**
 * The cards for every finding: one docs_drift card per removing commit and kind of mention (all the
 * docs and names it left behind), and one virtual diff per commit for the mentions whose single
 * replacement exists now.
 */
function cardsByCommit(view: RepositoryView, findings: readonly Finding[], cardOn: (kind: MentionKind) => boolean, patchOn: (f: Finding) => boolean): Candidate[] {
  const byCommit = new Map<string, Finding[]>();
  for (const f of mergesUnrenamed(findings)) {
    const list = byCommit.get(f.removal.commit.sha);
    if (list === undefined) byCommit.set(f.removal.commit.sha, [f]);
    else list.push(f);
  }
  const out: Candidate[] = [];
  for (const list of byCommit.values()) {
    const kinds = [...new Set(list.map((f) => f.group.kind))].filter(cardOn);
    for (const kind of kinds) {
      const ofKind = list.filter((f) => f.group.kind === kind);
      const direct = ofKind.filter((f) => f.removal.indirect === undefined);
      const indirect = ofKind.filter((f) => f.removal.indirect !== undefined);
      if (direct.length > 0) out.push(driftCard(view, direct));
      if (indirect.length > 0) out.push(driftCard(view, indirect));
    }
    const diff = renameDiff(view, list.filter(patchOn));
    if (diff !== undefined) out.push(diff);
  }
  return out;
}

/**
 * A commit that turned several names into one (`fn_args_indent`, `array_indent` → `indent_style`)
 * merged them: no single name replaces each, so none of them gets a patch.
 */
function mergesUnrenamed(findings: readonly Finding[]): Finding[] {
  const olds = new Map<string, Set<string>>(); // commit|new name → old names
  const keyOf = (f: Finding): string => `${f.removal.commit.sha}|${f.removal.renamedTo ?? ''}`;
  for (const f of findings) {
    if (f.removal.renamedTo === undefined) continue;
    const set = olds.get(keyOf(f)) ?? new Set<string>();
    set.add(needleOf(f.group.kind, f.group.value));
    olds.set(keyOf(f), set);
  }
  return findings.map((f) => {
    if (f.removal.renamedTo === undefined || (olds.get(keyOf(f))?.size ?? 0) < 2) return f;
    const { renamedTo: _merged, ...removal } = f.removal;
    return { ...f, removal };
  });
}

/** What happened to a finding's thing, in words: "removed `x`", "renamed `x` to `y`", "moved `a` to `b`". */
function changeOf(f: Finding): { change: string; renamed?: string } {
  const { kind, value } = f.group;
  const renamed = f.removal.renamedTo !== undefined ? renamedValue(kind, value, f.removal.renamedTo) : undefined;
  if (renamed === undefined) return { change: `removed \`${value}\`` };
  return { change: `${moves(kind) ? 'moved' : 'renamed'} \`${value}\` to \`${renamed}\``, renamed };
}

function commitTextOf(f: Finding): string {
  return `${f.removal.commit.sha.slice(0, 7)} "${f.removal.commit.subject}"`;
}

/** The lines of a doc that name a finding's thing. */
function linesOf(f: Finding): number[] {
  return [...new Set(f.group.sites.map((s) => s.line))];
}

/** Evidence: each doc's mention (its lines), then the removing commit in the code files it changed. */
function evidenceOf(view: RepositoryView, list: readonly Finding[]): EvidenceRef[] {
  const evidence: EvidenceRef[] = [];
  const perFinding = list.length === 1 ? MAX_SITES_CITED : 1;
  for (const f of list) {
    const docHash = view.file(f.doc)?.sha256;
    for (const line of linesOf(f).slice(0, perFinding)) {
      if (evidence.length >= MAX_DOC_EVIDENCE) break;
      evidence.push({ path: f.doc, lineStart: line, lineEnd: line, ...(docHash !== undefined ? { contentHash: docHash } : {}), note: `mentions \`${f.group.value}\`` });
    }
  }
  const codeFiles = new Set<string>();
  for (const f of list) {
    const current = f.removal.current !== undefined ? view.file(f.removal.current) : undefined;
    const file = current?.path ?? f.removal.file;
    if (codeFiles.has(file)) continue;
    if (codeFiles.size >= MAX_CODE_EVIDENCE) break;
    codeFiles.add(file);
    const { change, renamed } = changeOf(f);
    const definedAt = f.group.kind === 'identifier' ? current?.definitions.find((d) => d.name === renamed) : undefined;
    evidence.push({
      path: file,
      ...(definedAt !== undefined ? { lineStart: definedAt.line, lineEnd: definedAt.endLine } : {}),
      ...(current !== undefined ? { contentHash: current.sha256 } : {}),
      commit: f.removal.commit.sha,
      note: change,
    });
  }
  return evidence;
}

/** "docs/api.md line 3", or "4 docs" when several docs are concerned. */
function whereOf(list: readonly Finding[]): string {
  const docs = [...new Set(list.map((f) => f.doc))];
  if (docs.length > 1) return `${docs.length} docs`;
  const first = list[0];
  return `${docs[0]} line ${first !== undefined ? (linesOf(first)[0] ?? 1) : 1}`;
}

/** `a`, `b`, `c` and 2 more */
function namesOf(list: readonly Finding[]): string {
  const values = [...new Set(list.map((f) => f.group.value))];
  const shown = values.slice(0, MAX_TITLE_NAMES).map((v) => `\`${v}\``).join(', ');
  return values.length > MAX_TITLE_NAMES ? `${shown} and ${values.length - MAX_TITLE_NAMES} more` : shown;
}

/** The body's list: each doc and line, what it names and what the commit did to it. */
function itemsOf(list: readonly Finding[]): string[] {
  const items = list.slice(0, MAX_BODY_ITEMS).map((f) => `- \`${f.doc}\` line ${linesOf(f).join(', ')}: \`${f.group.value}\` (${changeOf(f).change})`);
  if (list.length > MAX_BODY_ITEMS) items.push(`- and ${list.length - MAX_BODY_ITEMS} more`);
  return items;
}

/**
 * Strength of a card whose every finding rests on indirect evidence (`Removal.indirect`): below what
 * the ready threshold can reach, so it stays a candidate (`?diagnostic=true`). On repositories the
 * rules were never tuned on, most such cards were another program's flags, variables set for
 * another tool, or paths in the user's project (docs/benchmarks.md, drift).
 */
export const INDIRECT_STRENGTH = 0.2;

/** The detector id of the card for these findings of one kind: moves have their own (`moved_path`). */
function cardDetector(kind: MentionKind, list: readonly Finding[]): string {
  return `docs_drift.${moves(kind) && list.every((f) => f.removal.renamedTo !== undefined) ? `moved_${kind}` : RULE[kind]}`;
}

/** One commit's findings of one kind, all direct or all indirect: the drift card. */
function driftCard(view: RepositoryView, list: readonly Finding[]): Candidate {
  const first = list[0] as Finding;
  const indirect = first.removal.indirect;
  const { kind } = first.group;
  const commitText = commitTextOf(first);
  const single = list.length === 1;
  const { change, renamed } = changeOf(first);
  const where = whereOf(list);
  const docs = [...new Set(list.map((f) => f.doc))];
  const evidence = evidenceOf(view, list);
  const label = KIND_LABEL[kind];
  const moved = moves(kind) ? 'moved' : 'renamed';
  const renamedCount = list.filter((f) => f.removal.renamedTo !== undefined).length;
  const whatGone = single
    ? renamed === undefined
      ? 'removed'
      : `${moved} to \`${renamed}\``
    : renamedCount === 0
      ? 'removed'
      : renamedCount === list.length
        ? moved
        : `removed or ${moved}`;
  const title = single
    ? `${where} mentions \`${first.group.value}\`, ${whatGone} in ${commitText}`
    : `${where} mention${docs.length > 1 ? '' : 's'} ${namesOf(list)}, ${whatGone} in ${commitText}`;
  const whyNow = single
    ? `Commit ${commitText} ${change}; ${first.doc} named it then and still does.`
    : `Commit ${commitText} took away ${list.length} ${label}s or mentions of them that ${docs.length === 1 ? first.doc : `${docs.length} docs`} named then and still do.`;
  const files = [...new Set(list.map((f) => `\`${f.removal.file}\``))].slice(0, MAX_CODE_EVIDENCE).join(', ');
  const action = single
    ? renamed === undefined
      ? `Update or remove the mention in ${where}`
      : `Update ${where}: \`${first.group.value}\` → \`${renamed}\``
    : `Update the mentions in ${docs.length === 1 ? first.doc : `${docs.length} docs`} (listed on the card)`;
  const body = [
    `**What:** ${single ? `${where} mentions the ${label} \`${first.group.value}\`; nothing in the indexed code has it now.` : `${where} mention ${label}s that nothing in the indexed code has now:`}`,
    ...(single ? [] : ['', ...itemsOf(list)]),
    '',
    `**Why:** commit ${commitText} ${single ? change : 'took them away'} in ${files}; ${single ? `${first.doc} already named it then, and was not updated.` : 'each doc already named them then, and was not updated.'}`,
    '',
    '**Evidence:**',
    ...evidence.map((e) => `- \`${e.path}\`${e.lineStart !== undefined ? ` line ${e.lineStart}` : ''}${e.commit !== undefined ? ` (commit ${e.commit.slice(0, 7)})` : ''}: ${e.note}`),
    '',
    `**Safe action:** ${single ? (renamed === undefined ? `update or remove the mention in ${where}.` : `replace \`${first.group.value}\` with \`${renamed}\` in ${first.doc}.`) : 'update or remove each mention listed; where a single replacement exists now, the virtual diff of this commit has the patch.'}`,
    ...(indirect !== undefined ? ['', `**Indirect evidence:** ${indirect}; the mention may name another program's or the user's own, so this stays a candidate.`] : []),
  ].join('\n');
  const summary = single
    ? `${where} mentions the ${label} \`${first.group.value}\`, which no longer exists in the repository. Commit ${commitText} ${change}; the doc named it then and was not updated.`
    : `${where} mention ${namesOf(list)}, which no longer exist in the repository. Commit ${commitText} took them away; the docs named them then and were not updated.`;
  const codeTargets = list.flatMap((f) => (f.removal.current !== undefined && !docs.includes(f.removal.current) ? [f.removal.current] : []));
  return {
    kind: 'docs_drift',
    detector: cardDetector(kind, list),
    // One claim per commit and kind: the card keeps its identity while docs are fixed one by one.
    claim: `${first.removal.commit.sha}|${kind}${indirect !== undefined ? '|indirect' : ''}`,
    title,
    summary,
    whyNow,
    body,
    action,
    evidence,
    strength: indirect !== undefined ? INDIRECT_STRENGTH : kind === 'identifier' || kind === 'path' ? 0.85 : 0.8,
    targets: [...new Set([...docs, ...codeTargets])],
  };
}

/** The patch for one commit's findings whose single replacement exists now, across every doc. */
function renameDiff(view: RepositoryView, list: readonly Finding[]): Candidate | undefined {
  const renames = list.filter((f) => f.removal.renamedTo !== undefined);
  const first = renames[0];
  if (first === undefined) return undefined;
  const edits: FileEdit[] = [];
  for (const doc of [...new Set(renames.map((f) => f.doc))]) {
    const text = view.text(doc);
    if (text === undefined) continue;
    const sites = renames
      .filter((f) => f.doc === doc)
      .flatMap((f) => f.group.sites.map((site) => ({ site, replacement: replacementAt(doc, site, f.group.kind, f.group.value, f.removal.renamedTo as string) })));
    edits.push({ path: doc, after: rewriteSites(text, sites) });
  }
  const made = makeVirtualDiff(view, edits);
  if ('refused' in made) return undefined;
  const commitText = commitTextOf(first);
  const single = renames.length === 1;
  const { change, renamed } = changeOf(first);
  const docs = [...new Set(renames.map((f) => f.doc))];
  const lines = linesOf(first);
  const what = single ? `\`${first.group.value}\` → \`${renamed}\`` : `${renames.length} renamed mentions`;
  const evidence = evidenceOf(view, renames);
  return {
    kind: 'virtual_diff',
    detector: 'docs_drift.rename_diff',
    claim: `${first.removal.commit.sha}|rename`,
    title: `Update ${single ? first.doc : docs.length === 1 ? first.doc : `${docs.length} docs`}: ${what} (${single && moves(first.group.kind) ? 'moved' : 'renamed'} in ${commitText})`,
    summary: single
      ? `A patch replacing \`${first.group.value}\` with \`${renamed}\` where ${first.doc} mentions it (line ${lines.join(', ')}). Commit ${commitText} ${change}; the doc named it then and was not updated.`
      : `A patch updating ${renames.length} mentions in ${docs.join(', ')} to the names commit ${commitText} gave them; the docs named the old ones then and were not updated.`,
    whyNow: single ? `Commit ${commitText} ${change}; ${first.doc} named it then and still does.` : `Commit ${commitText} renamed or moved what ${docs.length === 1 ? first.doc : `${docs.length} docs`} still name.`,
    body: [
      `**What:** a patch that replaces each old name with its new one at these mentions and nowhere else; each new name exists now, the old one does not.`,
      '',
      ...itemsOf(renames),
      '',
      `**Why:** commit ${commitText} renamed or moved them; the docs already named them then, and were not updated.`,
      '',
      '**Evidence:**',
      ...evidence.map((e) => `- \`${e.path}\`${e.lineStart !== undefined ? ` line ${e.lineStart}` : ''}${e.commit !== undefined ? ` (commit ${e.commit.slice(0, 7)})` : ''}: ${e.note}`),
      '',
      '**Safe action:** export the patch, read it, and apply it yourself; Sous never applies it.',
    ].join('\n'),
    action: 'Export the patch and apply it after review',
    evidence,
    strength: 0.9,
    targets: docs,
    diff: made.diff,
  };
}
