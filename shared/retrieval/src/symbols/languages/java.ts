import type { Node } from 'web-tree-sitter';
import type { LanguageSpec } from './spec';

const JAVA_QUERY = `
(class_declaration name: (identifier) @name) @definition.class
(record_declaration name: (identifier) @name) @definition.class
(interface_declaration name: (identifier) @name) @definition.interface
(annotation_type_declaration name: (identifier) @name) @definition.interface
(enum_declaration name: (identifier) @name) @definition.enum
(method_declaration name: (identifier) @name) @definition.method
(constructor_declaration name: (identifier) @name) @definition.method
(field_declaration declarator: (variable_declarator name: (identifier) @name)) @definition.variable
(package_declaration (_) @name) @definition.module
(package_declaration) @skip

(import_declaration (scoped_identifier name: (identifier) @import.name) @import.source . ";") @import
(import_declaration (scoped_identifier) @import.source (asterisk) @import.name) @import

[(identifier) (type_identifier)] @reference
`;

function modifiers(definition: Node): string {
  const mods = definition.children.find((child) => child?.type === 'modifiers');
  return mods?.text ?? '';
}

/** Java: `public` exports; `static final` fields are constants. Package declarations: unknown. */
export const javaSpec: LanguageSpec = {
  grammar: 'tree-sitter-java.wasm',
  query: JAVA_QUERY,
  isExported: (definition) =>
    definition.type === 'package_declaration' ? undefined : /\bpublic\b/.test(modifiers(definition)),
  refineKind: (kind, definition) => {
    const mods = modifiers(definition);
    return kind === 'variable' && /\bstatic\b/.test(mods) && /\bfinal\b/.test(mods) ? 'constant' : kind;
  },
};
