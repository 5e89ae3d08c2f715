/**
 * What the watcher never descends into: git's own folder, Sous's state folder and the directories
 * git ignores (node_modules, build output…), listed once by git so a huge ignored tree costs no
 * watches. Files git ignores inside watched folders are filtered later by the index itself.
 */
import * as path from 'node:path';
import { tryGit } from '../scope/git';

/** Directory names never watched, whatever .gitignore says. */
const ALWAYS_IGNORED = new Set(['.git', '.sous']);

/** Repository-relative directories git reports as ignored (`dir/`), without the trailing slash. */
export async function ignoredDirectories(root: string): Promise<Set<string>> {
  const out = await tryGit(root, ['ls-files', '-z', '--others', '--ignored', '--exclude-standard', '--directory']);
  const dirs = new Set<string>();
  for (const entry of (out ?? '').split('\0')) if (entry.endsWith('/')) dirs.add(entry.slice(0, -1));
  return dirs;
}

/** A chokidar `ignored` predicate over absolute paths. */
export function ignorePredicate(root: string, ignoredDirs: ReadonlySet<string>): (absolute: string) => boolean {
  return (absolute) => {
    const rel = path.relative(root, absolute).split(path.sep).join('/');
    if (rel === '' ) return false;
    if (rel.startsWith('../')) return true;
    const segments = rel.split('/');
    if (segments.some((s) => ALWAYS_IGNORED.has(s))) return true;
    let prefix = '';
    for (const segment of segments) {
      prefix = prefix === '' ? segment : `${prefix}/${segment}`;
      if (ignoredDirs.has(prefix)) return true;
    }
    return false;
  };
}
