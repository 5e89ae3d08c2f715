import { extractWithRegex } from './fallback';
import { loadGrammar } from './grammar';
import { isSymbolLanguage, LANGUAGE_SPECS } from './languages';
import { extractWithTree } from './tree';
import type { FileSymbols, SymbolDefinition } from './types';
import { LONG_LINE_CHARS, looksMinified } from '../scope/content-kind';

export { LONG_LINE_CHARS, looksMinified };

/** Texts larger than this (in UTF-8 bytes) skip tree-sitter and use the regex fallback. */
export const MAX_TREE_SITTER_BYTES = 512 * 1024;

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Options of `extractSymbols`. */
export interface ExtractOptions {
  /** Collect identifier uses (`references`); default true. The index passes false: it ranks by definitions and imports. */
  references?: boolean;
}

/**
 * Definitions, references and imports of one file's text. `language` is a tree-sitter language
 * (`typescript`, `tsx`, `javascript`, `python`, `go`, `rust`, `java`) or anything else for the regex
 * fallback. Never throws: grammar or parse failures, oversized texts and unsupported languages fall
 * back to regex, and `fallbackReason` says why. A tree with syntax errors keeps its tree-sitter results
 * and adds the regex definitions it missed (`parser: 'mixed'`).
 */
export async function extractSymbols(language: string, text: string, options: ExtractOptions = {}): Promise<FileSymbols> {
  const references = options.references ?? true;
  const regex = (fallbackReason: string): FileSymbols => ({ ...extractWithRegex(text, references), parser: 'regex', fallbackReason });
  if (!isSymbolLanguage(language)) return regex(`unsupported language '${language}'`);
  const bytes = Buffer.byteLength(text, 'utf8');
  if (bytes > MAX_TREE_SITTER_BYTES) return regex(`over size cap (${bytes} bytes > ${MAX_TREE_SITTER_BYTES})`);
  if (looksMinified(text)) return regex(`minified (most of the text is in lines over ${LONG_LINE_CHARS} characters)`);
  let tree;
  try {
    tree = extractWithTree(await loadGrammar(language), LANGUAGE_SPECS[language], text, references);
  } catch (error) {
    return regex(`tree-sitter failed: ${describe(error)}`);
  }
  if (!tree) return regex('tree-sitter returned no tree');
  const { hasErrors, ...symbols } = tree;
  if (!hasErrors) return { ...symbols, parser: 'tree-sitter' };
  return { ...mergeFallback(symbols, text), parser: 'mixed', fallbackReason: 'syntax errors' };
}

/** Add regex definitions and imports that tree-sitter's error recovery lost. */
function mergeFallback(symbols: Omit<FileSymbols, 'parser'>, text: string): Omit<FileSymbols, 'parser'> {
  const regex = extractWithRegex(text, false);
  const known = new Set(symbols.definitions.map((d) => d.name));
  const extra: SymbolDefinition[] = regex.definitions.filter((d) => !known.has(d.name));
  const importLines = new Set(symbols.imports.map((i) => i.line));
  return {
    definitions: [...symbols.definitions, ...extra].sort((a, b) => a.line - b.line || a.name.localeCompare(b.name)),
    references: symbols.references,
    imports: [...symbols.imports, ...regex.imports.filter((i) => !importLines.has(i.line))].sort((a, b) => a.line - b.line),
  };
}
