/**
 * The repository as the detectors see it: the index's files (in scope, redacted), a name → definers
 * table built once per view, the file graph and git history. One view serves one cycle; it reads
 * nothing outside the privacy scope because the index holds nothing else and git is asked only
 * for in-scope paths.
 */
import { createHash } from 'node:crypto';
import type { IndexedFileView, IndexReader, ScopePolicy } from '@sous/retrieval';
import { gitHistory, type GitHistory } from './git-history';

export interface RepositoryView {
  readonly root: string;
  readonly policy: ScopePolicy;
  /** HEAD when the index last read git signals; null without commits. */
  readonly head: string | null;
  readonly git: GitHistory;
  paths(): string[];
  file(path: string): IndexedFileView | undefined;
  /** Redacted text as indexed; undefined when not indexed. Never log it. */
  text(path: string): string | undefined;
  /** The text split into lines (no trailing empty line); cached for the view's life. */
  lines(path: string): readonly string[] | undefined;
  /** Indexed files that define `name` exactly (case-sensitive). */
  definers(name: string): readonly string[];
  /** Whether any indexed file defines `name`. */
  defines(name: string): boolean;
  importersOf(path: string): string[];
  coChangedWith(path: string): readonly string[];
}

const NONE: readonly string[] = [];

/** A view over `reader` under `policy`. Cheap to create; tables are built on first use. */
export function createRepositoryView(reader: IndexReader, policy: ScopePolicy): RepositoryView {
  let definersByName: Map<string, string[]> | undefined;
  const lineCache = new Map<string, readonly string[]>();
  const table = (): Map<string, string[]> => {
    if (definersByName !== undefined) return definersByName;
    definersByName = new Map();
    for (const path of reader.paths()) {
      for (const d of reader.file(path)?.definitions ?? []) {
        const list = definersByName.get(d.name);
        if (list === undefined) definersByName.set(d.name, [path]);
        else if (list[list.length - 1] !== path) list.push(path);
      }
    }
    return definersByName;
  };
  const text = (path: string): string | undefined => reader.text(path);
  return {
    root: reader.root,
    policy,
    head: reader.head(),
    git: memoized(gitHistory(reader.root, policy, text)),
    paths: () => reader.paths(),
    file: (path) => reader.file(path),
    text,
    lines(path) {
      const cached = lineCache.get(path);
      if (cached !== undefined) return cached;
      const t = reader.text(path);
      if (t === undefined) return undefined;
      const lines = t.split('\n');
      if (lines[lines.length - 1] === '') lines.pop();
      lineCache.set(path, lines);
      return lines;
    },
    definers: (name) => table().get(name) ?? NONE,
    defines: (name) => table().has(name),
    importersOf: (path) => reader.importersOf(path),
    coChangedWith: (path) => reader.coChangedWith(path),
  };
}

/**
 * The frontier and several detectors ask for the same uncommitted changes and latest commits within
 * one cycle; a view asks git once.
 */
function memoized(git: GitHistory): GitHistory {
  const cache = new Map<string, Promise<unknown>>();
  const once = <T>(key: string, fn: () => Promise<T>): Promise<T> => {
    let hit = cache.get(key) as Promise<T> | undefined;
    if (hit === undefined) {
      hit = fn();
      cache.set(key, hit);
      hit.catch(() => cache.delete(key));
    }
    return hit;
  };
  return {
    ...git,
    uncommitted: () => once('uncommitted', () => git.uncommitted()),
    recentCommits: (n) => once(`recent:${n}`, () => git.recentCommits(n)),
    commitDiff: (sha) => once(`commit:${sha}`, () => git.commitDiff(sha)),
    nameAt: (commit, path) => once(`name:${commit}:${path}`, () => git.nameAt(commit, path)),
    // docs_drift asks for the same doc at the same commit once per name that commit removed.
    showAt: (commit, path) => once(`show:${commit}:${path}`, () => git.showAt(commit, path)),
    history: () => once('history', () => git.history()),
    removals: (words, pathspecs) => once(`removals:${[...words].sort().join('\0')}|${(pathspecs ?? []).join('\0')}`, () => git.removals(words, pathspecs)),
  };
}

/** sha256 (hex) of a text as UTF-8: the content hash evidence and snapshots record. */
export function sha256Of(text: string | Buffer): string {
  return createHash('sha256').update(text).digest('hex');
}

/** git's blob id of some bytes (what `git hash-object` prints). */
export function gitBlobId(bytes: Buffer): string {
  return createHash('sha1').update(`blob ${bytes.length}\0`).update(bytes).digest('hex');
}
