import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { Language, Parser, Query } from 'web-tree-sitter';
import type { SymbolLanguage } from './types';
import { LANGUAGE_SPECS } from './languages';

/** A loaded grammar: one parser and its compiled queries per language, kept for the life of the process. */
export interface LoadedGrammar {
  parser: Parser;
  /**
   * The compiled query: with `references`, definitions, imports and references; without, the same
   * minus the `@reference` patterns (the index does not rank by references, and a capture for every
   * identifier of a file costs more than the parse itself). Each is compiled on first use.
   */
  query(references: boolean): Query;
}

/** A language query without its `@reference` patterns (each is one line ending in `@reference`). */
export function withoutReferences(query: string): string {
  return query
    .split('\n')
    .filter((line) => !/@reference\s*$/.test(line))
    .join('\n');
}

let runtime: Promise<void> | undefined;
// Promises, not values, so concurrent first calls share one load; a failed load stays failed
// (the caller falls back to regex) instead of retrying on every file.
const grammars = new Map<SymbolLanguage, Promise<LoadedGrammar>>();

/**
 * Folder holding the `.wasm` grammars: `shared/retrieval/grammars/`, two levels above this file both
 * in `src/symbols/` (jest) and `dist/symbols/` (node). Copied from the grammar packages by
 * `scripts/grammars/vendor.js`, which lists their versions in `grammars.json`.
 */
export function grammarDirectory(): string {
  return path.join(__dirname, '..', '..', 'grammars');
}

function initRuntime(): Promise<void> {
  if (!runtime) {
    // locateFile pins the runtime's own wasm (an export of the package), so loading works the same
    // under jest (no import.meta) and in plain node from dist.
    const runtimeWasm = require.resolve('web-tree-sitter/web-tree-sitter.wasm');
    runtime = Parser.init({ locateFile: () => runtimeWasm });
  }
  return runtime;
}

async function load(language: SymbolLanguage): Promise<LoadedGrammar> {
  const spec = LANGUAGE_SPECS[language];
  await initRuntime();
  // Read the bytes ourselves: given a path, web-tree-sitter uses a dynamic `import('fs/promises')`,
  // which jest refuses without --experimental-vm-modules. The copy makes a Uint8Array of this realm.
  const bytes = new Uint8Array(await readFile(path.join(grammarDirectory(), spec.grammar)));
  const grammar = await Language.load(bytes);
  const parser = new Parser();
  parser.setLanguage(grammar);
  const compiled = new Map<boolean, Query>();
  const query = (references: boolean): Query => {
    let found = compiled.get(references);
    if (found === undefined) compiled.set(references, (found = new Query(grammar, references ? spec.query : withoutReferences(spec.query))));
    return found;
  };
  return { parser, query };
}

/** The parser and query for a language, loaded on first use and cached in-process. Rejects when the grammar cannot load. */
export function loadGrammar(language: SymbolLanguage): Promise<LoadedGrammar> {
  let loaded = grammars.get(language);
  if (!loaded) {
    loaded = load(language);
    grammars.set(language, loaded);
  }
  return loaded;
}
