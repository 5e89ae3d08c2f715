import { runGit } from './git';
import { headCommit } from './files';

/** How many commits `gitSignals` reads by default, newest first. */
export const DEFAULT_MAX_SIGNAL_COMMITS = 2000;

/**
 * Commits touching more files than this add no co-change pairs (mass renames, formatting, vendoring
 * say nothing about which files belong together); they still count for recency and churn.
 */
export const DEFAULT_MAX_COCHANGE_FILES = 50;

/** Options of `gitSignals`. */
export interface GitSignalsOptions {
  /** Newest commits read. Default `DEFAULT_MAX_SIGNAL_COMMITS` (2000). */
  maxCommits?: number;
  /** Commits with more files give no co-change pairs. Default `DEFAULT_MAX_COCHANGE_FILES` (50). */
  maxCoChangeFiles?: number;
}

/** History of one file within the commits read. */
export interface FileGitSignal {
  /** Root-relative POSIX path as of that commit (renames show as delete + add). */
  path: string;
  /** Committer time of the newest commit touching the file, Unix milliseconds (recency). */
  lastCommitTime: number;
  /** Commits touching the file (churn). */
  churn: number;
}

/** Two files changed in the same commits; `a` < `b`. */
export interface CoChangePair {
  a: string;
  b: string;
  /** Commits touching both. */
  count: number;
}

/** What git history says about the repository's files. Empty (no error) in a repository without commits. */
export interface GitSignals {
  /** `HEAD` when read, or `null` without commits. */
  head: string | null;
  /** Commits read (at most `maxCommits`). */
  commitsRead: number;
  /** Per file, keyed by path. */
  files: Map<string, FileGitSignal>;
  /** Sorted by count (highest first), then by path. */
  coChange: CoChangePair[];
}

/** One commit as parsed from `git log`. */
interface LogCommit {
  time: number;
  files: string[];
}

// Record separator before each commit; with -z the header ends in NUL and file names are NUL-separated.
const RECORD = '\x1e';

/**
 * Recency, churn and co-change from `git log --name-only` over the newest `maxCommits` commits reachable
 * from HEAD (merge commits list no files, as in plain `git log`). Paths are relative to `root`.
 * Read-only. Throws `ScopeError` when `root` is not a repository.
 */
export async function gitSignals(root: string, options: GitSignalsOptions = {}): Promise<GitSignals> {
  const maxCommits = options.maxCommits ?? DEFAULT_MAX_SIGNAL_COMMITS;
  const maxCoChangeFiles = options.maxCoChangeFiles ?? DEFAULT_MAX_COCHANGE_FILES;
  const head = await headCommit(root);
  const signals: GitSignals = { head, commitsRead: 0, files: new Map(), coChange: [] };
  if (head === null || maxCommits <= 0) return signals;

  const out = await runGit(root, [
    'log', head, `--max-count=${maxCommits}`, '--no-renames', '--name-only', '-z', '--relative',
    `--format=${RECORD}%H %ct`, '--',
  ]);
  const commits = parseLog(out);
  signals.commitsRead = commits.length;

  const pairs = new Map<string, CoChangePair>();
  for (const commit of commits) {
    for (const file of commit.files) {
      const seen = signals.files.get(file);
      if (seen) {
        seen.churn++;
        seen.lastCommitTime = Math.max(seen.lastCommitTime, commit.time);
      } else {
        signals.files.set(file, { path: file, lastCommitTime: commit.time, churn: 1 });
      }
    }
    if (commit.files.length > maxCoChangeFiles) continue;
    const files = [...commit.files].sort();
    for (let i = 0; i < files.length; i++) {
      for (let j = i + 1; j < files.length; j++) {
        const a = files[i] as string;
        const b = files[j] as string;
        const key = `${a}\0${b}`;
        const pair = pairs.get(key);
        if (pair) pair.count++;
        else pairs.set(key, { a, b, count: 1 });
      }
    }
  }
  signals.coChange = [...pairs.values()].sort(
    (x, y) => y.count - x.count || (x.a < y.a ? -1 : x.a > y.a ? 1 : x.b < y.b ? -1 : x.b > y.b ? 1 : 0),
  );
  return signals;
}

/** Files changed together with `file`, most often first. */
export function coChangedWith(signals: GitSignals, file: string): Array<{ path: string; count: number }> {
  const out: Array<{ path: string; count: number }> = [];
  for (const pair of signals.coChange) {
    if (pair.a === file) out.push({ path: pair.b, count: pair.count });
    else if (pair.b === file) out.push({ path: pair.a, count: pair.count });
  }
  return out;
}

function parseLog(out: string): LogCommit[] {
  const commits: LogCommit[] = [];
  for (const record of out.split(RECORD)) {
    if (record === '') continue;
    const [header = '', ...rest] = record.split('\0');
    const seconds = Number(header.trim().split(' ')[1]);
    if (!Number.isFinite(seconds)) continue;
    // The first file name follows the header's newline; a commit's names are unique but dedupe anyway.
    const files = new Set(rest.map((f, i) => (i === 0 ? f.replace(/^\n/, '') : f)).filter((f) => f !== ''));
    commits.push({ time: seconds * 1000, files: [...files] });
  }
  return commits;
}
