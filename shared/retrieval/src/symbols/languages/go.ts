import type { LanguageSpec } from './spec';

// A grouped `var ( … )` holds its specs in a `var_spec_list` (tree-sitter-go 0.25); `const ( … )` does not.
const GO_QUERY = `
(package_clause (package_identifier) @name) @definition.module
(function_declaration name: (identifier) @name) @definition.function
(method_declaration name: (field_identifier) @name) @definition.method
(type_spec name: (type_identifier) @name type: (struct_type)) @definition.class
(type_spec name: (type_identifier) @name type: (interface_type)) @definition.interface
(type_spec name: (type_identifier) @name) @definition.type
(type_alias name: (type_identifier) @name) @definition.type
(source_file (const_declaration (const_spec name: (identifier) @name) @definition.constant))
(source_file (var_declaration (var_spec name: (identifier) @name) @definition.variable))
(source_file (var_declaration (var_spec_list (var_spec name: (identifier) @name) @definition.variable)))

(import_spec name: (_) @import.name path: (interpreted_string_literal) @import.source) @import
(import_spec path: (interpreted_string_literal) @import.source) @import

[(identifier) (type_identifier) (field_identifier) (package_identifier)] @reference
`;

/** Go: a name is exported when it starts with an upper-case letter (the package name is not). */
export const goSpec: LanguageSpec = {
  grammar: 'tree-sitter-go.wasm',
  query: GO_QUERY,
  isExported: (definition, name) =>
    definition.type === 'package_clause' ? undefined : /^\p{Lu}/u.test(name),
};
