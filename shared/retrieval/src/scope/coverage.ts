import * as path from 'node:path';
import { listCandidateFiles } from './files';
import { isCodePath } from './language';
import type { ScopePolicy } from './policy';

/**
 * Top-level folders never suggested for the scope: vendored, generated or build output (they are often
 * committed but are poor context). Dot-folders (`.github`, `.vscode`) are never suggested either.
 */
export const NON_SOURCE_FOLDERS: ReadonlySet<string> = new Set([
  'node_modules', 'vendor', 'third_party', 'third-party', 'dist', 'build', 'out', 'target', 'coverage', 'bin', 'obj',
]);

/** The folder name used in `byTopLevel` for files at the repository root. */
export const ROOT_FOLDER = '.';

/** Counts for one top-level folder (or `.` for files at the root). */
export interface FolderCoverage {
  folder: string;
  inScope: number;
  outOfScope: number;
  /** Out-of-scope files that are program code by extension. */
  outOfScopeCode: number;
}

/** How much of the repository the scope leaves out, and globs that would take in its code. */
export interface ScopeCoverage {
  /** Candidate files: tracked plus untracked-not-ignored (`listCandidateFiles`). */
  total: number;
  inScope: number;
  outOfScope: number;
  /** Out-of-scope files that are program code by extension (see `CODE_LANGUAGES`). */
  outOfScopeCode: number;
  /** Per top-level folder, sorted by name; `.` holds root-level files. */
  byTopLevel: FolderCoverage[];
  /**
   * Globs for `privacy.allowed_paths` that would take in the code the scope leaves out: `lib/**` for a
   * top-level folder with code, `*.py` for code files at the root. Files left out by an excluded
   * pattern never produce a suggestion. Only a suggestion: the policy is never changed.
   */
  suggestedGlobs: string[];
}

/** Compares the scope with the repository's candidate files (read-only; file contents are not read). */
export async function scopeCoverage(root: string, policy: ScopePolicy): Promise<ScopeCoverage> {
  const files = await listCandidateFiles(root);
  const folders = new Map<string, FolderCoverage>();
  const folderSuggestions = new Map<string, number>();
  const rootExtensions = new Map<string, number>();
  let inScope = 0;
  let outOfScopeCode = 0;

  for (const file of files) {
    const slash = file.indexOf('/');
    const folder = slash === -1 ? ROOT_FOLDER : file.slice(0, slash);
    const entry = folders.get(folder) ?? { folder, inScope: 0, outOfScope: 0, outOfScopeCode: 0 };
    folders.set(folder, entry);
    const decision = policy.decide(file);
    if (decision.inScope) {
      inScope++;
      entry.inScope++;
      continue;
    }
    entry.outOfScope++;
    if (!isCodePath(file)) continue;
    entry.outOfScopeCode++;
    outOfScopeCode++;
    if (decision.reason !== 'not_allowed') continue; // excluded on purpose: never suggest it back
    if (folder === ROOT_FOLDER) {
      const ext = path.posix.extname(file).toLowerCase();
      if (ext !== '') rootExtensions.set(ext, (rootExtensions.get(ext) ?? 0) + 1);
    } else if (!folder.startsWith('.') && !NON_SOURCE_FOLDERS.has(folder)) {
      folderSuggestions.set(folder, (folderSuggestions.get(folder) ?? 0) + 1);
    }
  }

  return {
    total: files.length,
    inScope,
    outOfScope: files.length - inScope,
    outOfScopeCode,
    byTopLevel: [...folders.values()].sort((a, b) => compareText(a.folder, b.folder)),
    // A glob the scope already has would change nothing: never suggest it back.
    suggestedGlobs: [
      ...byCountThenName(folderSuggestions).map((folder) => `${folder}/**`),
      ...byCountThenName(rootExtensions).map((ext) => `*${ext}`),
    ].filter((glob) => !policy.allowedPaths.includes(glob)),
  };
}

function byCountThenName(counts: Map<string, number>): string[] {
  return [...counts.entries()].sort((a, b) => b[1] - a[1] || compareText(a[0], b[0])).map(([name]) => name);
}

function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
