/**
 * The newest commits read once per cycle: which commit last touched each in-scope file (names only).
 * And, for docs drift, which commits removed some words from in-scope files: docs ask "what removed
 * `parseConfig`?" for every name they lack; one `git log -G` per batch of words answers all of them
 * instead of one `git log -S` each. Only words are kept, never lines.
 */
import type { ScopePolicy } from '@sous/retrieval';
import { runGit, tryGit } from '@sous/retrieval';
import type { CommitRef } from './git-history';
import { FIELD, LOG_FORMAT as FORMAT, RECORD, parseLog } from './git-log';

/** Commits read: the same window as the index's git signals. */
export const HISTORY_WINDOW = 500;

export interface HistoryIndex {
  /** Newest first. */
  readonly commits: readonly CommitRef[];
  /** The window holds the whole history: what it has not seen never happened (in scope). */
  readonly complete: boolean;
  /** Position of a commit in `commits` (0 = newest), or -1 outside the window. */
  position(sha: string): number;
  /** The newest commit in the window that changed `path`, or undefined. */
  lastTouch(path: string): CommitRef | undefined;
  /** Every commit in the window that changed `path`, newest first (churn). */
  touches(path: string): readonly CommitRef[];
}

/** Words, whole when hyphenated (`dry-run`) and in parts. */
const WORD = /[A-Za-z_$][\w$]*(?:-[\w$]+)*/g;

export async function buildHistoryIndex(root: string, policy: ScopePolicy, redact: (text: string) => string, window = HISTORY_WINDOW): Promise<HistoryIndex> {
  const commits: CommitRef[] = [];
  const position = new Map<string, number>();
  const touched = new Map<string, CommitRef[]>();
  // Names and statuses only: no file content is read for this pass.
  const names = await runGit(root, ['log', `-n${window}`, '--no-merges', `--format=${FORMAT}`, '--name-status', '-z', '--no-renames']);
  for (const { ref: raw, files: fields } of parseLog(names)) {
    const ref: CommitRef = { ...raw, subject: redact(raw.subject) };
    position.set(ref.sha, commits.length);
    commits.push(ref);
    for (let i = 0; i + 1 < fields.length; i += 2) {
      const path = fields[i + 1] as string;
      if (!policy.inScope(path)) continue;
      const list = touched.get(path);
      if (list === undefined) touched.set(path, [ref]);
      else if (list[list.length - 1] !== ref) list.push(ref);
    }
  }

  return {
    commits,
    complete: commits.length < window,
    position: (sha) => position.get(sha) ?? -1,
    lastTouch: (path) => touched.get(path)?.[0],
    touches: (path) => touched.get(path) ?? [],
  };
}

/** Commits searched for removed words: deeper than the window, since docs go stale for years. */
export const REMOVAL_WINDOW = 3000;
const WORDS_PER_CALL = 200;

/** Which commits removed some words from in-scope files, newest first. */
export interface RemovalIndex {
  removing(word: string): readonly CommitRef[];
}

/**
 * The commits among the newest `window` whose removed lines (in-scope files) hold one of `words`.
 * git's `-G` picks the commits whose diff touches a line matching any word, so git reads the history
 * once per batch of words and only those commits' patches reach us; only the words are kept.
 */
export async function buildRemovalIndex(root: string, policy: ScopePolicy, redact: (text: string) => string, words: readonly string[], window = REMOVAL_WINDOW): Promise<RemovalIndex> {
  const wanted = new Set(words.filter((w) => w !== ''));
  const found = new Map<string, CommitRef[]>();
  const list = [...wanted];
  for (let i = 0; i < list.length; i += WORDS_PER_CALL) {
    const pattern = list
      .slice(i, i + WORDS_PER_CALL)
      .map((w) => w.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
      .join('|');
    // A partial clone lacks some blobs and git stops at the first: those words go without history
    // (no card) rather than failing the detector for every doc.
    const log = await tryGit(root, ['log', `-n${window}`, '--no-merges', `--format=${FORMAT}`, '-p', '-U0', '--no-color', '--no-ext-diff', '--no-renames', '-G', pattern]);
    if (log === null) continue;
    let ref: CommitRef | undefined;
    let inScope = false;
    for (const line of log.split('\n')) {
      if (line.startsWith(RECORD)) {
        const [sha = '', ct = '0', subject = ''] = line.slice(1).split(FIELD);
        ref = { sha, time: Number(ct) * 1000, subject: redact(subject) };
        continue;
      }
      if (line.startsWith('diff --git ')) {
        inScope = false;
        continue;
      }
      if (line.startsWith('--- ')) {
        inScope = line.startsWith('--- a/') && policy.inScope(line.slice(6));
        continue;
      }
      if (ref === undefined || !inScope || !line.startsWith('-')) continue;
      for (const word of line.slice(1).match(WORD) ?? []) {
        const parts = word.includes('-') ? [word, ...word.split('-')] : [word];
        for (const part of parts) {
          if (!wanted.has(part)) continue;
          const commits = found.get(part);
          if (commits === undefined) found.set(part, [ref]);
          else if (commits[commits.length - 1] !== ref) commits.push(ref);
        }
      }
    }
  }
  return { removing: (word) => found.get(word) ?? [] };
}
