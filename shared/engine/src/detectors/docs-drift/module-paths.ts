/**
 * Python dotted paths in docs (`pkg.mod.func`, `:func:\`~pkg.mod.Class\``): which module file a path
 * names now, and whether the rest of it still lives there. A dotted path counts only when its first
 * word is a package of this repository (a folder with `__init__.py`); `os.path.join` or
 * `django.conf.settings` are other projects' names and are never checked.
 */
import * as path from 'node:path';
import type { RepositoryView } from '../../view/repository-view';

/** The repository's Python packages, by dotted module name. */
export interface PythonModules {
  /** Outermost package names (`pkg` for `src/pkg/__init__.py`). */
  readonly top: ReadonlySet<string>;
  /** The file of module `dotted` now (`pkg/mod.py` or `pkg/mod/__init__.py`), if any. */
  file(dotted: string): string | undefined;
  /** The dotted module name of a `.py` file inside a package, if any. */
  nameOf(filePath: string): string | undefined;
  /** The paths module `dotted` would have (both forms), under its package's folder. */
  pathsFor(dotted: string): string[];
}

/** What a dotted mention resolves to now. */
export type DottedResolution =
  | { state: 'exists' }
  /** `module` (dotted) has no file now; `paths` are where it would be. */
  | { state: 'missing_module'; module: string; paths: string[] }
  /** The module exists (`file`), but `attribute` is neither defined nor imported there. */
  | { state: 'missing_attribute'; module: string; file: string; attribute: string };

export function pythonModules(paths: readonly string[]): PythonModules {
  const inits = new Set(paths.filter((p) => path.posix.basename(p) === '__init__.py').map((p) => path.posix.dirname(p)));
  const byName = new Map<string, string>();
  const roots = new Map<string, string>(); // top package → the folder that holds it ('' or 'src')
  const nameOf = (file: string): string | undefined => {
    if (!file.endsWith('.py')) return undefined;
    let dir = path.posix.dirname(file);
    if (!inits.has(dir)) return undefined;
    while (inits.has(path.posix.dirname(dir)) && path.posix.dirname(dir) !== '.') dir = path.posix.dirname(dir);
    const base = path.posix.dirname(dir) === '.' ? '' : path.posix.dirname(dir);
    const rel = base === '' ? file : file.slice(base.length + 1);
    const dotted = rel.replace(/\.py$/, '').replace(/\/__init__$/, '').split('/').join('.');
    return /^[A-Za-z_][\w.]*$/.test(dotted) ? dotted : undefined;
  };
  for (const p of paths) {
    const name = nameOf(p);
    if (name === undefined) continue;
    // `pkg/mod.py` wins over a stray `pkg/mod/__init__.py` only if both exist; either names the module.
    if (!byName.has(name) || p.endsWith('__init__.py')) byName.set(name, p);
    const top = name.split('.')[0] ?? name;
    if (!roots.has(top)) {
      const depth = name.split('.').length - (p.endsWith('__init__.py') ? 0 : 1);
      let dir = path.posix.dirname(p);
      for (let i = 0; i < depth; i++) dir = path.posix.dirname(dir);
      roots.set(top, dir === '.' ? '' : dir);
    }
  }
  return {
    top: new Set(roots.keys()),
    file: (dotted) => byName.get(dotted),
    nameOf,
    pathsFor(dotted) {
      const top = dotted.split('.')[0] ?? dotted;
      const root = roots.get(top);
      if (root === undefined) return [];
      const rel = dotted.split('.').join('/');
      const base = root === '' ? rel : `${root}/${rel}`;
      return [`${base}.py`, `${base}/__init__.py`];
    },
  };
}

/** Whether `text` holds `word` as a whole word (a definition, an import, an assignment). */
function holdsWord(text: string, word: string): boolean {
  return new RegExp(`(?<![\\w$])${word.replace(/[$]/g, '\\$')}(?![\\w$])`).test(text);
}

/**
 * Where a dotted mention stands now, or undefined when it is not a path into this repository's
 * packages. `everExisted(path)` says whether a module file was ever seen in history (a lowercase word
 * after a module may be a submodule or an attribute; history decides).
 */
export function resolveDotted(view: RepositoryView, modules: PythonModules, dotted: string, everExisted: (file: string) => boolean): DottedResolution | undefined {
  const segments = dotted.split('.');
  if (segments.length < 2 || !modules.top.has(segments[0] ?? '')) return undefined;
  let k = segments.length;
  while (k > 0 && modules.file(segments.slice(0, k).join('.')) === undefined) k--;
  if (k === 0) return undefined;
  if (k === segments.length) return { state: 'exists' };
  const module = segments.slice(0, k).join('.');
  const file = modules.file(module) as string;
  const next = segments[k] as string;
  const text = view.text(file);
  // Defined, imported or assigned in that module: what follows (`Class.method`) is not checked.
  if (text === undefined || holdsWord(text, next)) return { state: 'exists' };
  const submodule = segments.slice(0, k + 1).join('.');
  const paths = modules.pathsFor(submodule);
  if (paths.some(everExisted)) return { state: 'missing_module', module: submodule, paths };
  return { state: 'missing_attribute', module, file, attribute: next };
}
