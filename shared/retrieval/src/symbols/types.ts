/** Languages parsed with a tree-sitter grammar; any other language goes to the regex fallback. */
export type SymbolLanguage = 'typescript' | 'tsx' | 'javascript' | 'python' | 'go' | 'rust' | 'java';

/** What a definition introduces; languages map their own constructs onto this small set. */
export type SymbolKind =
  | 'function'
  | 'class'
  | 'method'
  | 'interface'
  | 'type'
  | 'variable'
  | 'constant'
  | 'enum'
  | 'module';

/** A name the file defines. Lines are 1-based and inclusive. */
export interface SymbolDefinition {
  name: string;
  kind: SymbolKind;
  line: number;
  /** Last line of the definition; equal to `line` when unknown (regex fallback). */
  endLine: number;
  /** Visible outside the file (export, `pub`, `public`, capitalised Go name, no leading `_` in Python); absent when unknown. */
  exported?: boolean;
}

/** An identifier the file uses, one entry per name: where it first appears and how often. */
export interface SymbolReference {
  name: string;
  line: number;
  count: number;
}

/** One import statement (or `require`, `use`, `mod x;`), with the names it brings in when they are named. */
export interface SymbolImport {
  /** The module as written, quotes removed: `./x`, `.mod`, `pkg.mod`, `fmt`, `crate::a::b`, `com.x.Y`. */
  source: string;
  /** Imported names (`*` for a wildcard); empty when the whole module is imported. */
  names: string[];
  line: number;
}

/** Which extractor produced the result: tree-sitter, the regex fallback, or both (tree with syntax errors). */
export type SymbolParser = 'tree-sitter' | 'regex' | 'mixed';

/** Everything `extractSymbols` finds in one file. */
export interface FileSymbols {
  definitions: SymbolDefinition[];
  references: SymbolReference[];
  imports: SymbolImport[];
  parser: SymbolParser;
  /** Why tree-sitter was not (fully) used, e.g. `unsupported language`, `over size cap`, `syntax errors`. */
  fallbackReason?: string;
}
