import type { Node } from 'web-tree-sitter';
import type { SymbolKind } from '../types';

/**
 * How one language is read with tree-sitter. The query uses a fixed capture vocabulary:
 * - `@definition.<kind>` on the whole definition node and `@name` on its name;
 * - `@import` on the statement, `@import.source` on the module, `@import.name` on each imported name
 *   (several patterns may match one statement; they are grouped by the `@import` node);
 * - `@export.name` on a name exported apart from its declaration (`export { a }`): marks it exported;
 * - `@reference` on identifiers the file uses, except inside `@import` or `@skip` nodes and the `@name`
 *   of a definition.
 * When two patterns define the same name node, the earlier pattern wins (e.g. `method` before `function`).
 */
export interface LanguageSpec {
  /** File name in `shared/retrieval/grammars/` (listed in its `grammars.json`). */
  grammar: string;
  query: string;
  /** Whether the definition is visible outside the file; undefined when the language has no such notion. */
  isExported?: (definition: Node, name: string) => boolean | undefined;
  /** Adjust a kind from the query, e.g. an upper-case Python variable is a constant. */
  refineKind?: (kind: SymbolKind, definition: Node, name: string) => SymbolKind;
}

/** True when the node has a direct child of the given type. */
export function hasChildOfType(node: Node, type: string): boolean {
  return node.children.some((child) => child?.type === type);
}

/** Names like `MAX_SIZE` read as constants in languages without a `const` keyword. */
export function isUpperSnake(name: string): boolean {
  return /^[A-Z][A-Z0-9_]*$/.test(name) && /[A-Z]/.test(name);
}
