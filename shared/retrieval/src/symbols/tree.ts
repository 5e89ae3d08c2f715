import type { Node, QueryMatch } from 'web-tree-sitter';
import type { LoadedGrammar } from './grammar';
import type { LanguageSpec } from './languages/spec';
import { ReferenceCounter } from './references';
import type { FileSymbols, SymbolDefinition, SymbolImport, SymbolKind } from './types';

const KINDS: ReadonlySet<string> = new Set<SymbolKind>([
  'function', 'class', 'method', 'interface', 'type', 'variable', 'constant', 'enum', 'module',
]);

/** Result of a tree-sitter pass; `hasErrors` when the parser had to recover from syntax errors. */
export interface TreeSymbols extends Omit<FileSymbols, 'parser'> {
  hasErrors: boolean;
}

interface PendingImport {
  source?: string;
  names: string[];
  line: number;
}

function unquote(text: string): string {
  return text.replace(/^["'`]|["'`]$/g, '');
}

function line(node: Node): number {
  return node.startPosition.row + 1;
}

/**
 * Parse `text` and read definitions, imports and (unless `references` is false) references from the
 * language's query. Returns undefined when the parser gives up (no tree). Frees the tree before returning.
 */
export function extractWithTree(grammar: LoadedGrammar, spec: LanguageSpec, text: string, references = true): TreeSymbols | undefined {
  const tree = grammar.parser.parse(text);
  if (!tree) return undefined;
  try {
    const matches = grammar.query(references).matches(tree.rootNode);
    const definitions = new Map<number, { pattern: number; definition: SymbolDefinition }>();
    const imports = new Map<number, PendingImport>();
    const notReferences = new Set<number>(); // name nodes of definitions and imports
    const referenceNodes: Node[] = [];
    const skipped: Node[] = []; // import statements and `@skip` nodes: their identifiers are not uses
    const exportedNames = new Set<string>();
    for (const match of matches) {
      readMatch(match, spec, { definitions, imports, notReferences, referenceNodes, skipped, exportedNames });
    }
    for (const { definition } of definitions.values()) {
      if (exportedNames.has(definition.name) && definition.exported === false) definition.exported = true;
    }
    const uses = new ReferenceCounter();
    for (const node of referenceNodes) {
      if (notReferences.has(node.startIndex) || within(node, skipped)) continue;
      uses.add(node.text, line(node));
    }
    return {
      definitions: [...definitions.values()]
        .map((entry) => entry.definition)
        .sort((a, b) => a.line - b.line || a.name.localeCompare(b.name)),
      references: uses.list(),
      imports: [...imports.values()]
        .filter((entry): entry is PendingImport & { source: string } => entry.source !== undefined)
        .map((entry) => ({ source: entry.source, names: entry.names, line: entry.line }) satisfies SymbolImport)
        .sort((a, b) => a.line - b.line),
      hasErrors: tree.rootNode.hasError,
    };
  } finally {
    tree.delete(); // trees live in WASM memory; the GC does not free them
  }
}

function within(node: Node, ranges: readonly Node[]): boolean {
  return ranges.some((range) => node.startIndex >= range.startIndex && node.endIndex <= range.endIndex);
}

/** Accumulators filled while reading query matches. */
interface MatchState {
  definitions: Map<number, { pattern: number; definition: SymbolDefinition }>;
  imports: Map<number, PendingImport>;
  notReferences: Set<number>;
  referenceNodes: Node[];
  skipped: Node[];
  exportedNames: Set<string>;
}

function readMatch(match: QueryMatch, spec: LanguageSpec, state: MatchState): void {
  const { definitions, imports, notReferences, referenceNodes, skipped, exportedNames } = state;
  let nameNode: Node | undefined;
  let definitionNode: Node | undefined;
  let kind: SymbolKind | undefined;
  let importNode: Node | undefined;
  let sourceNode: Node | undefined;
  const importNames: Node[] = [];
  for (const capture of match.captures) {
    const { name, node } = capture;
    if (name === 'name') nameNode = node;
    else if (name.startsWith('definition.')) {
      const captured = name.slice('definition.'.length);
      if (KINDS.has(captured)) {
        kind = captured as SymbolKind;
        definitionNode = node;
      }
    } else if (name === 'import') importNode = node;
    else if (name === 'import.source') sourceNode = node;
    else if (name === 'import.name') importNames.push(node);
    else if (name === 'reference') referenceNodes.push(node);
    else if (name === 'skip') skipped.push(node);
    else if (name === 'export.name') exportedNames.add(node.text);
  }
  if (nameNode && definitionNode && kind) {
    notReferences.add(nameNode.startIndex);
    const existing = definitions.get(nameNode.startIndex);
    if (!existing || existing.pattern > match.patternIndex) {
      const name = nameNode.text;
      const exported = spec.isExported?.(definitionNode, name);
      definitions.set(nameNode.startIndex, {
        pattern: match.patternIndex,
        definition: {
          name,
          kind: spec.refineKind?.(kind, definitionNode, name) ?? kind,
          line: line(definitionNode),
          endLine: definitionNode.endPosition.row + 1,
          ...(exported === undefined ? {} : { exported }),
        },
      });
    }
  }
  if (importNode) {
    let entry = imports.get(importNode.startIndex);
    if (!entry) {
      entry = { names: [], line: line(importNode) };
      imports.set(importNode.startIndex, entry);
      skipped.push(importNode);
    }
    if (sourceNode) {
      entry.source = unquote(sourceNode.text);
      notReferences.add(sourceNode.startIndex);
    }
    for (const node of importNames) {
      if (!entry.names.includes(node.text)) entry.names.push(node.text);
      notReferences.add(node.startIndex);
    }
  }
}
