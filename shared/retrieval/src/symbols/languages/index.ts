import type { SymbolLanguage } from '../types';
import type { LanguageSpec } from './spec';
import { goSpec } from './go';
import { javaSpec } from './java';
import { pythonSpec } from './python';
import { rustSpec } from './rust';
import { javascriptSpec, tsxSpec, typescriptSpec } from './typescript';

/** The one table of tree-sitter languages: grammar file and query per language. */
export const LANGUAGE_SPECS: Readonly<Record<SymbolLanguage, LanguageSpec>> = {
  typescript: typescriptSpec,
  tsx: tsxSpec,
  javascript: javascriptSpec,
  python: pythonSpec,
  go: goSpec,
  rust: rustSpec,
  java: javaSpec,
};

/** True when the language has a tree-sitter grammar here. */
export function isSymbolLanguage(language: string): language is SymbolLanguage {
  return Object.prototype.hasOwnProperty.call(LANGUAGE_SPECS, language);
}
