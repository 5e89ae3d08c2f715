/**
 * Names a project moved out into packages of their own. A transport, plugin or integration split
 * from the core keeps its name in the new package (winston's `Couchdb` transport now lives in
 * `winston-couchdb`, jotai's `src/xstate/` in `jotai-xstate`), and the project's docs name that
 * package: a doc still naming the thing names the package's, which exists, not code the project lost.
 */
import { normalModule } from './imports';

/**
 * Adds the hyphenated package-like words of a doc (`winston-couchdb`, `tokio-util`), as `normalModule`
 * spells them. A word followed by a file extension (`pnpm-workspace.yaml`) names a file, not a package.
 */
export function collectPackageWords(text: string, into: Set<string>): void {
  for (const [word] of text.matchAll(/(?<![\w.-])[a-z][a-z0-9]*(?:-[a-z0-9]+)+(?![\w-]|\.[a-z])/g)) into.add(normalModule(word));
}

/**
 * What follows `<own>-` in the package words that extend one of the project's own package names
 * (`couchdb` for `winston-couchdb`), leaving out words that are themselves the project's own packages
 * (`webpack-cli` in webpack-cli's repository).
 */
export function splitOutSuffixes(words: ReadonlySet<string>, own: ReadonlySet<string>): Set<string> {
  const out = new Set<string>();
  for (const word of words) {
    if (own.has(word)) continue;
    for (const prefix of own) if (word.startsWith(`${prefix}_`) && word.length > prefix.length + 1) out.add(word.slice(prefix.length + 1));
  }
  return out;
}

/**
 * Whether a name was moved out into one of those packages: its last segment is the package's suffix
 * (`Couchdb` → `winston-couchdb`, `DailyRotateFile` → `winston-daily-rotate-file`), or the file it was
 * removed from, or that file's folder, is named like it (`src/xstate/atomWithMachine.ts` → `jotai-xstate`).
 */
export function movedToOwnPackage(name: string, removedFrom: string | undefined, suffixes: ReadonlySet<string>): boolean {
  if (suffixes.size === 0) return false;
  const leaf = name.split(/[.:#]/).filter((s) => s.length > 0).pop() ?? '';
  const forms = leaf.length < 3 ? [] : [normalModule(leaf), normalModule(leaf.replace(/([a-z0-9])([A-Z])/g, '$1_$2'))];
  if (removedFrom !== undefined) {
    const segments = removedFrom.split('/');
    const base = (segments.pop() ?? '').replace(/\.[^.]*$/, '');
    forms.push(normalModule(base));
    if (segments.length > 0) forms.push(normalModule(segments[segments.length - 1] ?? ''));
  }
  return forms.some((f) => f.length >= 3 && suffixes.has(f));
}
