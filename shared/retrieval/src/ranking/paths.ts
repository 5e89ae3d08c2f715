/** File paths mentioned in free text, and how a mentioned path matches a repository path. */

/** A path the prompt mentions, with the line when written as `path:line`. */
export interface MentionedPath {
  /** As written, minus a leading `./` and with `\` turned into `/`. */
  path: string;
  line?: number;
}

/**
 * Extensions that make a dotted word a file name. Without this list `user.name` or `e.g.` would
 * read as paths.
 */
export const SOURCE_EXTENSIONS: ReadonlySet<string> = new Set([
  'ts', 'tsx', 'mts', 'cts', 'js', 'jsx', 'mjs', 'cjs', 'vue', 'svelte', 'py', 'pyi', 'rb', 'go', 'rs',
  'java', 'kt', 'kts', 'scala', 'groovy', 'gradle', 'c', 'h', 'cc', 'cpp', 'cxx', 'hpp', 'cs', 'php',
  'swift', 'm', 'mm', 'lua', 'sh', 'bash', 'zsh', 'sql', 'json', 'yaml', 'yml', 'toml', 'ini', 'cfg',
  'xml', 'html', 'css', 'scss', 'less', 'md', 'txt', 'proto', 'graphql', 'tf', 'lock', 'env',
]);

const PATH_RE = /(?:^|[\s'"`(\[<,=])((?:\.{1,2}[\\/]|[\\/]|[A-Za-z]:[\\/])?(?:[\w@.+-]+[\\/])*[\w@+-][\w@.+-]*\.([A-Za-z][A-Za-z0-9]{0,9}))(?::(\d+))?(?::\d+)?(?=$|[\s'"`)\]>,;:.!?])/gm;
// Bounded scheme length keeps this linear on long dotted runs.
const URL_RE = /\b[a-z][a-z0-9+.-]{0,15}:\/\/\S+/gi;

// A file in a repository browser link: github.com/o/r/blob/<ref>/<path>, gitlab's /-/blob/, and the
// raw and tree forms. The ref is one segment (a branch with slashes would eat the path's head).
const REPO_URL_RE = /\bhttps?:\/\/(?:www\.)?(?:github\.com|gitlab\.com|bitbucket\.org|raw\.githubusercontent\.com)\/[\w.-]+\/[\w.-]+\/(?:-\/)?(?:(?:blob|tree|raw|src)\/)?[\w.-]+\/([\w@.+/-]+\.[A-Za-z][A-Za-z0-9]{0,9})(?:#L(\d+))?/g;

/** Repository files linked in the text (`…/blob/main/src/x.py#L12` → `src/x.py`, line 12). */
export function linkedPaths(text: string): MentionedPath[] {
  const out: MentionedPath[] = [];
  for (const m of text.matchAll(REPO_URL_RE)) {
    const path = m[1] ?? '';
    const ext = path.slice(path.lastIndexOf('.') + 1).toLowerCase();
    if (!SOURCE_EXTENSIONS.has(ext)) continue;
    out.push(m[2] === undefined ? { path } : { path, line: Number(m[2]) });
  }
  return out;
}

/** Replaces URLs with spaces so their segments are not read as paths or identifiers. */
export function stripUrls(text: string): string {
  return text.replace(URL_RE, (url) => ' '.repeat(url.length));
}

/** Normalizes a path for comparison: `/` separators, no leading `./`, `/` or drive letter. */
export function normalizePath(path: string): string {
  return path.replace(/\\/g, '/').replace(/^[A-Za-z]:\//, '/').replace(/^(\.\.?\/)+/, '').replace(/^\/+/, '');
}

/**
 * Paths mentioned in text (`src/app/user.ts`, `user.py`, `./lib/x.js:42`), deduplicated by path and
 * line in order of appearance. Also returns the text with those mentions blanked out, so that
 * identifier extraction does not read `user.py` as `user` + `py`.
 */
export function extractPaths(text: string): { paths: MentionedPath[]; rest: string } {
  const clean = stripUrls(text);
  const paths: MentionedPath[] = [];
  const seen = new Set<string>();
  for (const linked of linkedPaths(text)) {
    const key = `${linked.path}:${linked.line ?? ''}`;
    if (!seen.has(key)) {
      seen.add(key);
      paths.push(linked);
    }
  }
  const rest = clean.replace(PATH_RE, (whole, raw: string, ext: string, line: string | undefined) => {
    if (!SOURCE_EXTENSIONS.has(ext.toLowerCase())) return whole;
    const path = raw.replace(/\\/g, '/').replace(/^\.\//, '');
    const key = `${path}:${line ?? ''}`;
    if (!seen.has(key)) {
      seen.add(key);
      paths.push(line === undefined ? { path } : { path, line: Number(line) });
    }
    return ' '.repeat(whole.length);
  });
  return { paths, rest };
}

/**
 * The last segment of a normalized path (`user.py` for `C:\\app\\user.py`). Two paths that
 * `pathMatches` always share it, so an index can look candidates up by it instead of testing all.
 */
export function pathBase(path: string): string {
  const normalized = normalizePath(path);
  return normalized.slice(normalized.lastIndexOf('/') + 1);
}

/**
 * True when a prompt path names a repository file: equal, a suffix on a `/` boundary
 * (`user.py` names `app/models/user.py`), or, for absolute paths from a traceback, the file path is
 * a suffix of it (`/home/u/app/src/x.py` names `src/x.py`).
 */
export function pathMatches(promptPath: string, filePath: string): boolean {
  const prompt = normalizePath(promptPath);
  const file = normalizePath(filePath);
  if (prompt.length === 0 || file.length === 0) return false;
  return prompt === file || file.endsWith(`/${prompt}`) || prompt.endsWith(`/${file}`);
}
