export { extractSymbols, LONG_LINE_CHARS, looksMinified, MAX_TREE_SITTER_BYTES } from './extract';
export { splitIdentifier } from './identifiers';
export { isSymbolLanguage } from './languages';
export { PathSet, resolveImport } from './resolve';
export type {
  FileSymbols,
  SymbolDefinition,
  SymbolImport,
  SymbolKind,
  SymbolLanguage,
  SymbolParser,
  SymbolReference,
} from './types';
