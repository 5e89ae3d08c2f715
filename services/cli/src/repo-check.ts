import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { READ_ONLY_GIT_FLAGS, readOnlyGitEnv } from '@sous/retrieval';

/** Above this many entries, a directory that is not a git repository is refused without --force. */
export const HUGE_DIRECTORY_ENTRIES = 20_000;

/** The git top-level of `dir`, or undefined when it is not inside a repository (or git is missing). */
export function gitTopLevel(dir: string): string | undefined {
  try {
    return execFileSync('git', [...READ_ONLY_GIT_FLAGS, 'rev-parse', '--show-toplevel'], { cwd: dir, env: readOnlyGitEnv(), stdio: ['ignore', 'pipe', 'ignore'] }).toString().trim() || undefined;
  } catch {
    return undefined;
  }
}

/**
 * Counts directory entries under `dir`, stopping as soon as `limit` is passed, so a home directory
 * or a whole disk is judged in milliseconds instead of walked. Unreadable folders are skipped.
 */
export function countEntriesUpTo(dir: string, limit: number): number {
  let count = 0;
  const stack = [dir];
  while (stack.length > 0 && count <= limit) {
    const current = stack.pop() as string;
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(current, { withFileTypes: true });
    } catch {
      continue;
    }
    for (const e of entries) {
      count++;
      if (count > limit) break;
      if (e.isDirectory() && !e.isSymbolicLink()) stack.push(path.join(current, e.name));
    }
  }
  return count;
}

/** Spec 7.7: a huge directory that is not a repository is refused unless --force. Returns a refusal reason or undefined. */
export function refuseHugeNonRepository(dir: string, force: boolean): string | undefined {
  if (force || gitTopLevel(dir)) return undefined;
  if (countEntriesUpTo(dir, HUGE_DIRECTORY_ENTRIES) <= HUGE_DIRECTORY_ENTRIES) return undefined;
  return `${dir} is not a git repository and holds more than ${HUGE_DIRECTORY_ENTRIES} files; point --path at a repository, or pass --force to watch it anyway`;
}
