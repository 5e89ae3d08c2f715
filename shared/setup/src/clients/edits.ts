import { applyEdits, findNodeAtLocation, getNodeValue, modify, parseTree, printParseErrorCode, type FormattingOptions, type JSONPath, type ParseError } from 'jsonc-parser';
import { parseToml, stringifyToml } from './toml';
import { Document, parseDocument } from 'yaml';
import { WiringError, type FileFormat, type ManagedEdit, type Presence } from './types';

/**
 * Managed edits in each format, with that format's own parser: JSON and JSONC through jsonc-parser
 * (edits that keep every other byte, comments included), TOML through smol-toml (a marked block
 * appended as text, so nothing else is rewritten), YAML through `yaml`'s Document (comments kept),
 * Markdown as a marked block. Removal takes out exactly what apply added.
 */

/** Canonical JSON (sorted keys): parsers build null-prototype objects, so compare structure, not prototypes. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_k, v: unknown) =>
    v !== null && typeof v === 'object' && !Array.isArray(v) ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) : v,
  );
}

function isDeepStrictEqual(a: unknown, b: unknown): boolean {
  return a !== undefined && b !== undefined && canonical(a) === canonical(b);
}

function jsonTree(file: string, text: string) {
  const errors: ParseError[] = [];
  const root = parseTree(text, errors, { allowTrailingComma: true, disallowComments: false });
  if (errors.length > 0 || root === undefined) {
    const first = errors[0];
    throw new WiringError('unparsable', `${file} is not valid JSON${first ? ` (${printParseErrorCode(first.error)} at offset ${first.offset})` : ''}; fix it, then launch again`);
  }
  if (root.type !== 'object') throw new WiringError('unparsable', `${file} does not hold a JSON object; fix it, then launch again`);
  return root;
}

/** The file's own indentation (first indented line), so inserted text looks like the rest. */
function formatting(text: string): FormattingOptions {
  const m = /\n([ \t]+)\S/.exec(text);
  const indent = m?.[1] ?? '  ';
  return { insertSpaces: !indent.includes('\t'), tabSize: indent.includes('\t') ? 1 : indent.length, eol: text.includes('\r\n') ? '\r\n' : '\n' };
}

function valueAt(file: string, text: string, path: JSONPath): unknown {
  const node = findNodeAtLocation(jsonTree(file, text), path);
  return node === undefined ? undefined : (getNodeValue(node) as unknown);
}

function nested(path: JSONPath, value: unknown): unknown {
  return path.reduceRight<unknown>((inner, key) => (typeof key === 'number' ? [inner] : { [key]: inner }), value);
}

/** Removes the key at `path`, then any parent object it leaves empty (down to, not including, the root). */
function removeJsonPath(file: string, text: string, path: JSONPath): string {
  let out = applyEdits(text, modify(text, path, undefined, { formattingOptions: formatting(text) }));
  for (let depth = path.length - 1; depth > 0; depth--) {
    const parent = path.slice(0, depth);
    const value = valueAt(file, out, parent);
    const empty = (Array.isArray(value) && value.length === 0) || (value !== null && typeof value === 'object' && !Array.isArray(value) && Object.keys(value).length === 0);
    if (!empty) break;
    out = applyEdits(out, modify(out, parent, undefined, { formattingOptions: formatting(out) }));
  }
  return out;
}

/** A whole-file JSON object is `{}` once Sous's part is gone: the file was Sous's alone. */
function emptyObject(text: string): boolean {
  return /^\s*\{\s*\}\s*$/.test(text);
}

/** One value at a key path of a JSON/JSONC object (e.g. `mcpServers.sous`). */
export function jsonEntry(file: string, path: string[], value: unknown, format: 'json' | 'jsonc' = 'json'): ManagedEdit {
  return {
    file,
    format,
    apply(current) {
      if (current === undefined || current.trim() === '') return JSON.stringify(nested(path, value), null, 2) + '\n';
      if (isDeepStrictEqual(valueAt(file, current, path), value)) return current;
      return applyEdits(current, modify(current, path, value, { formattingOptions: formatting(current) }));
    },
    remove(current) {
      if (valueAt(file, current, path) === undefined) return current;
      const out = removeJsonPath(file, current, path);
      return emptyObject(out) ? undefined : out;
    },
    present(current) {
      if (current === undefined) return 'missing';
      const found = valueAt(file, current, path);
      return found === undefined ? 'missing' : isDeepStrictEqual(found, value) ? 'ok' : 'drifted';
    },
  };
}

/** One item of a JSON array (e.g. a hook group), found again by `isOurs`; other items are left alone. */
export function jsonArrayItem(file: string, path: string[], item: unknown, isOurs: (candidate: unknown) => boolean): ManagedEdit {
  const find = (text: string): { index: number; value: unknown; length: number } | undefined => {
    const arr = valueAt(file, text, path);
    if (!Array.isArray(arr)) return undefined;
    const index = arr.findIndex(isOurs);
    return index < 0 ? { index: -1, value: undefined, length: arr.length } : { index, value: arr[index], length: arr.length };
  };
  return {
    file,
    format: 'json',
    apply(current) {
      if (current === undefined || current.trim() === '') return JSON.stringify(nested(path, [item]), null, 2) + '\n';
      const found = find(current);
      const fmt = { formattingOptions: formatting(current) };
      if (found === undefined) return applyEdits(current, modify(current, path, [item], fmt));
      if (found.index >= 0) return isDeepStrictEqual(found.value, item) ? current : applyEdits(current, modify(current, [...path, found.index], item, fmt));
      return applyEdits(current, modify(current, [...path, found.length], item, { ...fmt, isArrayInsertion: true }));
    },
    remove(current) {
      const found = find(current);
      if (found === undefined || found.index < 0) return current;
      const out = removeJsonPath(file, current, [...path, found.index]);
      return emptyObject(out) ? undefined : out;
    },
    present(current) {
      if (current === undefined) return 'missing';
      const found = find(current);
      if (found === undefined || found.index < 0) return 'missing';
      return isDeepStrictEqual(found.value, item) ? 'ok' : 'drifted';
    },
  };
}

const TOML_BEGIN = '# sous:begin (added by `sous launch`; `sous clients uninstall` removes it)';
const TOML_END = '# sous:end';

function tomlBlockRange(text: string): { start: number; end: number } | undefined {
  const start = text.indexOf(TOML_BEGIN);
  if (start < 0) return undefined;
  const endMarker = text.indexOf(TOML_END, start);
  if (endMarker < 0) return undefined;
  let end = endMarker + TOML_END.length;
  if (text[end] === '\n') end += 1;
  return { start, end };
}

function parseTomlOrThrow(file: string, text: string): Record<string, unknown> {
  try {
    return parseToml(text) as Record<string, unknown>;
  } catch (err) {
    throw new WiringError('unparsable', `${file} is not valid TOML (${err instanceof Error ? err.message.split('\n')[0] : String(err)}); fix it, then launch again`);
  }
}

function tomlGet(doc: Record<string, unknown>, path: string[]): unknown {
  return path.reduce<unknown>((node, key) => (node !== null && typeof node === 'object' ? (node as Record<string, unknown>)[key] : undefined), doc);
}

/**
 * A TOML table (e.g. `[mcp_servers.sous]`) appended between marker comments. Written as text so
 * every other byte (comments, ordering, formatting) stays; the result is parsed back before it is
 * accepted. A table of that name that Sous did not write is a conflict, never overwritten.
 */
export function tomlTable(file: string, path: string[], fields: Record<string, unknown>): ManagedEdit {
  const block = `${TOML_BEGIN}\n${stringifyToml(nested(path, fields) as Record<string, unknown>).trim()}\n${TOML_END}\n`;
  return {
    file,
    format: 'toml',
    apply(current) {
      const text = current ?? '';
      const doc = parseTomlOrThrow(file, text);
      const range = tomlBlockRange(text);
      let out: string;
      if (range) {
        if (text.slice(range.start, range.end) === block) return text;
        out = text.slice(0, range.start) + block + text.slice(range.end);
      } else {
        if (tomlGet(doc, path) !== undefined) throw new WiringError('conflict', `${file} already defines [${path.join('.')}] (not written by Sous); remove it, then launch again`);
        out = text === '' ? block : text + (text.endsWith('\n') ? '\n' : '\n\n') + block;
      }
      const parsed = parseTomlOrThrow(file, out);
      if (!isDeepStrictEqual(tomlGet(parsed, path), fields)) throw new WiringError('conflict', `${file}: [${path.join('.')}] cannot be appended to this file's layout; add it by hand (sous clients verify shows the expected entry)`);
      return out;
    },
    remove(current) {
      const range = tomlBlockRange(current);
      if (!range) return current;
      let start = range.start;
      // The blank line apply put before the block goes with it.
      if (start >= 2 && current.slice(start - 2, start) === '\n\n') start -= 1;
      const out = current.slice(0, start) + current.slice(range.end);
      return out.trim() === '' ? undefined : out;
    },
    present(current) {
      if (current === undefined) return 'missing';
      let doc: Record<string, unknown>;
      try {
        doc = parseToml(current) as Record<string, unknown>;
      } catch {
        return 'drifted';
      }
      const found = tomlGet(doc, path);
      return found === undefined ? 'missing' : isDeepStrictEqual(found, fields) ? 'ok' : 'drifted';
    },
  };
}

function yamlDoc(file: string, text: string) {
  const doc = parseDocument(text);
  if (doc.errors.length > 0) throw new WiringError('unparsable', `${file} is not valid YAML (${doc.errors[0]?.message.split('\n')[0]}); fix it, then launch again`);
  return doc;
}

/** One value at a key path of a YAML mapping (e.g. Goose's `extensions.sous`); comments elsewhere are kept. */
export function yamlEntry(file: string, path: string[], value: unknown): ManagedEdit {
  const read = (text: string): unknown => {
    const node = yamlDoc(file, text).getIn(path, true) as { toJSON?: () => unknown } | unknown;
    if (node === undefined) return undefined;
    return node !== null && typeof node === 'object' && 'toJSON' in node && typeof node.toJSON === 'function' ? node.toJSON() : node;
  };
  return {
    file,
    format: 'yaml',
    apply(current) {
      if (current === undefined || current.trim() === '') return new Document(nested(path, value)).toString();
      if (isDeepStrictEqual(read(current), value)) return current;
      const doc = yamlDoc(file, current);
      doc.setIn(path, doc.createNode(value));
      return doc.toString();
    },
    remove(current) {
      if (read(current) === undefined) return current;
      const doc = yamlDoc(file, current);
      doc.deleteIn(path);
      for (let depth = path.length - 1; depth > 0; depth--) {
        const parent = doc.getIn(path.slice(0, depth)) as { items?: unknown[] } | undefined;
        if (!parent || !Array.isArray(parent.items) || parent.items.length > 0) break;
        doc.deleteIn(path.slice(0, depth));
      }
      const out = doc.toString();
      return out.trim() === '' || out.trim() === '{}' ? undefined : out;
    },
    present(current) {
      if (current === undefined) return 'missing';
      let found: unknown;
      try {
        found = read(current);
      } catch {
        return 'drifted';
      }
      return found === undefined ? 'missing' : isDeepStrictEqual(found, value) ? 'ok' : 'drifted';
    },
  };
}

const MD_BEGIN = '<!-- sous:begin (added by `sous launch`; `sous clients uninstall` removes it) -->';
const MD_END = '<!-- sous:end -->';

/** A marked block appended to a Markdown file the user may share with other tools (CLAUDE.md, AGENTS.md, …). */
export function markdownBlock(file: string, body: string): ManagedEdit {
  const block = `${MD_BEGIN}\n${body.trim()}\n${MD_END}\n`;
  const range = (text: string): { start: number; end: number } | undefined => {
    const start = text.indexOf(MD_BEGIN);
    const endMarker = start < 0 ? -1 : text.indexOf(MD_END, start);
    if (start < 0 || endMarker < 0) return undefined;
    let end = endMarker + MD_END.length;
    if (text[end] === '\n') end += 1;
    return { start, end };
  };
  return {
    file,
    format: 'markdown',
    apply(current) {
      const text = current ?? '';
      const r = range(text);
      if (r) return text.slice(r.start, r.end) === block ? text : text.slice(0, r.start) + block + text.slice(r.end);
      return text === '' ? block : text + (text.endsWith('\n') ? '\n' : '\n\n') + block;
    },
    remove(current) {
      const r = range(current);
      if (!r) return current;
      let start = r.start;
      if (start >= 2 && current.slice(start - 2, start) === '\n\n') start -= 1;
      const out = current.slice(0, start) + current.slice(r.end);
      return out.trim() === '' ? undefined : out;
    },
    present(current) {
      if (current === undefined) return 'missing';
      const r = range(current);
      return r === undefined ? 'missing' : current.slice(r.start, r.end) === block ? 'ok' : 'drifted';
    },
  };
}

/** The line every whole file Sous owns carries, so it is never mistaken for the user's own. */
export const OWNED_MARKER = 'managed by sous: `sous clients uninstall` removes this file';

/** A whole file that is Sous's alone (a rules file, a skill, a prompt). A same-named file of the user's is a conflict. */
export function ownedFile(file: string, format: FileFormat, content: string): ManagedEdit {
  return {
    file,
    format,
    apply(current, force = false) {
      if (current === undefined || current === content) return content;
      if (!current.includes(OWNED_MARKER) && !force) throw new WiringError('conflict', `${file} exists and was not written by Sous; move it away or pass --force (it is backed up first), then launch again`);
      return content;
    },
    remove(current) {
      // A file Sous replaced with --force is restored from its backup by uninstall; one it never wrote stays.
      return current.includes(OWNED_MARKER) ? undefined : current;
    },
    present(current): Presence {
      if (current === undefined) return 'missing';
      return current === content ? 'ok' : 'drifted';
    },
  };
}
