/**
 * What the code and its history say about a doc's mentions, for docs_drift: whether a mention still
 * exists in the code (its words are scanned for once per cycle), and which commit after the doc's
 * last edit removed, renamed or moved it (from the history index, then that commit's diff).
 */
import * as path from 'node:path';
import { redactText } from '@sous/protocol';
import type { RepositoryView } from '../../view/repository-view';
import { BLAME_RANGES, type CommitRef, type FileDiff } from '../../view/git-history';
import { NO_REMOVALS, codePathspecs, type RemovalIndex } from '../../view/history-index';
import { isProjectSource } from '../../view/file-roles';
import { isDocFile, type Mention, type MentionKind } from './mentions';
import { pythonModules, resolveDotted, type PythonModules } from './module-paths';
import { escapeRegExp } from './regexp';
import { importedFromElsewhere, importLines, normalModule } from './imports';

/** Newest removing commits looked at per mention. */
const PICKAXE_LIMIT = 10;
/** Commit diffs kept in memory per cycle (see commitDiff in repoFacts). */
const DIFFS_KEPT = 16;
/** Files as a commit left them, kept in memory per cycle (see fileAt in repoFacts). */
const FILES_AT_KEPT = 64;
/** Commit subjects are repository text: cut to a title's length. */
const MAX_SUBJECT_CHARS = 72;

/** Everything a doc says about one thing: its kind, value and every site. */
export interface MentionGroup {
  kind: MentionKind;
  value: string;
  sites: Mention[];
}

/** The commit that took a mentioned thing away after the doc's last edit. */
export interface Removal {
  commit: CommitRef;
  /** The code file it was removed from, as named before the commit. */
  file: string;
  /** The same file now, when it still exists (renamed or edited, not deleted). */
  current?: string;
  /** Its one replacement (a name, or a file's new path) when the commit renamed it and that exists now. */
  renamedTo?: string;
  /**
   * Set when the evidence is indirect, saying why: the commit only stopped passing or reading a flag or
   * variable (it never declared it), or deleted a file the doc names in prose, not in a link (a path in
   * the user's project may look the same). Such findings stay candidates (docs/prepared-work.md).
   */
  indirect?: string;
}
/** What the code of the repository holds now, and what git says happened to a mention; cached per cycle. */
export interface RepoFacts {
  existsNow(kind: MentionKind, value: string): boolean;
  /** The word a dotted Python path lost (its missing attribute), when it names one; undefined otherwise. */
  dottedWord(value: string): Promise<string | undefined>;
  /** Reads, once, which commits removed these words from the code (the missing mentions' words), and which deleted files. */
  prepare(words: readonly string[]): Promise<void>;
  /** The newest commit that deleted or moved away `path` (after `prepare`). */
  deleting(path: string): CommitRef | undefined;
  /** Commits that removed `word` from in-scope files, newest first (after `prepare`). */
  removing(word: string): readonly CommitRef[];
  /** The commit that took the name out of the code while `doc` named it (and still does), if any. */
  nameRemoval(group: MentionGroup, doc: string): Promise<Removal | undefined>;
  /** The commit that deleted or moved the file while `doc` linked it, if any. */
  pathRemoval(group: MentionGroup, doc: string): Promise<Removal | undefined>;
  /** Whether a dotted mention starts with one of this repository's Python packages. */
  isOwnDotted(value: string): boolean;
  /**
   * For a dotted Python path that no longer resolves: the commit that deleted or moved its module,
   * or took the name out of the module, while `doc` named it.
   */
  dottedRemoval(group: MentionGroup, doc: string): Promise<Removal | undefined>;
  /**
   * The repository's own module names (its Python packages, and the packages, crates and commands its
   * manifests declare), lowercase with `-` as `_`: an import from anything else is another project's.
   */
  ownModules(): ReadonlySet<string>;
  /**
   * The group without the sites whose line the removing commit itself wrote (git blame of the doc at
   * HEAD): whoever took the thing out and wrote that line in the same change named it knowingly (a
   * link to the gist it moved to). A line rewritten by a later commit still counts: a branch started
   * before the removal and squash-merged after it carries the old text along (webpack-dev-server's
   * regenerated `--firewall` help). Undefined when no site is left; the group as is when git cannot
   * say (the doc has uncommitted edits, a blame failed).
   */
  leftBehind(group: MentionGroup, doc: string, removal: Removal, snapshot?: boolean): Promise<MentionGroup | undefined>;
}

/**
 * `siteLines`: every line of a doc that mentions something, so that the doc is blamed once for all of
 * them, not once per mention (rclone's option pages: thousands of blames of one long-lived doc).
 */
export function repoFacts(
  view: RepositoryView,
  needles: ReadonlySet<string>,
  flagNeedles: ReadonlySet<string> = new Set(),
  programs: ReadonlySet<string> = new Set(),
  siteLines: (doc: string) => readonly number[] = () => [],
): RepoFacts {
  let removals: RemovalIndex = NO_REMOVALS;
  /**
   * Which flag names some code file holds as a flag: `--name`, quoted (`"name"`, `'name'`), or read
   * from the parsed command line (`this.options.conceal` in a serverless plugin, `args.verbose`,
   * `argv.watch`: a schema may declare it as a bare key, `conceal: {`).
   */
  const flagWords = codeScan(view, () => flagNeedles.size > 0, (text, into) => {
    for (const m of text.matchAll(/(?:--|["'`])([A-Za-z][\w-]*)/g)) if (flagNeedles.has(m[1] ?? '')) into.add(m[1] ?? '');
    // Not a bare `options.x`: that is as often a library's API option (vitest's `options.environment`).
    for (const m of text.matchAll(/\b(?:this\.options|opts|argv|args|flags)\.([A-Za-z]\w*)/g)) if (flagNeedles.has(m[1] ?? '')) into.add(m[1] ?? '');
  });
  /** Flags a Rust parser derives from struct fields (`#[arg(long)] send: bool` makes `--send`). */
  const derivedFlags = codeScan(view, () => flagNeedles.size > 0, (text, into) => {
    for (const flag of derivedRustFlags(text)) into.add(flag);
  }, (file) => file.endsWith('.rs'));
  /** Which of the docs' words some indexed non-doc file holds (hyphenated words whole and in parts). */
  const codeWords = codeScan(view, () => needles.size > 0, (text, into) => {
    for (const [w] of text.matchAll(/[A-Za-z_$][\w$]*(?:-[\w$]+)*/g)) {
      if (needles.has(w)) into.add(w);
      if (w.includes('-')) for (const part of w.split('-')) if (needles.has(part)) into.add(part);
    }
  });
  /**
   * Upper-case strings the code quotes (`"TASK_"`, `"COLOR_RED"`), the trailing `_` dropped; and,
   * marked `PREFIX_*`, the prefixes it builds variable names from (`f"CIBW_{name.upper()}"`,
   * `"APP_" + key`, `env_prefix = "APP_"`, viper's `SetEnvPrefix("hugo")`). One pass for both.
   */
  const quotedCaps = codeScan(view, () => true, (text, into) => {
    for (const m of text.matchAll(/["'`]([A-Z][A-Z0-9_]{0,63})["'`]/g)) into.add((m[1] ?? '').replace(/_+$/, ''));
    for (const m of text.matchAll(/["'`]([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)*)_(?:\{|\$\{|%[sd(]|["'`]\s*\+)/g)) into.add(`${m[1] ?? ''}_*`);
    for (const m of text.matchAll(/\b(?:env_?prefix|EnvPrefix|envPrefix|ENV_PREFIX)\s*\(?\s*[=:]?\s*["'`]([A-Za-z][A-Za-z0-9_]*?)_?["'`]/g)) into.add(`${(m[1] ?? '').toUpperCase()}_*`);
  });
  /**
   * Programs often read their variables through a prefix: `TASK_TEMP_DIR` exists when the code quotes
   * `"TASK_"` and `"TEMP_DIR"` (`GetTaskEnv("TEMP_DIR")`), or builds names from `TASK_` (then any
   * `TASK_…` may still be read).
   */
  const prefixedEnv = (value: string): boolean => {
    const parts = value.split('_');
    for (let k = 1; k < parts.length; k++) {
      const prefix = parts.slice(0, k).join('_');
      const rest = parts.slice(k).join('_');
      if (quotedCaps().has(`${prefix}_*`) || (rest.length >= 3 && quotedCaps().has(prefix) && quotedCaps().has(rest))) return true;
    }
    return false;
  };
  /**
   * Repository paths the code quotes (`"opts": "./test/mocha.opts"`): a default the program still
   * looks for, whether or not the repository has such a file.
   */
  const quotedPaths = codeScan(
    view,
    () => true,
    (text, into) => {
      for (const m of text.matchAll(/["'`](?:\.\/)?([\w@.-]+(?:\/[\w@.-]+)+)["'`]/g)) into.add(m[1] ?? '');
    },
    isProjectSource, // a test page's `<script src="lib/eslint.js">` is the test's leftover
  );
  const held = new Map<string, boolean>();
  const codeHolds = (word: string): boolean => {
    let hit = held.get(word);
    if (hit === undefined) {
      const re = new RegExp(`(?<![\\w$])${escapeRegExp(word)}(?![\\w$])`);
      hit = view.paths().some((p) => !isDocFile(p, view.file(p)?.language) && re.test(view.text(p) ?? ''));
      held.set(word, hit);
    }
    return hit;
  };
  /**
   * The last commits' diffs, read once: many mentions share a removing commit (a refactor that took
   * out a hundred options), and a large diff read and parsed per mention cost minutes (rclone).
   */
  const commitDiff = lastUsed(DIFFS_KEPT, (sha: string) => view.git.commitDiff(sha));
  let own: ReadonlySet<string> | undefined;
  const ownModules = (): ReadonlySet<string> => (own ??= new Set([...programs, ...python().top].map(normalModule)));
  /** Per doc: whether it reads as committed at HEAD (else blame would misplace its lines). */
  const atHead = new Map<string, Promise<boolean>>();
  /** Per doc: the commits that last changed the lines blamed so far. */
  const blamed = new Map<string, Map<number, string>>();
  /** Of `lines` of `doc`, those the commit `sha` did not write (unknown ones too). */
  const notWrittenBy = async (doc: string, lines: readonly number[], sha: string): Promise<Set<number>> => {
    let same = atHead.get(doc);
    if (same === undefined) {
      same = view.git.showAt('HEAD', doc).then((text) => text === view.text(doc));
      atHead.set(doc, same);
    }
    if (!(await same)) return new Set(lines);
    let known = blamed.get(doc);
    if (known === undefined) {
      // The first question about a doc blames every line any of its mentions sits on, at once.
      const all = [...new Set([...lines, ...siteLines(doc)])];
      known = await view.git.blame(doc, all.length > BLAME_RANGES ? 'all' : all);
      blamed.set(doc, known);
    }
    const ask = lines.filter((l) => !known.has(l));
    if (ask.length > 0) for (const [line, by] of await view.git.blame(doc, ask)) known.set(line, by);
    return new Set(lines.filter((line) => known.get(line) !== sha));
  };
  /**
   * Of `lines` of a release's frozen copy of the docs, those copied or written after the commit `sha`
   * (the copy was stale when made); a line older than the removal is right for its release. Unknown
   * lines are kept only when git cannot say at all.
   */
  const writtenAfter = async (doc: string, lines: readonly number[], sha: string): Promise<Set<number>> => {
    const unknown = await notWrittenBy(doc, lines, sha);
    const known = blamed.get(doc);
    if (known === undefined) return unknown;
    const after = new Map<string, Promise<boolean>>(); // one git call per blamed commit, not per line
    const out = new Set<number>();
    for (const line of unknown) {
      const by = known.get(line);
      if (by === undefined) continue;
      if (!after.has(by)) after.set(by, view.git.isAncestor(sha, by));
      if (await after.get(by)) out.add(line);
    }
    return out;
  };
  /**
   * A file's text as a commit left it (under its name then), read once per commit and file: a doc's
   * names share removing commits, and so do the code files they were removed from.
   */
  const fileAtKey = lastUsed(FILES_AT_KEPT, (key: string) => {
    const [sha = '', file = ''] = key.split('\0');
    return view.git.showAt(sha, file).then(async (text) => text ?? view.git.showAt(sha, await view.git.nameAt(sha, file)));
  });
  const fileAt = (sha: string, file: string): Promise<string | undefined> => fileAtKey(`${sha}\0${file}`);
  /** Whether `doc`, as committed in `sha` (under its name then), names the group as it does now (any of its sites). */
  const docNamedAt = async (sha: string, doc: string, group: MentionGroup): Promise<boolean> => {
    const then = await fileAt(sha, doc);
    return then !== undefined && group.sites.some((site) => containsBounded(then, site.raw, group.kind));
  };
  let modules: PythonModules | undefined;
  const python = (): PythonModules => (modules ??= pythonModules(view.paths()));
  /** Whether one of `files`, as it was before `sha`, imported `name` from another project. */
  const importedBefore = async (sha: string, files: readonly FileDiff[], name: string): Promise<boolean> => {
    for (const f of files.slice(0, 3)) {
      const text = await fileAt(`${sha}^`, f.oldPath ?? f.path);
      if (text !== undefined && importedFromElsewhere(importLines(text.split('\n')), name, ownModules())) return true;
    }
    return false;
  };
  let folders: ReadonlySet<string> | undefined;
  /** The names of the folders that hold code (lowercase), read once. */
  const codeFolders = (): ReadonlySet<string> =>
    (folders ??= new Set(view.paths().filter((p) => !isDocFile(p, view.file(p)?.language)).flatMap((p) => p.toLowerCase().split('/').slice(0, -1))));
  const existsNow = (kind: MentionKind, value: string): boolean => {
    if (kind === 'path') return view.file(value) !== undefined || quotedPaths().has(value);
    if (kind === 'module_path') return (resolveDotted(view, python(), value, () => false)?.state ?? 'exists') === 'exists';
    if (kind === 'flag') {
      // A flag's word alone (`input`, `workers`) is in every program: only a flag-shaped use counts,
      // or, for a hyphenated flag, its camelCase / snake_case option name.
      const needle = needleOf(kind, value);
      // A replacement is not among the docs' flags: look for it on its own (rare, so not kept).
      const flagged = flagNeedles.has(needle) ? flagWords().has(needle) : view.paths().some((p) => !isDocFile(p, view.file(p)?.language) && flagUseRegExp(needle).test(view.text(p) ?? ''));
      if (flagged || derivedFlags().has(needle)) return true;
      if (!needle.includes('-')) return false;
      const w = codeWords();
      return needleForms(kind, value).slice(1).some((form) => w.has(form));
    }
    if (kind === 'identifier' && view.definers(value).some((p) => !isDocFile(p))) return true;
    // `Lexer` beside a `lexer/` package of the code: the doc names the package, which is still there.
    if (kind === 'identifier' && /^[A-Z][a-z]{2,}$/.test(value) && codeFolders().has(value.toLowerCase())) return true;
    const forms = needleForms(kind, value);
    // A replacement name is not among the docs' words: look for it on its own (rare, so not kept).
    const whole = forms.some((form) => needles.has(form)) ? forms.some((form) => codeWords().has(form)) : forms.some((form) => codeHolds(form));
    return whole || (kind === 'env' && prefixedEnv(value));
  };

  return {
    existsNow,
    async dottedWord(value) {
      const history = await view.git.history();
      const found = resolveDotted(view, python(), value, (file) => history.lastTouch(file) !== undefined);
      return found?.state === 'missing_attribute' ? found.attribute : undefined;
    },
    async prepare(words) {
      const code = view.paths().filter((p) => !isDocFile(p, view.file(p)?.language));
      removals = await view.git.removals(words, codePathspecs(code));
    },
    removing: (word) => removals.removing(word),
    deleting: (path) => removals.deleting(path),
    async nameRemoval(group, doc) {
      const needle = needleOf(group.kind, group.value);
      if (needle.length < 3) return undefined;
      // Names and flags live in program code: a settings file (`tsconfig.json`, a JSON list of
      // `npm install --legacy-peer-deps`) that drops one configured another tool.
      const program = group.kind === 'identifier' || group.kind === 'flag';
      // `--no-firewall` is often generated from `firewall` (a negatable option): removing that removes both.
      const base = negatedBase(group.kind, needle);
      // While `--firewall` exists, a parser may well still generate `--no-firewall` from it.
      if (base !== undefined && existsNow('flag', `--${base}`)) return undefined;
      // Commits whose removed lines hold the word (read once per cycle for every missing word), newest first.
      for (const commit of newestFirst([removals.removing(removalKey(group.kind, needle)), base === undefined ? [] : removals.removing(removalKey(group.kind, base))]).slice(0, PICKAXE_LIMIT)) {
        const diff = await commitDiff(commit.sha);
        const files = diff.filter((f) => isOwnCode(f.oldPath ?? f.path) && isOwnCode(f.path) && (!program || !isSettingsFile(f.path)));
        const own = netRemovals(files, needle, group.kind);
        // The base went: the negation with it (and no certain replacement for the `no-` form).
        const viaBase = own.length === 0 && base !== undefined;
        const removedFrom = viaBase ? netRemovals(files, base, group.kind) : own;
        const first = removedFrom[0];
        if (first === undefined) continue; // this commit added or moved it; an older one may have removed it
        // A commit that only stopped using the name did not remove it: an older one may have taken its
        // definition out. A name the project only ever used (`os.getenv`, `GraphQLApp` imported from
        // starlette) is another project's: it still exists there, and docs that show it may be right.
        if (group.kind === 'identifier' && !definedIn(removedFrom, needle)) continue;
        // A runtime's global declared in a copy of its typings (`declare var localStorage: Storage;` in
        // remix's `deno.d.ts`) is the runtime's, which still has it.
        if (group.kind === 'identifier' && ambientGlobal(removedFrom, needle)) return undefined;
        // The code had imported it from another project (`from logging.config import fileConfig`, then
        // a `fileConfig=fileConfig` parameter): a doc naming it names that project's, which still exists.
        if (group.kind === 'identifier' && importedFromElsewhere(importLines(codeAround(files)), needle, ownModules())) return undefined;
        // `Colors` → `COLORS`: the reader still finds it.
        if (group.kind === 'identifier' && recased(removedFrom, needle)) return undefined;
        // The import check again when the statement opens above what the diff shows (`import {` thirty
        // lines up, the name one of its members): read from the files as they were (git, so after the diff-only checks).
        if (group.kind === 'identifier' && (await importedBefore(commit.sha, removedFrom, needle))) return undefined;
        // The doc must have named it right after the code stopped having it: a mention written later
        // was written against code without it (another project's name, a plan), not left behind.
        if (!(await docNamedAt(commit.sha, doc, group))) return undefined;
        const indirect = indirectName(group.kind, removedFrom, viaBase ? (base as string) : needle, programs) ?? (group.kind === 'env' ? newDependency(diff) : handedOver(group.kind, commit.subject, diff, programs));
        // A swapped word in a line that never declared the flag is another program's option changing.
        const swapped = viaBase || indirect !== undefined ? undefined : singleReplacement(files, needle, group.kind);
        // A commit that says it removed the name put nothing in its place, whatever word now stands where it stood.
        const replacement = swapped !== undefined && saysRemoved(commit.subject, needle, swapped, group.kind) ? undefined : swapped;
        const renamedTo = replacement !== undefined && existsNow(group.kind, renamedValue(group.kind, group.value, replacement)) ? replacement : undefined;
        return withCurrent(view, { commit: redacted(view, commit), file: first.oldPath ?? first.path, ...(renamedTo !== undefined ? { renamedTo } : {}), ...(indirect !== undefined ? { indirect } : {}) }, first);
      }
      return undefined;
    },
    async pathRemoval(group, doc) {
      const value = group.value;
      if (!view.policy.inScope(value)) return undefined; // out of scope: never flagged
      const history = await view.git.history();
      // From the indexes read once per cycle: a `git log -- path` per link walks the whole history
      // for a path that never existed (fastapi's docs link hundreds of example files).
      // The newest commit to touch it, else the newest to delete it. The newest touch may be an edit on a
      // branch whose merge dropped the file (fastify's v2 fixes merged into `next`, which had deleted
      // `test/types/index.ts`): then the deletion is the one to cite.
      let taken: { commit: CommitRef; files: FileDiff[]; change: FileDiff } | undefined;
      for (const commit of new Map([history.lastTouch(value), removals.deleting(value)].flatMap((c) => (c === undefined ? [] : [[c.sha, c] as const]))).values()) {
        const files = await commitDiff(commit.sha);
        const change = files.find((f) => f.oldPath === value || (f.path === value && f.status === 'deleted'));
        if (change !== undefined) {
          taken = { commit, files, change };
          break;
        }
      }
      if (taken === undefined || !(await docNamedAt(taken.commit.sha, doc, group))) return undefined;
      const { commit, files, change } = taken;
      // Generated files a commit took out of the repository ("Remove generated docs from repo", "docs:
      // remove generated md files") are the docs build's now: a link to one resolves in the built site
      // (mathjs's and vue-router's API reference pages).
      if (change.status === 'deleted' && GENERATED.test(commit.subject)) return undefined;
      // A file added beside the new one in the same commit may have taken part of it (attrs split
      // `tests/typing_example.py` into two examples files): the move is then no certain replacement.
      const split = files.some((f) => f.status === 'added' && f !== change && path.posix.dirname(f.path) === path.posix.dirname(change.path) && path.posix.extname(f.path) === path.posix.extname(change.path));
      const moved = change.status === 'renamed' && !split && view.file(change.path) !== undefined ? change.path : undefined;
      // A link to a deleted file is broken for every reader; a path in prose may be one in the user's
      // project (`docs/.vitepress/config.ts`, `.changeset/pre.json`) that the repository also had.
      const indirect = moved === undefined && !group.sites.some((s) => s.link === true) && !isProgramFile(value) ? 'the doc names the deleted file in prose, not in a link' : undefined;
      return withCurrent(view, { commit: redacted(view, commit), file: value, ...(moved !== undefined ? { renamedTo: moved } : {}), ...(indirect !== undefined ? { indirect } : {}) }, change);
    },
    isOwnDotted: (value) => python().top.has(value.split('.')[0] ?? ''),
    ownModules,
    async leftBehind(group, doc, removal, snapshot = false) {
      const asked = [...new Set(group.sites.map((s) => s.line))];
      const lines = snapshot ? await writtenAfter(doc, asked, removal.commit.sha) : await notWrittenBy(doc, asked, removal.commit.sha);
      const kept = group.sites.filter((s) => lines.has(s.line));
      if (kept.length === 0) return undefined;
      return kept.length === group.sites.length ? group : { ...group, sites: kept };
    },
    async dottedRemoval(group, doc) {
      const history = await view.git.history();
      const found = resolveDotted(view, python(), group.value, (file) => history.lastTouch(file) !== undefined);
      if (found === undefined || found.state === 'exists') return undefined;
      const resolves = (dotted: string): boolean => resolveDotted(view, python(), dotted, () => false)?.state === 'exists';
      if (found.state === 'missing_module') {
        for (const file of found.paths) {
          const commit = history.lastTouch(file);
          if (commit === undefined) continue;
          const change = (await commitDiff(commit.sha)).find((f) => f.oldPath === file || (f.path === file && f.status === 'deleted'));
          if (change === undefined) continue;
          if (!(await docNamedAt(commit.sha, doc, group))) return undefined;
          // A moved module keeps its names: the new dotted path is certain when it resolves now.
          const movedTo = change.status === 'renamed' ? python().nameOf(change.path) : undefined;
          const renamed = movedTo !== undefined ? `${movedTo}${group.value.slice(found.module.length)}` : undefined;
          const renamedTo = renamed !== undefined && resolves(renamed) ? renamed : undefined;
          return withCurrent(view, { commit: redacted(view, commit), file, ...(renamedTo !== undefined ? { renamedTo } : {}) }, change);
        }
        return undefined;
      }
      const { attribute, module, file } = found;
      const rest = group.value.slice(module.length + 1 + attribute.length);
      for (const commit of removals.removing(attribute).slice(0, PICKAXE_LIMIT)) {
        const files = await commitDiff(commit.sha);
        const here = files.find((f) => f.path === file || f.oldPath === file);
        if (here === undefined || netRemovals([here], attribute, 'identifier').length === 0) continue;
        if (!(await docNamedAt(commit.sha, doc, group))) return undefined;
        // Renamed in the module, or moved to exactly one other module in the same commit.
        const sameFile = singleReplacement([here], attribute, 'identifier');
        const definedIn = files.filter((f) => f !== here && f.path.endsWith('.py') && f.hunks.some((h) => h.lines.some((l) => definitionLine(attribute).test(l))));
        const movedTo = definedIn.length === 1 && definedIn[0] !== undefined ? python().nameOf(definedIn[0].path) : undefined;
        const renamed = sameFile !== undefined ? `${module}.${sameFile}${rest}` : movedTo !== undefined ? `${movedTo}.${attribute}${rest}` : undefined;
        const renamedTo = renamed !== undefined && resolves(renamed) ? renamed : undefined;
        return withCurrent(view, { commit: redacted(view, commit), file, ...(renamedTo !== undefined ? { renamedTo } : {}) }, here);
      }
      return undefined;
    },
  };
}

/**
 * A set built on first use by one pass over the texts of the indexed code (non-doc) files; empty,
 * and no file read, when `wanted()` says there is nothing to look for (asked then: the callers'
 * needles fill up after the facts are made).
 */
function codeScan(view: RepositoryView, wanted: () => boolean, collect: (text: string, into: Set<string>) => void, only: (file: string) => boolean = () => true): () => Set<string> {
  let found: Set<string> | undefined;
  return () => {
    if (found !== undefined) return found;
    found = new Set();
    if (!wanted()) return found;
    for (const p of view.paths()) if (!isDocFile(p, view.file(p)?.language) && only(p)) collect(view.text(p) ?? '', found);
    return found;
  };
}

/**
 * CI and tooling configuration: it runs the project, it does not define it. A flag or variable a CI
 * script stopped passing still exists in the code it passed it to (or never came from it).
 */
const CI_CONFIG = /^(?:\.github|\.circleci|\.buildkite|\.azure-pipelines|\.gitlab)\/|^(?:\.?appveyor\.ya?ml|\.travis\.ya?ml|\.gitlab-ci\.ya?ml|azure-pipelines\.ya?ml|\.drone\.ya?ml|Jenkinsfile|codecov\.ya?ml|\.pre-commit-config\.ya?ml)$/;

/** Whether a change to `file` can take a name out of the code: not a doc, not CI configuration. */
function isCodeChange(file: string): boolean {
  return !isDocFile(file) && !CI_CONFIG.test(file);
}

/**
 * Whether a change to `file` can take the project's own name out: code, not a doc or CI configuration,
 * nor a test, snapshot, fixture or example (a snapshot of another tool's help, an example's use of a
 * dependency).
 */
function isOwnCode(file: string): boolean {
  return isCodeChange(file) && isProjectSource(file);
}

/**
 * Data and settings files, tools' rc files (`.yaspellerrc`, `.eslintrc.js`) and `*.config.js`: they
 * configure tools, they do not define the project's names or flags.
 */
const SETTINGS_FILE = /\.(?:json|jsonc|json5|ya?ml|toml|ini|cfg|conf|lock|properties|xml|plist)$|(?:^|\/)\.[\w.-]*rc(?:\.[cm]?[jt]s)?$|\.config\.[cm]?[jt]s$/i;

function isSettingsFile(file: string): boolean {
  return SETTINGS_FILE.test(file);
}

/** What may stand before a member's name at the start of its line (`export`, `pub`, `static`, `self.`…). */
const MODIFIERS = '(?:(?:export|default|pub(?:\\([^)]*\\))?|public|private|protected|internal|static|readonly|abstract|override|async|get|set|declare|final|self\\.|this\\.|cls\\.|@)\\s*)*';

/** Source files of a program (scripts, modules, tests), outside dot-folders and not named config. */
const PROGRAM_FILE = /\.(?:py|pyi|js|mjs|cjs|ts|mts|cts|jsx|tsx|go|rs|rb|sh|bash|zsh|ps1|php|java|kt|c|h|cc|cpp|hpp|cs|swift|lua|pl)$/;

/** The entry file every project of its kind has (`src/index.ts`, `main.go`, `src/lib.rs`, `app.py`). */
const ENTRY_FILE = /^(?:src\/)?(?:index|main|app|lib)\.[a-z]+$/;

/**
 * Whether a deleted file named in prose is the project's own program file (`scripts/format-imports.sh`,
 * `tests/typing_example.py`): a contributor guide pointing at it is stale. A path under a dot-folder
 * or named `config` (`docs/.vitepress/config.ts`, `.changeset/pre.json`) is as often the user's own,
 * and so is an entry file every project has (TypeDoc's option docs show the reader's `src/index.ts`).
 */
function isProgramFile(file: string): boolean {
  const parts = file.split('/');
  const name = parts[parts.length - 1] ?? '';
  return PROGRAM_FILE.test(name) && !parts.some((p) => p.startsWith('.')) && !/^config\./i.test(name) && !isSettingsFile(file) && !ENTRY_FILE.test(file);
}

/**
 * Why a removed flag or variable is only indirect evidence, or undefined when the removed lines
 * declare the flag or read the variable. A line that passes `--column` to `rg`, sets
 * `RUST_BACKTRACE=1` for a recipe or shows `vlc --file-caching` in a help text changes what the
 * project does with another program, not an option of its own.
 */
export function indirectName(kind: MentionKind, files: readonly FileDiff[], needle: string, programs: ReadonlySet<string> = new Set()): string | undefined {
  if (kind === 'flag') return declaresFlag(files, needle, programs) ? undefined : 'the commit passed the flag on, it did not declare it';
  if (kind === 'env') return readsEnv(files, needle) ? undefined : 'the commit set or passed the variable, it did not read it';
  return undefined;
}

/** A commit subject that says the files it touched were generated. */
const GENERATED = /\b(?:auto-?)?generated\b/i;

/** Manifests that list a project's dependencies. */
const DEPENDENCY_MANIFEST = /(?:^|\/)(?:package\.json|Cargo\.toml|go\.mod|pyproject\.toml|setup\.py|setup\.cfg|Pipfile|Gemfile|requirements[\w.-]*\.(?:txt|in))$/;

/** Package names on a manifest line: `"cli-log": "^1"`, `cli-log = "0.1"`, `golang.org/x/term v0.1`, `"python-discovery>=1",`, `rich>=13`. */
const DEPENDENCY_LINE = [
  /^\s*"(@?[\w.-]+(?:\/[\w.-]+)?)"\s*:\s*"(?:[\^~<>=*\d]|workspace:|npm:)/,
  /^\s*([A-Za-z][\w-]*)\s*=\s*(?:"[\^~<>=*\d]|\{)/,
  /^\s*(?:require\s+)?([\w-]+(?:\.[\w-]+)+\/[\w./-]+)\s+v\d/,
  /^\s*["']([A-Za-z][\w.-]*)(?:\[[^\]]*\])?\s*[<>=~!][^"']*["']\s*,?\s*$/, // a version spec: not `"schema",` of an exclude list
];
/** A requirements file's line: `rich>=13`, `click`. */
const REQUIREMENT_LINE = /^([A-Za-z][\w.-]*)(?:\[[^\]]*\])?\s*(?:[<>=~!;]|$)/;
/** Manifest keys that look like `name = "1.2"` and are no dependency. */
const MANIFEST_FIELDS = new Set(['version', 'rust-version', 'edition', 'name', 'description', 'license', 'readme', 'python', 'requires-python', 'go', 'toolchain', 'main', 'types', 'node']);

/**
 * Why a commit that added a dependency is only indirect evidence for a variable it stopped reading:
 * the new package may read it now (virtualenv's `PYENV_VERSION` went to python-discovery, broot's
 * `BROOT_LOG` to cli-log). Not for flags: a program's own flags stay its own when it swaps its web
 * server (mdBook's `--websocket-hostname` went with iron for warp). Undefined when no manifest that
 * existed before gained a package.
 */
export function newDependency(files: readonly FileDiff[]): string | undefined {
  const added = addedDependencies(files);
  return added.length > 0 ? `the commit added a dependency (${added.slice(0, 2).join(', ')}) that may provide it now` : undefined;
}

/**
 * Why a commit that moved code into a package it now depends on is only indirect evidence for a name
 * or flag it took out: the package may provide it still. The subject must say so by naming the new
 * dependency ("Replace inline CLI code with gulp-cli dependency", "Replaced execute preprocessor
 * internals with nbclient", "Use josepy instead of acme.jose"); for a flag, the package must also
 * carry one of the project's command names (gulp-cli): a CLI that swaps its web server keeps its
 * flags (mdBook's iron for warp).
 */
export function handedOver(kind: MentionKind, subject: string, files: readonly FileDiff[], programs: ReadonlySet<string>): string | undefined {
  if (kind !== 'identifier' && kind !== 'flag') return undefined;
  const said = subject.toLowerCase();
  const named = addedDependencies(files).filter((dep) => {
    const bare = dep.replace(/^@[^/]+\//, '');
    if (!new RegExp(`(?<![\\w-])${escapeRegExp(bare)}(?![\\w-])`).test(said)) return false;
    return kind === 'identifier' || [...programs].some((p) => p.length >= 3 && bare !== p && bare.split(/[-_.]/).includes(p));
  });
  return named.length > 0 ? `the commit handed the code to a new dependency (${named[0] as string}) that may still provide it` : undefined;
}

/** Packages the commit added to a manifest that existed before it (lowercase, `_` as `-`). */
function addedDependencies(files: readonly FileDiff[]): string[] {
  const names = (sign: string): Set<string> => {
    const out = new Set<string>();
    for (const f of files) {
      // A manifest the commit created (a move to pyproject.toml, a monorepo's new packages) lists old packages as new.
      if (!DEPENDENCY_MANIFEST.test(f.path) || f.status === 'added') continue;
      const shapes = /requirements[\w.-]*\.(?:txt|in)$/.test(f.path) ? [REQUIREMENT_LINE] : DEPENDENCY_LINE;
      for (const l of f.hunks.flatMap((h) => h.lines)) {
        if (!l.startsWith(sign)) continue;
        const name = shapes.map((re) => re.exec(l.slice(1))?.[1]).find((n) => n !== undefined);
        if (name !== undefined && !MANIFEST_FIELDS.has(name.toLowerCase())) out.add(name.toLowerCase().replace(/_/g, '-'));
      }
    }
    return out;
  };
  const removed = names('-');
  return [...names('+')].filter((n) => !removed.has(n));
}

/** Per file of a diff, its removed lines (sign dropped): code only, and with comments; read once. */
const removedOf = new WeakMap<FileDiff, { code: string[]; all: string[] }>();

/** The removed lines of these files, sign dropped; comment lines only when asked for. */
function removedLines(files: readonly FileDiff[], comments = false): string[] {
  return files.flatMap((f) => {
    let lines = removedOf.get(f);
    if (lines === undefined) {
      const all = f.hunks.flatMap((h) => h.lines.filter((l) => l.startsWith('-')).map((l) => l.slice(1)));
      lines = { all, code: all.filter((l) => !COMMENT_LINE.test(l)) };
      removedOf.set(f, lines);
    }
    return comments ? lines.all : lines.code;
  });
}

/**
 * Stems of option parsers' declaring and reading calls (argparse, click, commander, yargs, cobra, clap,
 * getopts, urfave/cli): `add_argument`, `option`, `opt_present`, `Flags`, `BoolVarP`, `long`, `Arg`…
 */
const FLAG_API = /\b(?:add_argument|add_option|opt|Opt|arg|Arg|flag|Flag|long|short|Var|BoolVar|StringVar|IntVar|Bool|String|Int|Duration|StringSlice|StringArray|command|switch)/;

/**
 * Whether some removed line declares the flag `--needle`: the flag alone in a string (`'--dry'`,
 * `"-d, --dry <path>"`), its bare name quoted in a parser's call or option table (`.long("dry")`,
 * `BoolVar(&x, "dry", …)`, `opt_present("dry")`, `name: 'dry'`, `'dry-run': …`, a hyphenated name
 * alone in a list), a field or parameter its parser derives it from (`dry_run: bool`, `dryRun:
 * boolean`), or the project's own usage line (`"usage: caddy adapt --input <file>"`).
 */
export function declaresFlag(files: readonly FileDiff[], needle: string, programs: ReadonlySet<string> = new Set()): boolean {
  const n = escapeRegExp(needle);
  const alone = new RegExp(flagString(n, true));
  const quoted = new RegExp(`["'\`]${n}["'\`]`);
  const tabled = new RegExp(`(?:\\b[Nn]ame\\s*[:=]\\s*["'\`]${n}["'\`]|["'\`]${n}["'\`]\\s*:)`);
  const listed = needle.includes('-') ? new RegExp(`^\\s*["'\`]${n}["'\`],?\\s*$`) : undefined;
  const usage = [...programs].map((p) => new RegExp(`(?<![\\w./-])${escapeRegExp(p)}\\b[^"'\`\\n]*?\\s--${n}(?![\\w-])`));
  const forms = [...new Set([needle.replace(/-/g, '_'), camel(needle)])];
  const fields = forms.flatMap((form) => definitionShapes(form));
  // Each pattern holds the flag's name or a field's whole: a line without any of them matches none, and
  // a file whose removed lines never hold one (most of a release commit that regenerates a manual) is
  // not read line by line. The word counts hold hyphenated runs of up to 6 words; longer names fall
  // back to their longest word.
  const names = [needle, ...forms];
  const counted = needle.split('-').length <= 6 ? names : [...new Set(names.map(longestWord))].filter((k) => k !== '');
  const holding = files.filter((f) => counted.some((k) => wordsOf(f, '-').words.has(k)));
  return removedLines(holding).some(
    (l) =>
      names.some((k) => l.includes(k)) &&
      (alone.test(l) || (quoted.test(l) && FLAG_API.test(l)) || tabled.test(l) || listed?.test(l) === true || usage.some((re) => re.test(l)) || fields.some((re) => re.test(l))),
  );
}

/**
 * Whether some removed line reads the variable: its name at the start of a string (`getenv("X")`,
 * `env::var("X")`, `environ["X"]`, a struct tag `env:"X,notEmpty"`, a constant holding it),
 * `process.env.X`, or a shell expansion (`$X`, `${X…}`); not `X=1` set for another program.
 */
export function readsEnv(files: readonly FileDiff[], needle: string): boolean {
  const n = escapeRegExp(needle);
  const shapes = [new RegExp(`["'\`]${n}(?![\\w$])`), new RegExp(`\\benv\\.${n}(?![\\w$])`), new RegExp(`\\$\\{?${n}(?![\\w])`)];
  return removedLines(files).some((l) => shapes.some((re) => re.test(l)));
}

/** The code a diff shows as it was before the change: its removed and context lines. */
function codeAround(files: readonly FileDiff[]): string[] {
  return files.flatMap((f) => f.hunks.flatMap((h) => h.lines.filter((l) => !l.startsWith('+')).map((l) => l.slice(1))));
}

/**
 * Whether some removed line of these files defines `name` rather than uses it: a declaration
 * (`def`, `class`, `function`, `fn`, `type`, `const`…, a Go method), a member, field, key or
 * assignment at the start of its line (`name(args) {`, `name: …`, `self.name = …`, `Name string`;
 * a call such as `name();` is a use), an enum variant, an export (`export { name }`, `pub use`,
 * `__all__`), or a parameter of a `def`. A Python keyword argument of a call (`package_data=…` in
 * `setup(`) is a use: the name belongs to the function called, often another project's.
 */
export function definedIn(files: readonly FileDiff[], name: string): boolean {
  const shapes = definitionShapes(name);
  return files.some((f) => {
    const python = /\.pyi?$/.test(f.path);
    return f.hunks.some((h) => h.lines.some((l, i) => l.startsWith('-') && shapes.some((re) => re.test(l.slice(1))) && !(python && keywordArgument(h.lines, i, name))));
  });
}

/**
 * Whether a commit's subject says it removed `needle` ("Remove deprecated macros: inline_props,
 * format_args_f!", "drop --bar"), and says nothing of the word now in its place (`swapped`: "Remove X
 * in favour of Y"), a rename or a move ("Rename parseConfig, drop legacy mode" renamed it).
 */
export function saysRemoved(subject: string, needle: string, swapped: string, kind: MentionKind): boolean {
  return (
    /\b(?:remov|delet|drop)/i.test(subject) &&
    !/\b(?:renam|replac|mov(?:e|ed|es|ing)\b)|->|→/i.test(subject) &&
    containsBounded(subject, needle, kind) &&
    !containsBounded(subject, swapped, kind)
  );
}

/**
 * Whether `name` went only from type declaration files (`.d.ts`) that declared it as a global of the
 * runtime (`declare var name: T`, not exported): typings of a platform the project ran on.
 */
export function ambientGlobal(files: readonly FileDiff[], name: string): boolean {
  const ambient = new RegExp(`^-\\s*declare\\s+(?:var|let|const)\\s+${escapeRegExp(name)}(?![\\w$])`);
  return files.every((f) => f.path.endsWith('.d.ts')) && files.some((f) => f.hunks.some((h) => h.lines.some((l) => ambient.test(l))));
}

/**
 * Whether the diff line at `index` passes `name=` to a call: indented `name=` (no spaces, as
 * keyword arguments are written) whose nearest unclosed `(` above, in the lines before the change,
 * opens a call rather than a `def`'s parameters. Unknown (no opener in the hunk): no.
 */
function keywordArgument(lines: readonly string[], index: number, name: string): boolean {
  if (!new RegExp(`^\\s+${escapeRegExp(name)}=(?!=)`).test(lines[index]?.slice(1) ?? '')) return false;
  let depth = 0;
  for (let j = index - 1; j >= 0; j--) {
    const line = lines[j] ?? '';
    if (line.startsWith('+')) continue;
    const text = line.slice(1);
    for (let k = text.length - 1; k >= 0; k--) {
      if (text[k] === ')') depth++;
      if (text[k] !== '(') continue;
      if (depth > 0) {
        depth--;
        continue;
      }
      // The opener: a call when a name or a closing bracket precedes it, and that is no `def name`.
      const before = text.slice(0, k);
      return /[\w\])]\s*$/.test(before) && !/\bdef\s+\w+\s*$/.test(before);
    }
  }
  return false;
}

/**
 * Whether a doc's own example code declares `name`: `def name`, `class name`, `fn name`, `const name`…,
 * a Go method, or a typed field (`name: Union[bool, None] = None`, `pub name: String,`). Then the
 * doc's prose about `name` is about its example, not the project's code. Assignments and keyword
 * arguments (`allow_population_by_alias = True`) set the project's options and do not count.
 */
export function exampleDeclares(lines: readonly string[], name: string): boolean {
  const n = escapeRegExp(name);
  const [keyword, goMethod] = definitionShapes(name);
  const TYPES = '[A-Z][\\w.]*|bool|int|str|float|bytes|string|number|boolean|list|dict|tuple|set|u8|u16|u32|u64|usize|i8|i16|i32|i64|f32|f64';
  const typedField = new RegExp(`^\\s*(?:pub(?:\\([^)]*\\))?\\s+|readonly\\s+)?${n}\\??\\s*:\\s*(?:${TYPES})\\b`);
  return lines.some((l) => keyword?.test(l) === true || goMethod?.test(l) === true || typedField.test(l));
}

/**
 * Whether a doc's own example code declares the flag `--name`: a call given it as a string
 * (`StringVar(&author, "author", …)`, `add_argument('--author')`, `.option("-a, --author <name>")`).
 * Then the doc's prose about `--name` is about its example program, not the project's CLI.
 */
export function exampleDeclaresFlag(lines: readonly string[], flag: string): boolean {
  const declared = new RegExp(`\\(\\s*(?:[^()]*,\\s*)?${flagString(escapeRegExp(flag.replace(/^--/, '')), false)}`);
  return lines.some((l) => declared.test(l));
}

/**
 * clap, structopt and argh attributes on a field (`#[arg(short, long)]`, `#[clap(long, value_parser)]`
 * over several lines, `#[argh(switch)]`), then the field after any further attributes and doc comments.
 */
const DERIVE_FIELD = /#\[(clap|arg|structopt|argh)\(((?:[^()"]|"(?:[^"\\]|\\.)*"|\([^()]*\))*)\)\](?:\s|#\[[^\]]*\]|\/\/[^\n]*)*(?:pub(?:\([^)]*\))?\s+)?(?:r#)?([a-z_][a-z0-9_]*)\s*:(?!:)/g;

/**
 * The flags clap-style derives make of struct fields: `--field-name` for a field whose attribute says
 * `long` without naming it (a named one, `long = "x"`, is a quoted string the flag scan finds), and
 * for argh's `option` and `switch`.
 */
export function derivedRustFlags(text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(DERIVE_FIELD)) {
    const [, crate = '', args = '', field = ''] = m;
    const derives = crate === 'argh' ? /\b(?:option|switch)\b/.test(args) : /\blong\b(?!\s*=)/.test(args);
    if (derives) out.push(field.replace(/_/g, '-'));
  }
  return out;
}

/**
 * Whether a doc uses `name` as its own shell variable: it both assigns it (`NAME="cargo-deny"`,
 * `export BINARY=…`, a justfile's `export WORLD := "x"`, a loop's `for SEED in …`) and expands it (`$NAME`, `${BINARY}`). A download script's `$VERSION` is the
 * example's, not a variable the project reads.
 */
export function docOwnVariable(text: string, name: string): boolean {
  const n = escapeRegExp(name);
  const assigned = new RegExp(`(?<![\\w$.-])${n}\\s*:?=(?!=)|\\bfor\\s+${n}\\s+in\\b`).test(text);
  return assigned && new RegExp(`\\$\\{?${n}(?![\\w])`).test(text);
}

/**
 * A string that declares the flag named by the pattern `name`: `'--dry'`, `"-d, --dry <path>"`,
 * `"-d | --dry=MODE"`; with `dashes` false the bare name counts too (`"dry"` in a parser call).
 */
function flagString(name: string, dashes: boolean): string {
  return `["'\`](?:-\\w\\s*[,|]\\s*)?${dashes ? '--' : '(?:--)?'}${name}(?:[\\s=<\\[,|][^"'\`]*)?["'\`]`;
}

function definitionShapes(name: string): RegExp[] {
  const n = escapeRegExp(name);
  return [
    new RegExp(`\\b(?:function|class|def|const|let|var|interface|type|enum|fn|func|struct|trait|mod|module|macro_rules!|static|val|object|record|namespace|union|typedef|alias)\\s+\\*?\\s*${n}(?![\\w$])`),
    new RegExp(`\\bfunc\\s*\\([^)]*\\)\\s*${n}(?![\\w$])`),
    new RegExp(`^\\s*${MODIFIERS}["'\`]?${n}["'\`]?\\??\\s*(?:[:=,]|\\{|$|\\s+[\\w*\\[\\].]+\\s*(?:\`.*)?$)`),
    // A method (`name(args) {`, `name(args): T {`, parameters opening on the next lines) or a tuple variant (`Name(T),`); not a call (`name();`).
    new RegExp(`^\\s*${MODIFIERS}${n}\\s*(?:<[^>]*>)?\\((?:.*\\)\\s*(?::[^;]*)?\\{\\s*$|.*\\)\\s*,\\s*$|[^)]*$)`),
    new RegExp(`\\bexport\\s*\\{[^}]*(?<![\\w$])${n}(?![\\w$])|\\bpub\\s+use\\b.*(?<![\\w$])${n}(?![\\w$])|\\b(?:module\\.)?exports\\.${n}(?![\\w$])|__all__.*["']${n}["']`),
    new RegExp(`\\bdef\\s+\\w+\\s*\\(.*(?<![\\w$])${n}\\s*[:=,)]`),
  ];
}

/** An added line that defines `name` in Python (`def name`, `class name`, `name = …`). */
function definitionLine(name: string): RegExp {
  return new RegExp(`^\\+\\s*(?:(?:async\\s+)?def|class)\\s+${name}\\b|^\\+${name}\\s*[:=]`);
}

export function withCurrent(view: RepositoryView, removal: Removal, change: FileDiff): Removal {
  return change.status !== 'deleted' && view.file(change.path) !== undefined ? { ...removal, current: change.path } : removal;
}

/** What the removal index is asked for a mention's word: a flag's as `--name` (used as a flag), others as is. */
export function removalKey(kind: MentionKind, needle: string): string {
  return kind === 'flag' ? `--${needle}` : needle;
}

/** `firewall` for the flag `--no-firewall`; undefined for anything else. */
export function negatedBase(kind: MentionKind, needle: string): string | undefined {
  return kind === 'flag' && needle.startsWith('no-') && needle.length > 6 ? needle.slice(3) : undefined;
}

/** Commit lists merged, newest first, each commit once. */
function newestFirst(lists: ReadonlyArray<readonly CommitRef[]>): CommitRef[] {
  const bySha = new Map(lists.flat().map((c) => [c.sha, c]));
  return [...bySha.values()].sort((a, b) => b.time - a.time);
}

/** The forms a mention may take in code: as written, camelCase (`dry-run` → `dryRun`), snake_case. */
export function needleForms(kind: MentionKind, value: string): string[] {
  const needle = needleOf(kind, value);
  return [needle, camel(needle), needle.replace(/-/g, '_')];
}

/** The string git's pickaxe and the code's vocabulary are searched for. */
export function needleOf(kind: MentionKind, value: string): string {
  if (kind === 'module_path') return value.slice(value.lastIndexOf('.') + 1);
  if (kind === 'flag') return value.replace(/^--/, '');
  if (kind === 'config_key') return value.slice(value.lastIndexOf('.') + 1);
  return value;
}

/** `dry-run` → `dryRun` (a flag's name as a parser option often reads). */
export function camel(word: string): string {
  return word.replace(/[-_]([a-z0-9])/g, (_m, c: string) => c.toUpperCase());
}

/** Characters that continue a word of this kind (flags and keys are hyphenated). */
export function wordChars(kind: MentionKind): string {
  return kind === 'identifier' || kind === 'env' ? '\\w$' : '\\w$-';
}

/** `needle` as a whole word; a flag's name may follow its dashes (`--dry-run`) but not another word (`no-dry-run`). */
export function boundedRegExp(needle: string, kind: MentionKind, flags = ''): RegExp {
  const c = wordChars(kind);
  const escaped = escapeRegExp(needle);
  const before = kind === 'flag' || kind === 'config_key' ? '(?<![\\w$]|[\\w$]-)' : `(?<![${c}])`;
  return new RegExp(`${before}${escaped}(?![${c}])`, flags);
}

/** A flag-shaped use of `name` in code: `--name`, or the name quoted (`"name"`, `'name'`). */
export function flagUseRegExp(name: string): RegExp {
  const escaped = escapeRegExp(name);
  return new RegExp(`(?:--|["'\`])${escaped}(?![\\w$-])`, 'g');
}

export function containsBounded(text: string, needle: string, kind: MentionKind): boolean {
  return needle !== '' && boundedRegExp(needle, kind === 'path' ? 'flag' : kind).test(text);
}

/**
 * Whether the `+` lines of these files hold `name` in another case only (`Colors` → `COLORS`). Not
 * a flip of the first letter: in Go `BuildCompletionCommand` → `buildCompletionCommand` unexports it.
 */
function recased(files: readonly FileDiff[], name: string): boolean {
  const re = new RegExp(`(?<![\\w$])${escapeRegExp(name)}(?![\\w$])`, 'gi');
  return files.some((f) => f.hunks.some((h) => h.lines.some((l) => l.startsWith('+') && [...l.slice(1).matchAll(re)].some((m) => m[0].slice(1) !== name.slice(1)))));
}

/** A comment line (`// …`, `//! …`, `/* …`, ` * …`, `# …`, `<!-- …`); not `#[attr]`, `#include`, `#!`. */
const COMMENT_LINE = /^\s*(?:\/\/|\/\*|\*(?:\s|\/|$)|#(?:\s|#|$)|<!--)/;

/**
 * Files whose `-` lines drop more occurrences of `needle` than their `+` lines add, most first. A
 * mention in a comment counts only in a file whose code lines also drop the word: prose in a
 * crate's `//!` docs (an example flag `--myoption`) is documentation, while the doc comment of a
 * removed field (`/// --dry-run …` over `dry_run: bool`) goes with its code.
 */
export function netRemovals(files: readonly FileDiff[], needle: string, kind: MentionKind): FileDiff[] {
  const re = kind === 'flag' ? flagUseRegExp(needle) : boundedRegExp(needle, kind, 'g');
  const forms = needleForms(kind, kind === 'flag' ? `--${needle}` : needle).map((form) => boundedRegExp(form, 'identifier'));
  // A name or variable that is one word is matched exactly where a line's words are that word: its
  // uses are counted from each file's word counts, not by scanning its lines once per name.
  // Words, and words joined by hyphens, are counted once per file (wordsOf), so a needle of that
  // shape is looked up, not searched for line by line: a refactor's diff holds hundreds of the
  // docs' names (rclone's backend options), and scanning it once per name took minutes.
  const WORDS = /^[\w$]+(?:-[\w$]+)*$/;
  const wordForms = needleForms(kind, kind === 'flag' ? `--${needle}` : needle).filter((w, i, all) => all.indexOf(w) === i);
  const byWords = wordForms.every((w) => WORDS.test(w) && w.split('-').length <= 6);
  const codeDrops = (f: FileDiff): boolean =>
    byWords ? wordForms.some((w) => (wordsOf(f, '-').words.get(w)?.code ?? 0) > 0) : removedLines([f]).some((l) => forms.some((w) => w.test(l)));
  // Identifiers and variables are bounded by word characters: exactly the word's count. Flags are
  // counted where used as one (`--name`, quoted).
  const lookup = WORDS.test(needle) ? ((kind === 'identifier' || kind === 'env') && !needle.includes('-') ? 'words' : kind === 'flag' ? 'flags' : undefined) : undefined;
  // Every use the patterns match holds the needle's longest word whole: a file whose lines of that
  // sign lack it has none, and is not scanned line by line.
  const key = longestWord(needle);
  const count = (f: FileDiff, sign: '-' | '+'): number => {
    if (key !== '' && !wordsOf(f, sign).words.has(key)) return 0;
    const comments = codeDrops(f);
    if (lookup !== undefined) {
      const n = wordsOf(f, sign)[lookup].get(needle);
      return n === undefined ? 0 : comments ? n.all : n.code;
    }
    return f.hunks.reduce(
      (n, h) => n + h.lines.filter((l) => l.startsWith(sign) && (comments || !COMMENT_LINE.test(l.slice(1)))).reduce((k, l) => k + (l.slice(1).match(re)?.length ?? 0), 0),
      0,
    );
  };
  const net = files.map((f) => ({ f, removed: count(f, '-') }));
  const added = files.reduce((n, f) => n + count(f, '+'), 0);
  const removed = net.reduce((n, x) => n + x.removed, 0);
  if (removed <= added) return [];
  // The file that defined it is the one to cite, ahead of its importers and callers.
  const definition = new RegExp(`\\b(?:function|class|def|const|let|var|interface|type|enum|fn|func|struct|trait)\\s+\\*?\\s*${boundedRegExp(needle, kind).source}`);
  // Once per file, not per comparison of the sort: rclone's release commits touch hundreds of files.
  const defines = (f: FileDiff): number => (f.hunks.some((h) => h.lines.some((l) => l.startsWith('-') && l.includes(needle) && definition.test(l))) ? 1 : 0);
  const removing = net.filter((x) => x.removed > 0).map((x) => ({ ...x, defines: defines(x.f) }));
  return removing.sort((a, b) => b.defines - a.defines || b.removed - a.removed).map((x) => x.f);
}

/** `load`, remembering the answers for the `limit` keys asked for last (a read per key, not per question). */
function lastUsed<T>(limit: number, load: (key: string) => T): (key: string) => T {
  const kept = new Map<string, T>();
  return (key) => {
    const found = kept.has(key) ? (kept.get(key) as T) : load(key);
    kept.delete(key); // most recently used last
    kept.set(key, found);
    if (kept.size > limit) kept.delete(kept.keys().next().value as string);
    return found;
  };
}

/** The longest run of word characters (`[\w$]`) in `text`; empty when it has none. */
function longestWord(text: string): string {
  return (text.match(/[\w$]+/g) ?? []).reduce((a, b) => (b.length > a.length ? b : a), '');
}

/** How often a word occurs in a file's removed (or added) lines: in code lines, and in all lines. */
interface WordCount {
  code: number;
  all: number;
}

/** A file's words of one sign: each word and hyphenated run, and each name used as a flag. */
interface DiffWords {
  /** `[\w$]+` words, and every run of them joined by hyphens (`dry-run` in `--dry-run-mode` too). */
  words: Map<string, WordCount>;
  /** Names used as a flag (`--name`, `"name"`, `'name'`), counted as `flagUseRegExp` matches them. */
  flags: Map<string, WordCount>;
}

/** Per file of a diff, the words of its removed and of its added lines, counted once. */
const diffWords = new WeakMap<FileDiff, { '-': DiffWords; '+': DiffWords }>();

function bump(into: Map<string, WordCount>, word: string, code: boolean): void {
  const n = into.get(word) ?? { code: 0, all: 0 };
  n.all++;
  if (code) n.code++;
  into.set(word, n);
}

function wordsOf(file: FileDiff, sign: '-' | '+'): DiffWords {
  let counted = diffWords.get(file);
  if (counted === undefined) {
    counted = { '-': { words: new Map(), flags: new Map() }, '+': { words: new Map(), flags: new Map() } };
    for (const h of file.hunks) {
      for (const l of h.lines) {
        const into = l.startsWith('-') ? counted['-'] : l.startsWith('+') ? counted['+'] : undefined;
        if (into === undefined) continue;
        const line = l.slice(1);
        const code = !COMMENT_LINE.test(line);
        for (const [run] of line.matchAll(/[\w$]+(?:-[\w$]+)*/g)) {
          const parts = run.split('-');
          // Every stretch of the run's words: `a-b-c` holds `a`, `b`, `c`, `a-b`, `b-c`, `a-b-c`.
          for (let i = 0; i < parts.length; i++) for (let j = i + 1; j <= parts.length && j - i <= 6; j++) bump(into.words, parts.slice(i, j).join('-'), code);
        }
        for (const m of line.matchAll(/(?:--|["'`])([\w$]+(?:-[\w$]+)*)(?![\w$-])/g)) bump(into.flags, m[1] ?? '', code);
      }
    }
    diffWords.set(file, counted);
  }
  return counted[sign];
}

/**
 * The one name that replaced `needle` in the commit: each `-` line holding it is compared with each
 * `+` line of its hunk; a pair that differs only in that word (`export function parseConfig(` /
 * `export function loadConfig(`) names a replacement. More than one distinct replacement: none.
 */
export function singleReplacement(files: readonly FileDiff[], needle: string, kind: MentionKind): string | undefined {
  const re = boundedRegExp(needle, kind);
  // A name or key is renamed where it is defined (`def old(` / `def new(`); a use swapped for
  // another (`row = cursor_cell` / `row = coordinate`) may be any other name.
  const defined = kind === 'identifier' || kind === 'config_key';
  const defines = (line: string, name: string): boolean =>
    kind === 'config_key'
      ? new RegExp(`(?<![\\w$-])["'\`]?${escapeRegExp(name)}["'\`]?\\s*[:=]`).test(line) // a key: `name: 300`, `"name" =`
      : definitionShapes(name).some((shape) => shape.test(line));
  const found = new Set<string>();
  for (const hunk of files.flatMap((f) => f.hunks)) {
    const minus = hunk.lines.filter((l) => l.startsWith('-') && re.test(l.slice(1)) && !COMMENT_LINE.test(l.slice(1))).map((l) => l.slice(1));
    const plus = hunk.lines.filter((l) => l.startsWith('+') && !COMMENT_LINE.test(l.slice(1))).map((l) => l.slice(1));
    for (const m of minus) for (const p of plus) {
      const replaced = swappedWord(m, p, wordChars(kind));
      const [old, next] = [replaced?.old.replace(/^-+/, ''), replaced?.new.replace(/^-+/, '')];
      // A case flip is no rename a reader can follow (Go's `Build…` → `build…` unexports it).
      if (old !== needle || next === undefined || next === '' || next.toLowerCase() === needle.toLowerCase()) continue;
      // A public name's place taken by a private one (`Separator` → `_LineCache`) is no rename a doc can follow.
      if (next.startsWith('_') && !needle.startsWith('_')) continue;
      if (defined && !(defines(m, needle) && defines(p, next))) continue;
      found.add(next);
    }
  }
  return found.size === 1 ? [...found][0] : undefined;
}

/** When `a` and `b` differ in exactly one word, that word on each side. */
export function swappedWord(a: string, b: string, chars: string): { old: string; new: string } | undefined {
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
export function renamedValue(kind: MentionKind, value: string, replacement: string): string {
  if (kind === 'flag') return `--${replacement}`;
  if (kind === 'config_key') return `${value.slice(0, value.lastIndexOf('.') + 1)}${replacement}`;
  if (kind === 'module_path') return replacement; // the whole new dotted path
  return replacement;
}



export function redacted(view: RepositoryView, commit: CommitRef): CommitRef {
  const subject = redactText(commit.subject, view.policy.redactPatterns).replace(/[`\r\n]/g, "'");
  return { ...commit, subject: subject.length > MAX_SUBJECT_CHARS ? `${subject.slice(0, MAX_SUBJECT_CHARS - 1)}…` : subject };
}
