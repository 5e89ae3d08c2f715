import type { LanguageSpec } from './spec';
import { isUpperSnake } from './spec';

// Methods come first so a function inside a class body is a method, not a function.
const PYTHON_QUERY = `
(class_definition body: (block (function_definition name: (identifier) @name) @definition.method))
(class_definition body: (block (decorated_definition definition: (function_definition name: (identifier) @name)) @definition.method))
(decorated_definition definition: (function_definition name: (identifier) @name)) @definition.function
(function_definition name: (identifier) @name) @definition.function
(decorated_definition definition: (class_definition name: (identifier) @name)) @definition.class
(class_definition name: (identifier) @name) @definition.class
(module (expression_statement (assignment left: (identifier) @name)) @definition.variable)

(import_statement name: (dotted_name) @import.source @import)
(import_statement name: (aliased_import name: (dotted_name) @import.source) @import)
(import_from_statement module_name: (_) @import.source) @import
(import_from_statement name: (dotted_name) @import.name) @import
(import_from_statement name: (aliased_import name: (dotted_name) @import.name)) @import
(import_from_statement (wildcard_import) @import.name) @import

(identifier) @reference
`;

/** Python: leading `_` means private by convention; upper-case module variables are constants. */
export const pythonSpec: LanguageSpec = {
  grammar: 'tree-sitter-python.wasm',
  query: PYTHON_QUERY,
  isExported: (_definition, name) => !name.startsWith('_'),
  refineKind: (kind, _definition, name) => (kind === 'variable' && isUpperSnake(name) ? 'constant' : kind),
};
