import type { LanguageSpec } from './spec';
import { hasChildOfType } from './spec';

// Functions inside `impl` and `trait` blocks come first so they read as methods.
const RUST_QUERY = `
(impl_item body: (declaration_list (function_item name: (identifier) @name) @definition.method))
(trait_item body: (declaration_list (function_item name: (identifier) @name) @definition.method))
(trait_item body: (declaration_list (function_signature_item name: (identifier) @name) @definition.method))
(function_item name: (identifier) @name) @definition.function
(struct_item name: (type_identifier) @name) @definition.class
(union_item name: (type_identifier) @name) @definition.class
(enum_item name: (type_identifier) @name) @definition.enum
(trait_item name: (type_identifier) @name) @definition.interface
(type_item name: (type_identifier) @name) @definition.type
(const_item name: (identifier) @name) @definition.constant
(static_item name: (identifier) @name) @definition.constant
(mod_item name: (identifier) @name) @definition.module
(macro_definition name: (identifier) @name) @definition.function

(use_declaration argument: (scoped_identifier path: (_) @import.source name: (identifier) @import.name)) @import
(use_declaration argument: (use_as_clause path: (scoped_identifier path: (_) @import.source name: (identifier) @import.name))) @import
(use_declaration argument: (scoped_use_list path: (_) @import.source list: (use_list (identifier) @import.name))) @import
(use_declaration argument: (scoped_use_list path: (_) @import.source list: (use_list (self) @import.name))) @import
(use_declaration argument: (scoped_use_list path: (_) @import.source list: (use_list (scoped_identifier name: (identifier) @import.name)))) @import
(use_declaration argument: (use_wildcard (_) @import.source "*" @import.name)) @import
(use_declaration argument: (identifier) @import.source) @import
(mod_item name: (identifier) @import.source !body) @import

[(identifier) (type_identifier) (field_identifier)] @reference
`;

/** Rust: `pub` (any visibility modifier) exports the item. */
export const rustSpec: LanguageSpec = {
  grammar: 'tree-sitter-rust.wasm',
  query: RUST_QUERY,
  isExported: (definition) => hasChildOfType(definition, 'visibility_modifier'),
};
