/**
 * What the detectors read of git, read-only and inside the privacy scope: uncommitted changes, the
 * latest commits, a file at a commit, commits that added or removed a string. Names are listed first
 * and filtered by the scope; contents are asked for only for in-scope paths, and redacted.
 */
import { parsePatch, type StructuredPatch } from 'diff';
import { runGit, tryGit, worktreeReadConfig, type ScopePolicy } from '@sous/retrieval';
import { redactText } from '@sous/protocol';
import { NO_REMOVALS, buildHistoryIndex, buildRemovalIndex, type HistoryIndex, type RemovalIndex } from './history-index';
import { LOG_FORMAT, parseLog } from './git-log';

/** One hunk of a file diff; `lines` keep their ` `, `+`, `-` prefixes. */
export interface DiffHunk {
  oldStart: number;
  oldLines: number;
  newStart: number;
  newLines: number;
  lines: string[];
}

/** The change to one in-scope file. */
export interface FileDiff {
  /** Path after the change (before it, for a deletion). */
  path: string;
  /** Path before a rename. */
  oldPath?: string;
  status: 'added' | 'modified' | 'deleted' | 'renamed';
  hunks: DiffHunk[];
}

/** A commit, briefly. `time` is Unix milliseconds (committer time). */
export interface CommitRef {
  sha: string;
  time: number;
  subject: string;
}

/** A commit with the changes it made to in-scope files. */
export interface CommitDiff extends CommitRef {
  /** Empty when the commit is not reviewable as a change (see `unreviewable`). */
  files: FileDiff[];
  /**
   * Why its files are not listed: `root`, a first commit or a shallow clone's oldest one (an import
   * of the whole tree, not a change anyone can review); `bulk`, more than REVIEWABLE_FILES files
   * (a vendoring, a reformat, a mass rename).
   */
  unreviewable?: 'root' | 'bulk';
}

/** More files than this in one commit is a bulk change: reviewing it line by line is noise. */
export const REVIEWABLE_FILES = 100;

export interface GitHistory {
  /** Changes of the working tree and index against HEAD (untracked in-scope files count as added). */
  uncommitted(): Promise<FileDiff[]>;
  /**
   * Which of the newest REMOVAL_WINDOW commits removed each of `words` from in-scope files; only the
   * files `pathspecs` match are read when given (see codePathspecs).
   */
  removals(words: readonly string[], pathspecs?: readonly string[]): Promise<RemovalIndex>;
  /** The newest `n` commits reachable from HEAD (merges skipped), newest first. */
  recentCommits(n: number): Promise<CommitDiff[]>;
  /** The redacted text of an in-scope `path` at `commit`; undefined when it did not exist there. */
  showAt(commit: string, path: string): Promise<string | undefined>;
  /**
   * The name the file now at `path` had at `commit`, following the renames git detects after it
   * (`book-example/src/cli/serve.md` for today's `guide/src/cli/serve.md`); `path` when not renamed since.
   */
  nameAt(commit: string, path: string): Promise<string>;
  /** One commit's changes to in-scope files (renames detected), redacted. */
  commitDiff(sha: string): Promise<FileDiff[]>;
  /** Whether `ancestor` is an ancestor of (or equal to) `descendant`. */
  isAncestor(ancestor: string, descendant: string): Promise<boolean>;
  /**
   * The commit that last changed each of `lines` (1-based; `'all'`: every line) of an in-scope `path`
   * as committed at HEAD, whitespace changes ignored; empty when the file is out of scope or git cannot say.
   */
  blame(path: string, lines: readonly number[] | 'all'): Promise<Map<number, string>>;
  /** The newest commits' touches and removed words, read once (see history-index.ts); empty without commits. */
  history(): Promise<HistoryIndex>;
}

/** Paths passed to one git command at most (keeps command lines short). */
const PATHS_PER_CALL = 200;

/**
 * Git history of `root`, seen through `policy`. `indexedText` gives an untracked file's text (the
 * index holds it, redacted), so a new file shows as one added hunk without asking git.
 */
export function gitHistory(root: string, policy: ScopePolicy, indexedText: (path: string) => string | undefined = () => undefined): GitHistory {
  const inScope = (path: string): boolean => policy.inScope(path);
  const hasHead = async (): Promise<boolean> => (await tryGit(root, ['rev-parse', '--verify', '-q', 'HEAD'])) !== null;

  /**
   * `git diff`-style patches of the given in-scope paths, redacted, parsed. No external diff and no
   * textconv: both run the user's programs (a cached textconv writes notes into .git).
   */
  const patchesOf = async (args: string[], paths: string[], config: readonly string[] = []): Promise<FileDiff[]> => {
    const out: FileDiff[] = [];
    for (let i = 0; i < paths.length; i += PATHS_PER_CALL) {
      const chunk = paths.slice(i, i + PATHS_PER_CALL).map((p) => `:(literal)${p}`);
      const text = await runGit(root, [...args, '--no-color', '--no-ext-diff', '--no-textconv', '-M', '--', ...chunk], { config });
      out.push(...parseGitPatch(redactText(text, policy.redactPatterns)));
    }
    return out.filter((d) => inScope(d.path) || (d.oldPath !== undefined && inScope(d.oldPath)));
  };
  // Subjects are text written by people: a pasted key is redacted like any other text that leaves.
  const parse = (log: string) => parseLog(log).map(({ ref, files }) => ({ ref: { ...ref, subject: redactText(ref.subject, policy.redactPatterns) }, files }));

  return {
    async uncommitted() {
      if (!(await hasHead())) return [];
      // Names from `git status`, which compares contents in memory and, without optional locks, never
      // writes the index (`git diff --name-only` would also list files whose mtime alone changed).
      const config = await worktreeReadConfig(root);
      const status = await runGit(root, ['status', '--porcelain=v2', '-z', '--untracked-files=no', '--no-renames', '--ignore-submodules=dirty'], { config });
      const names = statusPaths(status).filter(inScope);
      const diffs = await patchesOf(['diff', 'HEAD', '--ignore-submodules=dirty'], names, config);
      const untracked = splitZ(await runGit(root, ['ls-files', '--others', '--exclude-standard', '-z'])).filter(inScope);
      for (const path of untracked) {
        const lines = splitLines(indexedText(path) ?? '');
        const hunks = lines.length === 0 ? [] : [{ oldStart: 0, oldLines: 0, newStart: 1, newLines: lines.length, lines: lines.map((l) => `+${l}`) }];
        diffs.push({ path, status: 'added', hunks });
      }
      return diffs;
    },

    async recentCommits(n) {
      if (!(await hasHead())) return [];
      const log = await runGit(root, ['log', `-n${n}`, '--no-merges', `--format=${LOG_FORMAT}`, '--name-only', '-z', '--no-renames']);
      const commits: CommitDiff[] = [];
      for (const { ref, files } of parse(log)) {
        if (files.length > REVIEWABLE_FILES) {
          commits.push({ ...ref, files: [], unreviewable: 'bulk' });
          continue;
        }
        // No parent here: the first commit, or the oldest of a shallow clone (its parents were cut).
        if ((await tryGit(root, ['rev-parse', '--verify', '-q', `${ref.sha}^`])) === null) {
          commits.push({ ...ref, files: [], unreviewable: 'root' });
          continue;
        }
        const paths = files.filter(inScope);
        const diffs = paths.length === 0 ? [] : await patchesOf(['show', '--format=', ref.sha], paths);
        commits.push({ ...ref, files: diffs });
      }
      return commits;
    },

    async showAt(commit, path) {
      if (!inScope(path)) return undefined;
      const text = await tryGit(root, ['show', `${commit}:${path}`]);
      return text === null ? undefined : redactText(text, policy.redactPatterns);
    },

    async nameAt(commit, path) {
      // -z: NUL-separated fields (`R100`, old name, new name), so a name may hold any character.
      const log = await tryGit(root, ['log', '--follow', '--diff-filter=R', '--name-status', '-z', '--format=', `${commit}..HEAD`, '--', `:(literal)${path}`]);
      // Newest first: the last rename listed is the oldest, and its old name is the name at `commit`.
      const oldest = renameSources(log ?? '').pop();
      return oldest !== undefined && oldest !== '' ? oldest : path;
    },

    async commitDiff(sha) {
      const listed = await tryGit(root, ['show', '--format=', '--name-only', '-z', '--no-renames', sha]);
      return patchesOf(['show', '--format=', sha], splitZ(listed ?? '').filter(inScope));
    },

    async history() {
      if (!(await hasHead())) return { commits: [], complete: true, position: () => -1, lastTouch: () => undefined, touches: () => [] };
      return buildHistoryIndex(root, policy, (text) => redactText(text, policy.redactPatterns));
    },

    async removals(words, pathspecs) {
      if (!(await hasHead())) return NO_REMOVALS;
      return buildRemovalIndex(root, policy, (text) => redactText(text, policy.redactPatterns), words, undefined, pathspecs);
    },

    async isAncestor(ancestor, descendant) {
      return (await tryGit(root, ['merge-base', '--is-ancestor', ancestor, descendant])) !== null;
    },

    async blame(path, lines) {
      const wanted = lines === 'all' ? [] : [...new Set(lines)].filter((l) => Number.isInteger(l) && l > 0).slice(0, BLAME_RANGES);
      if (!inScope(path) || (lines !== 'all' && wanted.length === 0)) return new Map();
      // No textconv (it runs the user's programs); HEAD, so the working tree is never read or refreshed.
      // Without a HEAD (or with a line past the file's end) git fails: nothing is known.
      const out = await tryGit(root, ['blame', '--porcelain', '-w', '--no-textconv', ...wanted.flatMap((l) => ['-L', `${l},${l}`]), 'HEAD', '--', path]);
      return parseBlame(out ?? '');
    },

  };
}

/** Lines blamed in one call at most (a doc's mentions); more are blamed as a whole file. */
export const BLAME_RANGES = 50;

/** Final line → commit, from `git blame --porcelain` (a header `<sha> <orig> <final>[ <count>]` per line). */
export function parseBlame(text: string): Map<number, string> {
  const out = new Map<number, string>();
  for (const m of text.matchAll(/^([0-9a-f]{40}) \d+ (\d+)/gm)) out.set(Number(m[2]), m[1] as string);
  return out;
}

function splitLines(text: string): string[] {
  if (text === '') return [];
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  return lines;
}

/**
 * The paths `git status --porcelain=v2 -z` lists as changed: ordinary (`1`), renamed (`2`, whose
 * original path follows as its own field) and unmerged (`u`) entries; the path is whatever follows
 * the entry's fixed fields, spaces included.
 */
export function statusPaths(text: string): string[] {
  const fields = splitZ(text);
  const paths: string[] = [];
  for (let i = 0; i < fields.length; i++) {
    const entry = fields[i] as string;
    const fixed = STATUS_FIXED_FIELDS[entry[0] ?? ''];
    if (fixed === undefined) continue;
    paths.push(entry.split(' ').slice(fixed).join(' '));
    if (entry[0] === '2') i++;
  }
  return paths;
}

/** Space-separated fields before the path, per porcelain v2 entry type. */
const STATUS_FIXED_FIELDS: Record<string, number> = { '1': 8, '2': 9, u: 10 };

/** The old names of `--name-status -z` rename entries (`R<score>\0old\0new\0`), in output order. */
function renameSources(text: string): string[] {
  const fields = text.split('\0');
  const sources: string[] = [];
  for (let i = 0; i < fields.length; i++) {
    const status = (fields[i] ?? '').replace(/^\n+/, ''); // an empty --format leaves a newline per commit
    if (/^[RC]\d*$/.test(status)) {
      if (status.startsWith('R')) sources.push(fields[i + 1] ?? '');
      i += 2;
    } else if (/^[AMDTUX]$/.test(status)) i += 1;
  }
  return sources;
}

function splitZ(text: string): string[] {
  return text.split('\0').filter((s) => s !== '');
}


/** Parses git's unified diff output into file diffs (renames and new/deleted files recognised). */
export function parseGitPatch(text: string): FileDiff[] {
  if (text.trim() === '') return [];
  const patches: StructuredPatch[] = parsePatch(text);
  const headers = [...text.matchAll(/^diff --git a\/(.+?) b\/(.+)$/gm)];
  const blocks = text.split(/^diff --git /m).slice(1);
  return patches.map((p, i) => {
    const block = blocks[i] ?? '';
    const header = headers[i];
    const oldName = strip(p.oldFileName) ?? header?.[1];
    const newName = strip(p.newFileName) ?? header?.[2];
    const renamedFrom = /^rename from (.+)$/m.exec(block)?.[1];
    const renamedTo = /^rename to (.+)$/m.exec(block)?.[1];
    let status: FileDiff['status'] = 'modified';
    if (/^new file mode/m.test(block)) status = 'added';
    else if (/^deleted file mode/m.test(block)) status = 'deleted';
    else if (renamedFrom !== undefined) status = 'renamed';
    const path = status === 'deleted' ? (oldName ?? '') : (renamedTo ?? newName ?? oldName ?? '');
    const diff: FileDiff = {
      path,
      status,
      hunks: p.hunks.map((h) => ({ oldStart: h.oldStart, oldLines: h.oldLines, newStart: h.newStart, newLines: h.newLines, lines: h.lines })),
    };
    if (status === 'renamed' && renamedFrom !== undefined) diff.oldPath = renamedFrom;
    return diff;
  });
}

function strip(name: string | undefined): string | undefined {
  if (name === undefined || name === '/dev/null') return undefined;
  return name.replace(/^[ab]\//, '');
}
