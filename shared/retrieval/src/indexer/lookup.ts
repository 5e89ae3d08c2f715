/**
 * Per-file data a query looks files up by, kept current as files are added, changed and removed:
 * normalized definition names and path base names. With them a query finds the files a prompt
 * names or whose symbols it mentions without visiting every file.
 */
import { addTo, bestPathMatches, deleteFrom, identifierTokens, PathTermIndex, pathBase, promptNames, type PathTermScores, type PromptAnalysis } from '../ranking';

const NONE: ReadonlySet<string> = new Set();

// A package's own file stands for its folder: `pkg/__init__.py`, `src/cli/mod.rs`, `lib/index.ts`.
const PACKAGE_FILE = /^(__init__|__main__|mod|index|lib)$/;

/**
 * The module stems of a path, lowercased, extension dropped: `dvc/repo/move.py` → `dvc/repo/move`;
 * a package file also stands for its folder (`pkg/ext/__init__.py` → `pkg/ext/__init__`, `pkg/ext`).
 */
export function moduleStems(path: string): string[] {
  const lower = path.toLowerCase();
  const slash = lower.lastIndexOf('/');
  const dot = lower.lastIndexOf('.');
  const stem = dot > slash ? lower.slice(0, dot) : lower;
  const name = stem.slice(slash + 1);
  return PACKAGE_FILE.test(name) && slash > 0 ? [stem, stem.slice(0, slash)] : [stem];
}

const tail = (stem: string): string => stem.slice(stem.lastIndexOf('/') + 1);

/** Definition names and base names of the indexed files, both ways. */
export class FileLookup {
  /** Normalized definition name (`identifierTokens(name).whole`) → paths defining it. */
  private readonly byName = new Map<string, Set<string>>();
  private readonly namesOf = new Map<string, ReadonlySet<string>>();
  /** `pathBase` → paths. */
  private readonly byBase = new Map<string, Set<string>>();
  /** Folder and file-name words → paths. */
  private readonly pathWords = new PathTermIndex();
  /** Last segment of each module stem (`moduleStems`) → paths. */
  private readonly byStemTail = new Map<string, Set<string>>();

  /** Records (or replaces) a file's definitions. */
  set(path: string, definitions: ReadonlyArray<{ name: string }>): void {
    this.remove(path);
    const names = new Set<string>();
    for (const definition of definitions) {
      const { whole } = identifierTokens(definition.name);
      if (whole !== null) names.add(whole);
    }
    this.namesOf.set(path, names);
    for (const name of names) addTo(this.byName, name, path);
    addTo(this.byBase, pathBase(path), path);
    for (const stem of moduleStems(path)) addTo(this.byStemTail, tail(stem), path);
    this.pathWords.add(path);
  }

  /** Forgets a file. */
  remove(path: string): void {
    const names = this.namesOf.get(path);
    if (names === undefined) return;
    this.namesOf.delete(path);
    for (const name of names) deleteFrom(this.byName, name, path);
    deleteFrom(this.byBase, pathBase(path), path);
    for (const stem of moduleStems(path)) deleteFrom(this.byStemTail, tail(stem), path);
    this.pathWords.remove(path);
  }

  /** Files whose module stem is `stem` or ends with `/stem` (`repo/move` names `dvc/repo/move.py`). */
  moduleMatches(stem: string): string[] {
    const out: string[] = [];
    for (const path of this.byStemTail.get(tail(stem)) ?? NONE) {
      if (moduleStems(path).some((s) => s === stem || s.endsWith(`/${stem}`))) out.push(path);
    }
    return out;
  }

  /** Number of files recorded. */
  get files(): number {
    return this.namesOf.size;
  }

  /** How many files define a normalized name. */
  count(name: string): number {
    return this.byName.get(name)?.size ?? 0;
  }

  /** The file's definition names, normalized (empty when unknown). */
  definedNames(path: string): ReadonlySet<string> {
    return this.namesOf.get(path) ?? NONE;
  }

  /**
   * The indexed files a prompt path names (`bestPathMatches`: those matching the most segments);
   * `conf.py` may name dozens, `/home/u/app/cmd/task/task.go` names `cmd/task/task.go` alone.
   */
  resolvePath(promptPath: string): string[] {
    return bestPathMatches(promptPath, this.byBase.get(pathBase(promptPath)) ?? NONE);
  }

  /** Files whose folder or file names hold prompt terms (`PathTermIndex.scores`). */
  pathTerms(analysis: Pick<PromptAnalysis, 'labels' | 'terms'>): PathTermScores {
    return this.pathWords.scores(analysis);
  }

  /**
   * Files with a direct, non-lexical signal for the prompt: named by a prompt path or a traceback
   * frame (`resolvePath`), or defining a prompt identifier or frame function.
   */
  directMatches(analysis: PromptAnalysis): Set<string> {
    const out = new Set<string>();
    for (const mentioned of [...analysis.paths.map((p) => p.path), ...analysis.frames.map((f) => f.file)]) {
      for (const path of this.resolvePath(mentioned)) out.add(path);
    }
    for (const name of promptNames(analysis).keys()) for (const path of this.byName.get(name) ?? NONE) out.add(path);
    return out;
  }
}
