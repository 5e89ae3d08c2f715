/**
 * Per-file data a query looks files up by, kept current as files are added, changed and removed:
 * normalized definition names and path base names. With them a query finds the files a prompt
 * names or whose symbols it mentions without visiting every file.
 */
import { addTo, deleteFrom, identifierTokens, PathTermIndex, pathBase, pathMatches, promptNames, type PathTermScores, type PromptAnalysis } from '../ranking';

const NONE: ReadonlySet<string> = new Set();

/** Definition names and base names of the indexed files, both ways. */
export class FileLookup {
  /** Normalized definition name (`identifierTokens(name).whole`) → paths defining it. */
  private readonly byName = new Map<string, Set<string>>();
  private readonly namesOf = new Map<string, ReadonlySet<string>>();
  /** `pathBase` → paths. */
  private readonly byBase = new Map<string, Set<string>>();
  /** Folder and file-name words → paths. */
  private readonly pathWords = new PathTermIndex();

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
    this.pathWords.add(path);
  }

  /** Forgets a file. */
  remove(path: string): void {
    const names = this.namesOf.get(path);
    if (names === undefined) return;
    this.namesOf.delete(path);
    for (const name of names) deleteFrom(this.byName, name, path);
    deleteFrom(this.byBase, pathBase(path), path);
    this.pathWords.remove(path);
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

  /** Files whose folder or file names hold prompt terms (`PathTermIndex.scores`). */
  pathTerms(analysis: PromptAnalysis): PathTermScores {
    return this.pathWords.scores(analysis);
  }

  /**
   * Files with a direct, non-lexical signal for the prompt: named by a prompt path or a traceback
   * frame (`pathMatches`), or defining a prompt identifier or frame function.
   */
  directMatches(analysis: PromptAnalysis): Set<string> {
    const out = new Set<string>();
    for (const mentioned of [...analysis.paths.map((p) => p.path), ...analysis.frames.map((f) => f.file)]) {
      for (const path of this.byBase.get(pathBase(mentioned)) ?? NONE) if (pathMatches(mentioned, path)) out.add(path);
    }
    for (const name of promptNames(analysis).keys()) for (const path of this.byName.get(name) ?? NONE) out.add(path);
    return out;
  }
}
