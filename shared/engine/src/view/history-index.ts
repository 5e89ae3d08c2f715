/**
 * The newest commits read once per cycle: which commit last touched each in-scope file (names only).
 * And, for docs drift, which commits removed some words from in-scope files: docs ask "what removed
 * `parseConfig`?" for every name they lack; one streamed `git log -p` answers all of them instead of
 * one `git log -S` each. Only words are kept, never lines.
 */
import type { ScopePolicy } from '@sous/retrieval';
import { runGit, streamGitLines } from '@sous/retrieval';
import type { CommitRef } from './git-history';
import { isProjectSource } from './file-roles';
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
/**
 * A word used as a flag: `--jsx`, or quoted (`'jsx'`, `"dry-run"`), as option parsers take them.
 * Asked for as `--jsx`: the bare word `jsx` is in every `.jsx` file name, and the commits that
 * removed it as a word bury the one that removed the flag.
 */
const FLAG_USE = /(?:--|["'`])([A-Za-z][\w-]*)/g;

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
/** More pathspecs than this and the narrow search is not tried (a command line stays short). */
const MAX_PATHSPECS = 160;

/**
 * Files whose diffs cannot take a code name away: docs, man pages included (a doc's own edits are not the code's),
 * images, media, fonts, archives, compiled output and lock files. Their lines are not read, so a
 * commit that only edited them never takes a removing commit's place. (Filtered here, not by git
 * pathspecs: git matches every pathspec against every path of every commit, many times slower.)
 */
const NOT_CODE_FILE =
  /\.(?:md|mdx|markdown|rst|txt|adoc|asciidoc|asc|texi|pod|org|[1-9]|png|jpe?g|gif|bmp|ico|icns|webp|tiff?|psd|svg|mp4|mov|webm|avi|mkv|mp3|wav|ogg|flac|woff2?|ttf|otf|eot|pdf|zip|t?gz|bz2|xz|7z|tar|jar|war|whl|egg|exe|dll|so|dylib|a|o|obj|bin|class|pyc|wasm|lock|snap)$|(?:^|\/)(?:package-lock\.json|pnpm-lock\.yaml|go\.sum)$/i;

/** Common source, script and config file types (the narrow search always includes them). */
const SOURCE_TYPES = 'py pyi js cjs mjs jsx ts cts mts tsx go rs rb java kt c h cc cpp hpp cs swift php sh bash zsh fish ps1 toml yaml yml json ini cfg';

/** Which commits removed some words from in-scope files of the project's own code, newest first. */
export interface RemovalIndex {
  removing(word: string): readonly CommitRef[];
  /** The newest commit that deleted (or, read without renames, moved away) an in-scope file. */
  deleting(path: string): CommitRef | undefined;
}

/** An index that knows nothing (no history, or none could be read). */
export const NO_REMOVALS: RemovalIndex = { removing: () => [], deleting: () => undefined };

/**
 * The pathspecs that cover the code among `paths` (the indexed, in-scope non-doc files): one per
 * extension (`*.go`, in any folder) and per extensionless name (`Makefile`, in any folder), plus common
 * source types; undefined when there are too many kinds of file to list. The fallback search when
 * the whole tree's reached a blob a partial clone lacks (a compiled test binary with no telling
 * extension): text file types are never such blobs.
 */
export function codePathspecs(paths: readonly string[]): string[] | undefined {
  // Source and script types a repository may have had and no longer has (a deleted completion script).
  const specs = new Set<string>(SOURCE_TYPES.split(' ').map((ext) => `*.${ext}`));
  for (const p of paths) {
    const base = p.slice(p.lastIndexOf('/') + 1);
    const dot = base.lastIndexOf('.');
    const name = dot > 0 ? base.slice(dot) : base;
    // Pathspecs are literal apart from * ? [ and backslash: a name holding those is skipped, not escaped.
    if (/[*?[\\]/.test(name) || NOT_CODE_FILE.test(base)) continue;
    if (dot > 0) specs.add(`*${name}`);
    else for (const spec of [name, `*/${name}`]) specs.add(spec);
    if (specs.size > MAX_PATHSPECS) return undefined;
  }
  return [...specs].sort();
}

/**
 * The commits among the newest `window` whose removed lines (in-scope files) hold one of `words`,
 * and which commit deleted each in-scope file
 * (a word asked for as `--name` is matched where it is used as a flag, see FLAG_USE).
 * One `git log -p` over the window, read as a stream: each removed line's words are looked up in a
 * set, so the cost does not grow with the number of words (git's `-G` with an alternation of
 * hundreds of words was slower than reading every patch, and it ran once per batch of words). Only
 * the words are kept, and only from files that can hold code (NOT_CODE_FILE). When git stops at a
 * blob a partial clone lacks, the history is read again in `narrow` files only (see codePathspecs),
 * and else goes without history.
 */
export async function buildRemovalIndex(
  root: string,
  policy: ScopePolicy,
  redact: (text: string) => string,
  words: readonly string[],
  window = REMOVAL_WINDOW,
  narrow?: readonly string[],
): Promise<RemovalIndex> {
  const wanted = new Set(words.filter((w) => w !== ''));
  const flags = [...wanted].some((w) => w.startsWith('--'));
  // The window ends at the oldest of the newest `window` commits; everything newer than it is read,
  // side branches merged since included (a plain `-n` would cut those in a merge-heavy history).
  const newest = (await runGit(root, ['rev-list', '--no-merges', `-n${window}`, 'HEAD']).catch(() => '')).split('\n').filter((l) => l !== '');
  const bound = newest.length >= window ? ['--not', `${newest[newest.length - 1]}^@`] : [];
  const searches = [[], ...(narrow !== undefined && narrow.length > 0 ? [['--', ...narrow]] : [])];
  for (const files of searches) {
    const found = new Map<string, CommitRef[]>();
    const deleted = new Map<string, CommitRef>();
    let ref: CommitRef | undefined;
    let inScope = false;
    let oldPath: string | undefined;
    const onLine = (line: string): void => {
      if (line.startsWith(RECORD)) {
        const [sha = '', ct = '0', subject = ''] = line.slice(1).split(FIELD);
        ref = { sha, time: Number(ct) * 1000, subject: redact(subject) };
        return;
      }
      if (line.startsWith('diff --git ')) {
        inScope = false;
        oldPath = undefined;
        return;
      }
      if (line === '+++ /dev/null') {
        // Newest first: the first deletion seen is the newest.
        if (ref !== undefined && oldPath !== undefined && !deleted.has(oldPath) && policy.inScope(oldPath)) deleted.set(oldPath, ref);
        return;
      }
      if (line.startsWith('--- ')) {
        oldPath = line.startsWith('--- a/') ? line.slice(6) : undefined;
        // The project's own code only: a test, snapshot or example that dropped a word never removed it.
        inScope = line.startsWith('--- a/') && policy.inScope(line.slice(6)) && !NOT_CODE_FILE.test(line.slice(6)) && isProjectSource(line.slice(6));
        return;
      }
      if (ref === undefined || !inScope || !line.startsWith('-')) return;
      const at = ref;
      const record = (key: string): void => {
        if (!wanted.has(key)) return;
        const commits = found.get(key);
        if (commits === undefined) found.set(key, [at]);
        else if (commits[commits.length - 1] !== at) commits.push(at);
      };
      for (const word of line.slice(1).match(WORD) ?? []) {
        record(word);
        if (word.includes('-')) for (const part of word.split('-')) record(part);
      }
      if (flags) for (const m of line.slice(1).matchAll(FLAG_USE)) record(`--${m[1] ?? ''}`);
    };
    const complete = await streamGitLines(root, ['log', '--no-merges', `--format=${FORMAT}`, '-p', '-U0', '--no-color', '--no-ext-diff', '--no-textconv', '--no-renames', 'HEAD', ...bound, ...files], onLine);
    if (complete) return { removing: (word) => found.get(word) ?? [], deleting: (path) => deleted.get(path) };
  }
  // A partial clone lacks some blobs and git stops at the first: the words go without history (no
  // card) rather than failing the detector for every doc.
  return NO_REMOVALS;
}
