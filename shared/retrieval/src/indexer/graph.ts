/**
 * The file graph: resolved imports in both directions, plus co-change pairs from git history as
 * weaker neighbours. Import sources are kept as written so they can be re-resolved when files
 * appear or disappear.
 */
import { resolveImport } from '../symbols';

interface FileImports {
  language: string;
  sources: string[];
  /** Resolved paths, sorted and unique. */
  resolved: string[];
  /** Sources that did not resolve (packages, or files not indexed yet). */
  unresolved: string[];
}

/** Import edges between indexed files, kept consistent under add, change and remove. */
export class FileGraph {
  private readonly files = new Map<string, FileImports>();
  private readonly importers = new Map<string, Set<string>>();
  private readonly coChange = new Map<string, string[]>();
  /** Reverse of `coChange`: the lists are capped per file, so "b is in a's list" is one-way. */
  private readonly coChangedInto = new Map<string, string[]>();

  /**
   * Sets a file's import sources and resolves them against `known` (the indexed paths, including
   * this one). Call `retryUnresolved` after adding paths that are new to the index.
   */
  setFile(path: string, language: string, sources: readonly string[], known: Set<string>): void {
    this.unlink(path);
    const entry: FileImports = { language, sources: [...new Set(sources)], resolved: [], unresolved: [] };
    this.files.set(path, entry);
    this.resolve(path, entry, known);
  }

  /** Removes a file and its outgoing edges; files importing it are re-resolved against `known`. */
  removeFile(path: string, known: Set<string>): void {
    this.unlink(path);
    this.files.delete(path);
    const importers = [...(this.importers.get(path) ?? [])];
    this.importers.delete(path);
    for (const importer of importers) this.reresolve(importer, known);
  }

  /**
   * Paths were `added` to `known`: imports that did not resolve before may resolve to them now.
   * Resolving can scan every known path (Python, Go, Java), so only sources that mention an added
   * file's stem or folder name (`./audit`, `pkg.audit`, `example.com/x/audit`) are retried. The
   * added files themselves were just resolved against the same `known` and are skipped.
   */
  retryUnresolved(known: Set<string>, added: ReadonlySet<string>): void {
    const hints = new Set<string>();
    for (const p of added) {
      const parts = p.split('/');
      const base = parts[parts.length - 1] ?? '';
      hints.add(base.replace(/\.[^.]*$/, ''));
      if (parts.length > 1) hints.add(parts[parts.length - 2] as string);
    }
    hints.delete('');
    const mentions = (source: string): boolean => [...hints].some((hint) => source.includes(hint));
    for (const [from, entry] of this.files) {
      if (!added.has(from) && entry.unresolved.some(mentions)) this.reresolve(from, known);
    }
  }

  /** Replaces the co-change neighbours (from git history) of every file. */
  setCoChange(neighbours: Map<string, string[]>): void {
    this.coChange.clear();
    this.coChangedInto.clear();
    for (const [path, list] of neighbours) {
      this.coChange.set(path, [...list]);
      for (const to of list) {
        const from = this.coChangedInto.get(to);
        if (from === undefined) this.coChangedInto.set(to, [path]);
        else from.push(path);
      }
    }
  }

  /** Resolved imports of a file, sorted. */
  importsOf(path: string): string[] {
    return [...(this.files.get(path)?.resolved ?? [])];
  }

  /** Files importing `path`, sorted. */
  importersOf(path: string): string[] {
    return [...(this.importers.get(path) ?? [])].sort();
  }

  /** Every file's co-change neighbours, for storing. */
  coChangeEntries(): [string, string[]][] {
    return [...this.coChange].map(([path, list]) => [path, [...list]]);
  }

  /** Files that changed together with `path` in git history (weaker neighbours). */
  coChangedWith(path: string): readonly string[] {
    return this.coChange.get(path) ?? [];
  }

  /** Resolved imports and importers of `path`, unsorted: the cheap form for ranking. */
  importLinks(path: string): string[] {
    return [...(this.files.get(path)?.resolved ?? []), ...(this.importers.get(path) ?? [])];
  }

  /**
   * Co-change neighbours either way: `path`'s own list and the files whose list names it (lists
   * are capped per file, so the relation is not symmetric). Paths may not be indexed.
   */
  coChangeLinks(path: string): string[] {
    return [...(this.coChange.get(path) ?? []), ...(this.coChangedInto.get(path) ?? [])];
  }

  private reresolve(path: string, known: Set<string>): void {
    const entry = this.files.get(path);
    if (entry === undefined) return;
    this.unlink(path);
    this.resolve(path, entry, known);
  }

  private resolve(path: string, entry: FileImports, known: Set<string>): void {
    const resolved = new Set<string>();
    const unresolved: string[] = [];
    for (const source of entry.sources) {
      const target = resolveImport(path, source, entry.language, known);
      if (target === undefined || !known.has(target)) unresolved.push(source);
      else if (target !== path) resolved.add(target);
    }
    entry.resolved = [...resolved].sort();
    entry.unresolved = unresolved;
    for (const target of entry.resolved) {
      let set = this.importers.get(target);
      if (set === undefined) {
        set = new Set();
        this.importers.set(target, set);
      }
      set.add(path);
    }
  }

  /** Drops the outgoing edges of `path` from the reverse map. */
  private unlink(path: string): void {
    const entry = this.files.get(path);
    if (entry === undefined) return;
    for (const target of entry.resolved) {
      const set = this.importers.get(target);
      set?.delete(path);
      if (set?.size === 0) this.importers.delete(target);
    }
    entry.resolved = [];
  }
}
