import path from 'node:path';

const posix = path.posix;

const SCRIPT_EXTENSIONS = ['.ts', '.tsx', '.d.ts', '.js', '.jsx', '.mjs', '.cjs', '.mts', '.cts'];
const SCRIPT_LANGUAGES = new Set(['typescript', 'tsx', 'javascript']);

/**
 * Best-effort resolution of an import (as `extractSymbols` reports its `source`) to a repository path.
 * Paths are repository-relative with `/`. Returns undefined for packages outside the repository or
 * when nothing in `knownPaths` fits.
 * - TypeScript/JavaScript: relative specifiers only; tries the path as written, with script
 *   extensions, `.js`→`.ts` (ESM-style TypeScript), then `index.*` inside a folder.
 * - Python: relative (`.mod`, `..pkg.mod`, `.`) from the importing file's folder; absolute
 *   (`pkg.mod`) as `pkg/mod.py` or `pkg/mod/__init__.py` at the root or under any folder (e.g. `src/`).
 * - Go: the longest suffix of the import path that is a folder holding `.go` files; returns its first
 *   non-test file in name order (a package is a folder, not a file).
 * - Java: `a.b.C` → `a/b/C.java` under any source root; a static member import drops its last part;
 *   a package (`a.b`, wildcard) returns the first `.java` file of that folder.
 * - Rust: `crate::a::b`, `self::…`, `super::…`, `mod x;` → `a/b.rs` or `a/b/mod.rs`, tried shortest
 *   prefix of the path last so items (`crate::a::Item`) resolve to their module.
 * With a plain Set each call scans `knownPaths` at most a few times (fine per file); with a `PathSet`
 * the suffix lookups (Python, Go, Java) read an index of it, rebuilt only after it changed.
 */
export function resolveImport(
  fromPath: string,
  source: string,
  language: string,
  knownPaths: Set<string>,
): string | undefined {
  if (SCRIPT_LANGUAGES.has(language)) return resolveScript(fromPath, source, knownPaths);
  switch (language) {
    case 'python':
      return resolvePython(fromPath, source, knownPaths);
    case 'go':
      return resolveGo(fromPath, source, knownPaths);
    case 'java':
      return resolveJava(fromPath, source, knownPaths);
    case 'rust':
      return resolveRust(fromPath, source, knownPaths);
    default:
      return undefined;
  }
}

function first(candidates: readonly string[], knownPaths: Set<string>): string | undefined {
  return candidates.find((candidate) => knownPaths.has(candidate));
}

/** Normalise a joined path; undefined when it climbs above the repository root. */
function inRepo(joined: string): string | undefined {
  const normal = posix.normalize(joined).replace(/^\.\//, '');
  return normal === '..' || normal.startsWith('../') ? undefined : normal.replace(/\/$/, '');
}

function resolveScript(fromPath: string, source: string, knownPaths: Set<string>): string | undefined {
  if (!source.startsWith('./') && !source.startsWith('../') && source !== '.' && source !== '..') return undefined;
  const base = inRepo(posix.join(posix.dirname(fromPath), source));
  if (base === undefined) return undefined;
  const candidates = [base, ...SCRIPT_EXTENSIONS.map((ext) => base + ext)];
  const withoutJs = /\.(m|c)?jsx?$/.exec(base);
  if (withoutJs) {
    const stem = base.slice(0, withoutJs.index);
    candidates.push(stem + '.ts', stem + '.tsx', stem + '.mts', stem + '.cts', stem + '.d.ts');
  }
  candidates.push(...SCRIPT_EXTENSIONS.map((ext) => posix.join(base, 'index' + ext)));
  return first(candidates, knownPaths);
}

function pythonModule(base: string, knownPaths: Set<string>): string | undefined {
  return first(base === '' ? ['__init__.py'] : [base + '.py', posix.join(base, '__init__.py')], knownPaths);
}

function resolvePython(fromPath: string, source: string, knownPaths: Set<string>): string | undefined {
  const dots = /^\.*/.exec(source)?.[0].length ?? 0;
  const rest = source.slice(dots).split('.').filter(Boolean).join('/');
  if (dots > 0) {
    let folder = posix.dirname(fromPath);
    for (let level = 1; level < dots; level += 1) folder = posix.dirname(folder);
    const base = inRepo(posix.join(folder, rest));
    return base === undefined ? undefined : pythonModule(base === '.' ? '' : base, knownPaths);
  }
  if (rest === '') return undefined;
  return pythonModule(rest, knownPaths) ?? bySuffix(fromPath, [rest + '.py', rest + '/__init__.py'], knownPaths);
}

/**
 * The indexed paths, counting their changes: an index of their suffixes (`SuffixIndex`) is then built
 * once per change instead of every path being scanned per import. A cold index of rclone (2,248 files,
 * Go) spent most of its time scanning for its imports' folders, most of them other modules'.
 */
export class PathSet extends Set<string> {
  #version = 0;

  /** No initial items: the Set constructor would call `add` before `#version` exists. */
  constructor() {
    super();
  }

  /** Grows by one on every change of the set's content. */
  get version(): number {
    return this.#version;
  }

  override add(value: string): this {
    if (!super.has(value)) this.#version++;
    return super.add(value);
  }

  override delete(value: string): boolean {
    const had = super.delete(value);
    if (had) this.#version++;
    return had;
  }

  override clear(): void {
    this.#version++;
    super.clear();
  }
}

/** Each path and each folder under every `/`-suffix of it (`a/b/c.go` under `a/b/c.go`, `b/c.go`, `c.go`). */
interface SuffixIndex {
  version: number;
  paths: Map<string, string[]>;
  folders: Map<string, string[]>;
  /** The files directly inside each folder. */
  inFolder: Map<string, string[]>;
}

const suffixIndexes = new WeakMap<PathSet, SuffixIndex>();

function push(map: Map<string, string[]>, key: string, value: string): void {
  const list = map.get(key);
  if (list === undefined) map.set(key, [value]);
  else list.push(value);
}

/** Every `/`-suffix of a path, itself first. */
function suffixesOf(p: string): string[] {
  const out = [p];
  for (let i = p.indexOf('/'); i >= 0; i = p.indexOf('/', i + 1)) out.push(p.slice(i + 1));
  return out;
}

function suffixIndex(known: PathSet): SuffixIndex {
  const cached = suffixIndexes.get(known);
  if (cached !== undefined && cached.version === known.version) return cached;
  const index: SuffixIndex = { version: known.version, paths: new Map(), folders: new Map(), inFolder: new Map() };
  for (const p of known) {
    for (const suffix of suffixesOf(p)) push(index.paths, suffix, p);
    const folder = posix.dirname(p);
    if (!index.inFolder.has(folder)) for (const suffix of suffixesOf(folder)) push(index.folders, suffix, folder);
    push(index.inFolder, folder, p);
  }
  suffixIndexes.set(known, index);
  return index;
}

/** Known paths equal to or ending in `/<suffix>`, the one nearest to `fromPath` (then shortest, then by name). */
function bySuffix(fromPath: string, suffixes: readonly string[], knownPaths: Set<string>): string | undefined {
  if (knownPaths instanceof PathSet) {
    const index = suffixIndex(knownPaths);
    return nearest(fromPath, [...new Set(suffixes.flatMap((suffix) => index.paths.get(suffix) ?? []))]);
  }
  const matches: string[] = [];
  for (const known of knownPaths) {
    if (suffixes.some((suffix) => known === suffix || known.endsWith('/' + suffix))) matches.push(known);
  }
  return nearest(fromPath, matches);
}

function sharedDepth(a: string, b: string): number {
  const left = a.split('/');
  const right = b.split('/');
  let depth = 0;
  while (depth < left.length && depth < right.length && left[depth] === right[depth]) depth += 1;
  return depth;
}

function nearest(fromPath: string, candidates: readonly string[]): string | undefined {
  return [...candidates].sort(
    (a, b) => sharedDepth(fromPath, b) - sharedDepth(fromPath, a) || a.length - b.length || a.localeCompare(b),
  )[0];
}

/** First file (by name) directly inside a folder whose path ends with `folderSuffix`, nearest to `fromPath`. */
function fileInFolder(
  fromPath: string,
  folderSuffix: string,
  accept: (file: string) => boolean,
  knownPaths: Set<string>,
): string | undefined {
  const byFolder = new Map<string, string>();
  // With a PathSet, only the files of folders that end with the suffix; else every known path.
  const index = knownPaths instanceof PathSet ? suffixIndex(knownPaths) : undefined;
  const candidates = index === undefined ? knownPaths : (index.folders.get(folderSuffix) ?? []).flatMap((f) => index.inFolder.get(f) ?? []);
  for (const known of candidates) {
    const folder = posix.dirname(known);
    if (!(folder === folderSuffix || folder.endsWith('/' + folderSuffix)) || !accept(posix.basename(known))) continue;
    const seen = byFolder.get(folder);
    if (seen === undefined || known < seen) byFolder.set(folder, known);
  }
  const folder = nearest(fromPath, [...byFolder.keys()]);
  return folder === undefined ? undefined : byFolder.get(folder);
}

function resolveGo(fromPath: string, source: string, knownPaths: Set<string>): string | undefined {
  const parts = source.split('/').filter(Boolean);
  const isSource = (file: string): boolean => file.endsWith('.go') && !file.endsWith('_test.go');
  // Longest suffix first: `github.com/org/repo/internal/foo` matches `internal/foo` in the repository.
  for (let start = 0; start < parts.length; start += 1) {
    const found = fileInFolder(fromPath, parts.slice(start).join('/'), isSource, knownPaths);
    if (found) return found;
  }
  return undefined;
}

function resolveJava(fromPath: string, source: string, knownPaths: Set<string>): string | undefined {
  const parts = source.replace(/\.\*$/, '').split('.').filter(Boolean);
  if (parts.length === 0) return undefined;
  return (
    bySuffix(fromPath, [parts.join('/') + '.java'], knownPaths) ??
    (parts.length > 1 ? bySuffix(fromPath, [parts.slice(0, -1).join('/') + '.java'], knownPaths) : undefined) ??
    fileInFolder(fromPath, parts.join('/'), (file) => file.endsWith('.java'), knownPaths)
  );
}

/** Folder that holds a Rust file's child modules: its own folder for `mod.rs`/`lib.rs`/`main.rs`, else `<stem>/`. */
function rustModuleFolder(fromPath: string): string {
  const file = posix.basename(fromPath);
  const folder = posix.dirname(fromPath);
  return ['mod.rs', 'lib.rs', 'main.rs'].includes(file) ? folder : posix.join(folder, file.replace(/\.rs$/, ''));
}

function resolveRust(fromPath: string, source: string, knownPaths: Set<string>): string | undefined {
  const parts = source.split('::').filter(Boolean);
  const head = parts[0];
  let folder: string | undefined;
  let rest = parts;
  if (head === 'crate') {
    // The crate root is the nearest `src/` above the file (or the repository root).
    const srcAt = fromPath.lastIndexOf('src/');
    folder = srcAt >= 0 ? fromPath.slice(0, srcAt + 'src'.length) : '';
    rest = parts.slice(1);
  } else if (head === 'self' || head === 'super') {
    folder = rustModuleFolder(fromPath);
    while (rest[0] === 'self' || rest[0] === 'super') {
      if (rest[0] === 'super') folder = posix.dirname(folder);
      rest = rest.slice(1);
    }
  } else if (parts.length === 1 && head !== undefined) {
    folder = rustModuleFolder(fromPath); // `mod x;` or `use x;` of a sibling module
  } else {
    return undefined; // another crate (std, serde, …)
  }
  for (let end = rest.length; end > 0; end -= 1) {
    const base = inRepo(posix.join(folder === '' ? '.' : folder, ...rest.slice(0, end)));
    if (base === undefined) return undefined;
    const found = first([base + '.rs', posix.join(base, 'mod.rs')], knownPaths);
    if (found) return found;
  }
  return undefined;
}
