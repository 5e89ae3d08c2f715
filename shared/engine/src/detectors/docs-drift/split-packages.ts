/**
 * Names a project moved out into packages of their own. A transport, plugin or backend split from
 * the core keeps its name in the new package (winston's `Couchdb` transport now lives in
 * `winston-couchdb`), and the project's docs name that package: a doc still naming the thing names
 * the package's, which exists, not code the project lost.
 */
import { normalModule } from './imports';

/** Adds the hyphenated package-like words of a doc (`winston-couchdb`, `tokio-util`), as `normalModule` spells them. */
export function collectPackageWords(text: string, into: Set<string>): void {
  for (const [word] of text.matchAll(/(?<![\w.-])[a-z][a-z0-9]*(?:-[a-z0-9]+)+(?![\w-])/g)) into.add(normalModule(word));
}

/**
 * Whether some doc of the project names a package `<own>-<name>` for the name's last segment, where
 * `<own>` is one of the project's own package names (`own`, as `normalModule` spells them):
 * `Couchdb` → `winston-couchdb`, `DailyRotateFile` → `winston-daily-rotate-file`.
 */
export function movedToOwnPackage(name: string, words: ReadonlySet<string>, own: ReadonlySet<string>): boolean {
  const leaf = name.split(/[.:#]/).filter((s) => s.length > 0).pop() ?? '';
  if (leaf.length < 3 || words.size === 0) return false;
  const forms = new Set([normalModule(leaf), normalModule(leaf.replace(/([a-z0-9])([A-Z])/g, '$1_$2'))]);
  for (const prefix of own) for (const form of forms) if (words.has(`${prefix}_${form}`)) return true;
  return false;
}
