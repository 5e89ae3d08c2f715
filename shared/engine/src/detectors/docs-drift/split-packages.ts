/**
 * Names a project moved out into packages of their own. A transport, plugin or integration split
 * from the core keeps its name in the new package (winston's `Couchdb` transport now lives in
 * `winston-couchdb`, jotai's `src/xstate/` in `jotai-xstate`, haystack's Tika converter in
 * `tika-haystack`), and the project's docs name that package: a doc still naming the thing names the
 * package's, which exists, not code the project lost.
 */
import { normalModule } from './imports';

/** An install command's arguments: npm, yarn, pnpm, bun, pip, uv, poetry, cargo, go. */
const INSTALL = /\b(?:npm\s+(?:install|i|add)|yarn\s+(?:global\s+)?add|pnpm\s+(?:add|install|i)|bun\s+add|pip3?\s+install|uv\s+(?:add|pip\s+install)|poetry\s+add|cargo\s+(?:add|install)|go\s+(?:get|install))((?:[ \t]+[^\s`'"<>|&;]+)+)/g;
/** Where a package's own page or repository is: the last part names the package. */
const PACKAGE_URL = /\b(?:github\.com|gitlab\.com|codeberg\.org)\/[\w.-]+\/([\w.-]+)|\b(?:npmjs\.com\/package|crates\.io\/crates|pypi\.org\/project|docs\.rs|lib\.rs\/crates)\/((?:@[\w.-]+\/)?[\w.-]+)/g;
/** A module an example imports: `from 'x'`, `require('x')`, `import 'x'`. */
const IMPORTED = /\b(?:from|require\(|import)\s*['"]([^'"./][^'"]*)['"]/g;

/**
 * The packages a doc's install commands name (`pip install tika-haystack`, `npm i winston-couchdb`),
 * as packageName spells them.
 */
export function installedPackages(text: string): Set<string> {
  const out = new Set<string>();
  for (const m of text.matchAll(INSTALL)) for (const arg of (m[1] ?? '').trim().split(/\s+/)) if (!arg.startsWith('-')) addPackage(out, arg);
  return out;
}

/**
 * Adds the packages a doc names where only a package goes: those it installs (`installed`, from
 * installedPackages), imports, or gives the page or repository address of (`from 'jotai-xstate'`,
 * `https://github.com/winstonjs/winston-redis`). A word merely spelled like one (rustfmt's
 * `rustfmt-config` directive) is not a package.
 */
export function collectPackageWords(text: string, installed: ReadonlySet<string>, into: Set<string>): void {
  for (const word of installed) into.add(word);
  for (const m of text.matchAll(PACKAGE_URL)) addPackage(into, m[1] ?? m[2] ?? '');
  for (const m of text.matchAll(IMPORTED)) addPackage(into, (m[1] ?? '').replace(/^(@[^/]+\/)?([^/]+).*$/, '$1$2'));
}

/**
 * Whether a doc's install commands (installedPackages) install a package split out of the project
 * (`pip install tika-haystack`): the doc is that package's page, and what the project removed with a
 * whole file is what the package took.
 */
export function installsSplitPackage(installed: ReadonlySet<string>, own: ReadonlySet<string>): boolean {
  return [...installed].some((word) => splitFrom(word, own) !== undefined);
}

/** Adds a package as `normalModule` spells it, without an npm scope, a version or a Go module's path. */
function addPackage(into: Set<string>, raw: string): void {
  const name = raw
    .replace(/^@[^/]+\//, '')
    .replace(/(?:@|==|>=|~=|\^).*$/, '')
    .replace(/\.git$/, '')
    .split('/')
    .pop();
  if (name !== undefined && /^[A-Za-z][\w.-]*$/.test(name)) into.add(normalModule(name));
}

/**
 * What a package word adds to one of the project's own package names, before or after it (`couchdb`
 * for `winston-couchdb`, `tika` for `tika-haystack`); undefined for the project's own packages
 * (`webpack-cli` in webpack-cli's repository) and for words that extend none.
 */
function splitFrom(word: string, own: ReadonlySet<string>): string | undefined {
  if (own.has(word)) return undefined;
  for (const name of own) {
    if (word.length <= name.length + 1) continue;
    if (word.startsWith(`${name}_`)) return word.slice(name.length + 1);
    if (word.endsWith(`_${name}`)) return word.slice(0, -name.length - 1);
  }
  return undefined;
}

/** What the package words that extend one of the project's own package names add to it (splitFrom). */
export function splitOutSuffixes(words: ReadonlySet<string>, own: ReadonlySet<string>): Set<string> {
  const out = new Set<string>();
  for (const word of words) {
    const part = splitFrom(word, own);
    if (part !== undefined) out.add(part);
  }
  return out;
}

/**
 * Whether a name was moved out into one of those packages: its last segment is the package's suffix
 * (`Couchdb` → `winston-couchdb`, `DailyRotateFile` → `winston-daily-rotate-file`), or it was removed
 * from a folder named like one that the project no longer has (`src/xstate/atomWithMachine.ts` →
 * `jotai-xstate`). A folder that is still there (`src/config/` beside a `rustfmt-config`) was not moved out.
 */
export function movedToOwnPackage(name: string, suffixes: ReadonlySet<string>, removedFrom?: { file: string; folderExists(folder: string): boolean }): boolean {
  if (suffixes.size === 0) return false;
  const leaf = name.split(/[.:#]/).filter((s) => s.length > 0).pop() ?? '';
  if (leaf.length >= 3 && (suffixes.has(normalModule(leaf)) || suffixes.has(normalModule(leaf.replace(/([a-z0-9])([A-Z])/g, '$1_$2'))))) return true;
  if (removedFrom === undefined) return false;
  const folder = removedFrom.file.split('/').slice(0, -1);
  const last = folder[folder.length - 1];
  return last !== undefined && last.length >= 3 && suffixes.has(normalModule(last)) && !removedFrom.folderExists(folder.join('/'));
}
