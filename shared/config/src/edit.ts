import { isDeepStrictEqual } from 'node:util';
import type * as TomlPatch from '@decimalturn/toml-patch' with { 'resolution-mode': 'import' };
import { parseConfigToml, renderConfigToml } from './toml';
import type { SousConfig } from './types';
import type { ConfigValue } from './keys';
import { resolveKey } from './values';

// ESM-only package: loaded on first edit (a dynamic import stays one in node16 CommonJS output).
let library: Promise<typeof TomlPatch> | undefined;
const tomlPatch = (): Promise<typeof TomlPatch> => (library ??= import('@decimalturn/toml-patch'));

/** The new text of a config file, and whether the user's comments and layout were kept. */
export interface EditedConfigText {
  text: string;
  inPlace: boolean;
}

/**
 * The config file's text with `values` set, everything else as the user wrote it (comments, order,
 * blank lines): only the changed values are rewritten. The edit is checked by reading it back: when
 * it does not read as exactly `next` (a layout the patcher cannot follow), the whole file is rendered
 * again from `next` instead, and `inPlace` is false so the caller can keep the old text.
 */
export async function editConfigText(text: string, values: ReadonlyArray<readonly [string, ConfigValue]>, next: SousConfig, fileForMessages: string): Promise<EditedConfigText> {
  const edited = await patched(text, values);
  if (edited !== undefined && readsAs(edited, next, fileForMessages)) return { text: edited, inPlace: true };
  return { text: renderConfigToml(next), inPlace: false };
}

async function patched(text: string, values: ReadonlyArray<readonly [string, ConfigValue]>): Promise<string | undefined> {
  const { parse, patch } = await tomlPatch();
  try {
    const doc = parse(text) as Record<string, unknown>;
    for (const [key, value] of values) setPath(doc, resolveKey(key).path, value);
    return patch(text, doc);
  } catch {
    return undefined; // the checked fallback renders the file instead
  }
}

function readsAs(text: string, next: SousConfig, fileForMessages: string): boolean {
  try {
    // Through JSON: the config is plain data, and objects from structuredClone may come from another
    // realm (a VM context) whose prototypes a strict comparison would tell apart.
    return isDeepStrictEqual(plain(parseConfigToml(text, fileForMessages)), plain(next));
  } catch {
    return false;
  }
}

const plain = (value: unknown): unknown => JSON.parse(JSON.stringify(value)) as unknown;

function setPath(doc: Record<string, unknown>, path: readonly string[], value: ConfigValue): void {
  let node = doc;
  for (const part of path.slice(0, -1)) {
    const child = node[part];
    if (child !== null && typeof child === 'object' && !Array.isArray(child)) node = child as Record<string, unknown>;
    else node = node[part] = {};
  }
  node[path[path.length - 1] as string] = structuredClone(value);
}
