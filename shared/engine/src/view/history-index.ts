/**
 * The newest commits read once per cycle: which commit last touched each in-scope file, and which
 * words each commit removed from in-scope files. Detectors ask "what removed `parseConfig` after
 * this doc was written?" hundreds of times a cycle; one pass over the history answers all of them
 * instead of one `git log -S` each. Only words are kept, never lines.
 */
import type { ScopePolicy } from '@sous/retrieval';
import { runGit } from '@sous/retrieval';
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
  /** Commits in the window whose removed lines (in-scope files) hold `word`, newest first. */
  removing(word: string): readonly CommitRef[];
}

const PATHS_PER_CALL = 200;
/** Words, whole when hyphenated (`dry-run`) and in parts. */
const WORD = /[A-Za-z_$][\w$]*(?:-[\w$]+)*/g;

export async function buildHistoryIndex(root: string, policy: ScopePolicy, redact: (text: string) => string, window = HISTORY_WINDOW): Promise<HistoryIndex> {
  const commits: CommitRef[] = [];
  const position = new Map<string, number>();
  const touched = new Map<string, CommitRef[]>();
  const removalPaths = new Set<string>();
  // Names and statuses only: no file content is read for this pass.
  const names = await runGit(root, ['log', `-n${window}`, '--no-merges', `--format=${FORMAT}`, '--name-status', '-z', '--no-renames']);
  for (const { ref: raw, files: fields } of parseLog(names)) {
    const ref: CommitRef = { ...raw, subject: redact(raw.subject) };
    position.set(ref.sha, commits.length);
    commits.push(ref);
    for (let i = 0; i + 1 < fields.length; i += 2) {
      const status = fields[i] as string;
      const path = fields[i + 1] as string;
      if (!policy.inScope(path)) continue;
      const list = touched.get(path);
      if (list === undefined) touched.set(path, [ref]);
      else if (list[list.length - 1] !== ref) list.push(ref);
      if (status === 'M' || status === 'D') removalPaths.add(path);
    }
  }

  const removedBy = new Map<string, Set<number>>();
  const paths = [...removalPaths];
  for (let i = 0; i < paths.length; i += PATHS_PER_CALL) {
    const chunk = paths.slice(i, i + PATHS_PER_CALL).map((p) => `:(literal)${p}`);
    const log = await runGit(root, ['log', `-n${window}`, '--no-merges', `--format=${FORMAT}`, '-p', '-U0', '--no-color', '--no-ext-diff', '--no-renames', '--', ...chunk]);
    let current = -1;
    for (const line of log.split('\n')) {
      if (line.startsWith(RECORD)) {
        current = position.get(line.slice(1).split(FIELD)[0] ?? '') ?? -1;
        continue;
      }
      if (current < 0 || !line.startsWith('-') || line.startsWith('---')) continue;
      for (const word of line.slice(1).match(WORD) ?? []) {
        add(removedBy, word, current);
        if (word.includes('-')) for (const part of word.split('-')) add(removedBy, part, current);
      }
    }
  }

  return {
    commits,
    complete: commits.length < window,
    position: (sha) => position.get(sha) ?? -1,
    lastTouch: (path) => touched.get(path)?.[0],
    touches: (path) => touched.get(path) ?? [],
    removing: (word) =>
      [...(removedBy.get(word) ?? [])]
        .sort((a, b) => a - b)
        .map((i) => commits[i] as CommitRef),
  };
}

function add(map: Map<string, Set<number>>, word: string, commit: number): void {
  let set = map.get(word);
  if (set === undefined) map.set(word, (set = new Set()));
  set.add(commit);
}
