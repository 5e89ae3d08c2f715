import { runGit, tryGit } from './git';

/**
 * The files Sous may consider in `root`: tracked files plus untracked files that `.gitignore` does not
 * ignore (`git ls-files --cached --others --exclude-standard`), as sorted, unique, root-relative POSIX
 * paths. Works in a repository without commits (untracked files only); an empty repository gives [].
 * Tracked files deleted from the working tree are still listed (reading them reports `not_found`).
 * Throws `ScopeError` (`not_a_repository`, `root_not_found`, `git_unavailable`, `git_failed`).
 */
export async function listCandidateFiles(root: string): Promise<string[]> {
  const out = await runGit(root, ['ls-files', '-z', '--cached', '--others', '--exclude-standard']);
  // A file with merge conflicts is listed once per stage: dedupe.
  const paths = new Set(out.split('\0').filter((p) => p !== ''));
  return [...paths].sort();
}

/** The commit `HEAD` points at (40 hex digits), or `null` in a repository without commits. */
export async function headCommit(root: string): Promise<string | null> {
  const out = await tryGit(root, ['rev-parse', '--verify', '--quiet', 'HEAD^{commit}']);
  const sha = out?.trim() ?? '';
  if (sha !== '') return sha;
  // `rev-parse` also fails outside a repository: let that surface as `not_a_repository`.
  await runGit(root, ['rev-parse', '--git-dir']);
  return null;
}
