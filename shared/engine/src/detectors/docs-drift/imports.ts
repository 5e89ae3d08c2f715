/**
 * Where a name is imported from, read off code lines: `from django.db.models.signals import post_save`,
 * `import { writeFile } from 'fs'`, `const { join } = require('path')`, `use tower::ServiceBuilder;`.
 * A name a line imports from another project's module is that project's: docs drift never reads it
 * as the repository's own (Django's `post_save` in Django REST framework's docs, `logging.config`'s
 * `fileConfig` that pyramid once imported).
 */
import { escapeRegExp } from './regexp';

/** A line that starts an import: Python's `from … import`, JS `import`/`export … from`/`require`, Rust `use`. */
const IMPORT_START = /^\s*(?:from\s+[\w.]+\s+import\s|import\s|export\s[^=]*\bfrom\s|(?:const|let|var)\s[^=]*=\s*require\(|(?:pub(?:\([^)]*\))?\s+)?use\s)/;

/**
 * The import statements among `lines`, each on one line: one written over several lines (`from x
 * import (` … `)`, `import {` … `} from 'x'`, `use x::{` … `};`) is joined (at most 50 lines).
 */
export function importLines(lines: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] ?? '';
    if (!IMPORT_START.test(line)) continue;
    const open = /[({]/.exec(line.replace(/#.*$|\/\/.*$/, ''));
    const closer = open === null ? undefined : open[0] === '(' ? ')' : '}';
    if (closer === undefined || line.includes(closer, open?.index)) {
      out.push(line);
      continue;
    }
    const parts = [line];
    for (let j = i + 1; j < lines.length && j <= i + 50; j++) {
      parts.push((lines[j] ?? '').replace(/#.*$/, ''));
      i = j;
      if ((lines[j] ?? '').includes(closer)) break;
    }
    out.push(parts.join(' '));
  }
  return out;
}

/**
 * The modules `statements` (from `importLines`) import `name` from, as written:
 * `django.db.models.signals`, `fs`, `tower`.
 */
export function importSources(statements: readonly string[], name: string): string[] {
  const n = escapeRegExp(name);
  const word = new RegExp(`\\b${n}\\b`);
  const listed = new RegExp(`(?:^|[\\s{(,])${n}(?:\\s+as\\s+\\w+)?\\s*(?:[,})]|$)`);
  const jsNamed = new RegExp(`^${n}\\b|\\{[^}]*\\b${n}\\b[^}]*\\}|\\*\\s+as\\s+${n}\\b`);
  const required = new RegExp(`^\\s*(?:const|let|var)\\s+(?:${n}|\\{[^}]*\\b${n}\\b[^}]*\\})\\s*=\\s*require\\(\\s*['"]([^'"]+)['"]\\s*\\)`);
  const rustListed = new RegExp(`(?:^|[\\s,])${n}(?:\\s+as\\s+\\w+)?\\s*(?:,|$)`);
  const out: string[] = [];
  for (const line of statements) {
    if (!word.test(line)) continue;
    const python = /^\s*from\s+([\w.]+)\s+import\s+(.*)$/.exec(line);
    if (python !== null) {
      if (listed.test((python[2] ?? '').replace(/#.*$/, '').trim())) out.push(python[1] ?? '');
      continue;
    }
    const jsFrom = /^\s*(?:import|export)\s+(?:type\s+)?(.*?)\s+from\s+['"]([^'"]+)['"]/.exec(line);
    if (jsFrom !== null) {
      if (jsNamed.test(jsFrom[1] ?? '')) out.push(jsFrom[2] ?? '');
      continue;
    }
    const req = required.exec(line);
    if (req !== null) {
      out.push(req[1] ?? '');
      continue;
    }
    const rust = /^\s*(?:pub(?:\([^)]*\))?\s+)?use\s+([\w:]+?)(?:::\{([^}]*)\}|::(\w+))?\s*(?:as\s+\w+\s*)?;/.exec(line);
    if (rust !== null && ((rust[3] ?? '') === name || (rust[2] !== undefined && rustListed.test(rust[2])))) out.push(rust[1] ?? '');
  }
  return out;
}

/**
 * Whether a module named in an import is the repository's own: relative (`./x`, `.models`, `crate::`,
 * `self::`, `super::`), or its first segment is one of `own` (the packages, crates and commands the
 * repository's manifests and folders declare; compared lowercase, `-` as `_`, without an npm scope).
 */
export function isOwnModule(specifier: string, own: ReadonlySet<string>): boolean {
  if (/^(?:\.|\/|crate::|self::|super::|crate$|self$|super$)/.test(specifier)) return true;
  const first = specifier.replace(/^@[^/]+\//, '').split(/[./:]/)[0] ?? '';
  return own.has(normalModule(first));
}

/** `Foo-Bar` → `foo_bar`: how Python and Rust spell a package or crate a manifest names with hyphens. */
export function normalModule(name: string): string {
  return name.toLowerCase().replace(/-/g, '_');
}

/** Whether `statements` (from `importLines`) import `name` from some module that is not the repository's own. */
export function importedFromElsewhere(statements: readonly string[], name: string, own: ReadonlySet<string>): boolean {
  return importSources(statements, name).some((m) => !isOwnModule(m, own));
}
