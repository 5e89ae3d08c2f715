/**
 * The changes under review: the uncommitted work and the newest commits, as file diffs, plus the
 * small helpers every review rule needs (added lines with their line numbers, mapping a line of a
 * commit onto the current file). Read once per view: the review and the
 * hotspot detectors share the same git reads within one cycle.
 */
import type { CommitRef, FileDiff } from '../../view/git-history';
import type { RepositoryView } from '../../view/repository-view';

/** Newest commits reviewed besides the uncommitted changes. */
export const DEFAULT_REVIEW_COMMITS = 5;

/** One change set: the uncommitted work, or one commit. */
export interface ChangeSet {
  source: 'uncommitted' | CommitRef;
  /** In-scope files it changes (deletions included). */
  files: FileDiff[];
}

/** A line a diff adds (or removes), with its 1-based number on that side, without the `+`/`-` prefix. */
export interface DiffLine {
  line: number;
  text: string;
}

/** Where a line of a change is in the file as indexed now. */
export interface CurrentLine {
  line: number;
  /** sha256 of the current file (evidence hash). */
  contentHash: string;
}

const cache = new WeakMap<RepositoryView, Map<number, Promise<ChangeSet[]>>>();

/**
 * The uncommitted changes (when there are any) then the newest `commits` commits, newest first.
 * Memoised per view, so detectors of one cycle read git once; a failed read is not kept.
 */
export function changesUnderReview(view: RepositoryView, commits = DEFAULT_REVIEW_COMMITS): Promise<ChangeSet[]> {
  const byCount = cache.get(view) ?? new Map<number, Promise<ChangeSet[]>>();
  cache.set(view, byCount);
  const cached = byCount.get(commits);
  if (cached !== undefined) return cached;
  const read = (async (): Promise<ChangeSet[]> => {
    const out: ChangeSet[] = [];
    const uncommitted = await view.git.uncommitted();
    if (uncommitted.length > 0) out.push({ source: 'uncommitted', files: uncommitted });
    for (const commit of await view.git.recentCommits(commits)) {
      const { files, ...ref } = commit;
      if (files.length > 0) out.push({ source: ref, files });
    }
    return out;
  })();
  byCount.set(commits, read);
  read.catch(() => byCount.delete(commits));
  return read;
}

/** The commit sha of a change set, undefined for the uncommitted changes. */
export function commitOf(change: ChangeSet): string | undefined {
  return change.source === 'uncommitted' ? undefined : change.source.sha;
}

/** "uncommitted changes" or "commit 1a2b3c4", for card text. */
export function describeSource(change: ChangeSet): string {
  return change.source === 'uncommitted' ? 'the uncommitted changes' : `commit ${change.source.sha.slice(0, 7)}`;
}

/** Every path the change sets touch (after the change; deleted files under their old path). */
export function changedPaths(changes: readonly ChangeSet[]): string[] {
  const out = new Set<string>();
  for (const change of changes) for (const file of change.files) out.add(file.path);
  return [...out];
}

/** Lines the diff adds, numbered in the new file. */
export function addedLines(diff: FileDiff): DiffLine[] {
  const out: DiffLine[] = [];
  for (const hunk of diff.hunks) {
    let line = hunk.newStart;
    for (const raw of hunk.lines) {
      if (raw.startsWith('+')) out.push({ line: line++, text: raw.slice(1) });
      else if (raw.startsWith(' ')) line++;
      // '-' lines are not in the new file; '\' is git's "No newline at end of file".
    }
  }
  return out;
}

/** Lines the diff removes, numbered in the old file. */
export function removedLines(diff: FileDiff): DiffLine[] {
  const out: DiffLine[] = [];
  for (const hunk of diff.hunks) {
    let line = hunk.oldStart;
    for (const raw of hunk.lines) {
      if (raw.startsWith('-')) out.push({ line: line++, text: raw.slice(1) });
      else if (raw.startsWith(' ')) line++;
    }
  }
  return out;
}

/**
 * The line of the current (indexed) file that holds `text`: line `line` when it still does,
 * else the nearest line with exactly that text. Undefined when the file is not indexed or the
 * text is gone (the change was undone or edited since), so evidence never points at other code.
 */
export function currentLine(view: RepositoryView, path: string, line: number, text: string): CurrentLine | undefined {
  const file = view.file(path);
  const lines = view.lines(path);
  if (file === undefined || lines === undefined) return undefined;
  if (lines[line - 1] === text) return { line, contentHash: file.sha256 };
  let best: number | undefined;
  for (let i = 0; i < lines.length; i++) {
    if (lines[i] !== text) continue;
    if (best === undefined || Math.abs(i + 1 - line) < Math.abs(best - line)) best = i + 1;
  }
  return best === undefined ? undefined : { line: best, contentHash: file.sha256 };
}

/** Evidence list in markdown, one bullet per item. */
export function evidenceMarkdown(items: ReadonlyArray<{ path: string; lineStart?: number; commit?: string; note: string }>): string {
  return items
    .map((e) => {
      const where = e.lineStart === undefined ? `\`${e.path}\`` : `\`${e.path}\` line ${e.lineStart}`;
      const commit = e.commit === undefined ? '' : ` (commit ${e.commit.slice(0, 7)})`;
      return `- ${where}${commit}: ${e.note}`;
    })
    .join('\n');
}

/** "a", "a and b", "a, b and c". */
export function joinWords(words: readonly string[]): string {
  if (words.length <= 1) return words[0] ?? '';
  return `${words.slice(0, -1).join(', ')} and ${words[words.length - 1] ?? ''}`;
}

/** The text with its first letter in upper case. */
export function capitalised(text: string): string {
  return `${text.slice(0, 1).toUpperCase()}${text.slice(1)}`;
}
