import type { Node } from 'web-tree-sitter';
import type { LanguageSpec } from './spec';

// Shared between TypeScript, TSX and JavaScript: imports, requires, re-exports and references.
// `default` in `{ default as x }` is a keyword token in tree-sitter-javascript 0.25 (an identifier in
// the TypeScript grammar), hence `[(identifier) "default"]`.
const IMPORT_PATTERNS = `
(import_statement source: (string (string_fragment) @import.source)) @import
(import_statement (import_clause (identifier) @import.name)) @import
(import_statement (import_clause (named_imports (import_specifier name: [(identifier) "default"] @import.name)))) @import
(import_statement (import_clause (namespace_import (identifier) @import.name))) @import
(export_statement source: (string (string_fragment) @import.source)) @import
(export_statement (export_clause (export_specifier name: [(identifier) "default"] @import.name)) source: (string)) @import
(export_statement !source (export_clause (export_specifier name: (identifier) @export.name)))
(call_expression
  function: (identifier) @_require
  arguments: (arguments . (string (string_fragment) @import.source))
  (#eq? @_require "require")) @import
(call_expression
  function: (import)
  arguments: (arguments . (string (string_fragment) @import.source))) @import
`;

const VARIABLE_PATTERNS = `
(program (lexical_declaration (variable_declarator name: (identifier) @name value: [(arrow_function) (function_expression)])) @definition.function)
(export_statement (lexical_declaration (variable_declarator name: (identifier) @name value: [(arrow_function) (function_expression)])) @definition.function)
(program (lexical_declaration "const" (variable_declarator name: (identifier) @name)) @definition.constant)
(export_statement (lexical_declaration "const" (variable_declarator name: (identifier) @name)) @definition.constant)
(program (lexical_declaration (variable_declarator name: (identifier) @name)) @definition.variable)
(export_statement (lexical_declaration (variable_declarator name: (identifier) @name)) @definition.variable)
(program (variable_declaration (variable_declarator name: (identifier) @name)) @definition.variable)
(export_statement (variable_declaration (variable_declarator name: (identifier) @name)) @definition.variable)
`;

const TYPESCRIPT_QUERY = `
(function_declaration name: (identifier) @name) @definition.function
(generator_function_declaration name: (identifier) @name) @definition.function
(function_signature name: (identifier) @name) @definition.function
(class_declaration name: (type_identifier) @name) @definition.class
(abstract_class_declaration name: (type_identifier) @name) @definition.class
(method_definition name: (property_identifier) @name) @definition.method
(abstract_method_signature name: (property_identifier) @name) @definition.method
(interface_declaration name: (type_identifier) @name) @definition.interface
(type_alias_declaration name: (type_identifier) @name) @definition.type
(enum_declaration name: (identifier) @name) @definition.enum
(internal_module name: (identifier) @name) @definition.module
${VARIABLE_PATTERNS}
${IMPORT_PATTERNS}
[(identifier) (type_identifier) (property_identifier) (shorthand_property_identifier)] @reference
`;

const JAVASCRIPT_QUERY = `
(function_declaration name: (identifier) @name) @definition.function
(generator_function_declaration name: (identifier) @name) @definition.function
(class_declaration name: (identifier) @name) @definition.class
(method_definition name: (property_identifier) @name) @definition.method
${VARIABLE_PATTERNS}
${IMPORT_PATTERNS}
[(identifier) (property_identifier) (shorthand_property_identifier)] @reference
`;

/** Exported when the declaration sits inside `export …` (also `export default`). Methods: unknown. */
function isExported(definition: Node): boolean | undefined {
  if (definition.type === 'method_definition' || definition.type === 'abstract_method_signature') return undefined;
  return definition.parent?.type === 'export_statement';
}

/** TypeScript (`.ts`, `.mts`, `.cts`). */
export const typescriptSpec: LanguageSpec = { grammar: 'tree-sitter-typescript.wasm', query: TYPESCRIPT_QUERY, isExported };

/** TSX uses its own grammar but the TypeScript query (TSX is a superset). */
export const tsxSpec: LanguageSpec = { grammar: 'tree-sitter-tsx.wasm', query: TYPESCRIPT_QUERY, isExported };

/** JavaScript (`.js`, `.jsx`, `.mjs`, `.cjs`). */
export const javascriptSpec: LanguageSpec = { grammar: 'tree-sitter-javascript.wasm', query: JAVASCRIPT_QUERY, isExported };
