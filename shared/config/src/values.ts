import { parseToml as parse } from './toml-lib';
import { ConfigError } from './errors';
import { DEFAULT_REDACT_PATTERNS } from './defaults';
import { FIXED_KEYS, PROFILE_FIELDS, SECTION_NAMES, findConfigKey, type ConfigKey, type ConfigValue } from './keys';
import { compileRedactPatterns, describeValue, looksSecret } from './secrets';
import type { SousConfig } from './types';
import { isTable, unknownKeyError } from './validate';

/** A dotted key resolved against the key table: the row that governs it and its path in SousConfig. */
export interface ResolvedKey {
  row: ConfigKey;
  path: string[];
}

const PROFILE_ROW = findConfigKey('backends.<profile>') as ConfigKey;
const ROUTE_ROW = findConfigKey('gateway.routes.<model_prefix>') as ConfigKey;
const DEFAULT_PATTERNS = compileRedactPatterns(DEFAULT_REDACT_PATTERNS);

/** Resolves a settable dotted key, or throws `unknown_key` (with a hint) / `invalid_value` for a section. */
export function resolveKey(key: string): ResolvedKey {
  const fixed = findConfigKey(key);
  if (fixed && !fixed.key.includes('<')) return { row: fixed, path: key.split('.') };
  if (key.startsWith('gateway.routes.') && key.length > 'gateway.routes.'.length) {
    return { row: ROUTE_ROW, path: ['gateway', 'routes', key.slice('gateway.routes.'.length)] };
  }
  const profile = /^backends\.([^.]+)(?:\.([^.]+))?$/.exec(key);
  if (profile?.[1]) {
    if (!profile[2]) return { row: PROFILE_ROW, path: ['backends', profile[1]] };
    const field = PROFILE_FIELDS.find((f) => f.key === profile[2]);
    if (!field) throw unknownKeyError(key, undefined, PROFILE_FIELDS.map((f) => `backends.${profile[1]}.${f.key}`));
    return { row: field, path: ['backends', profile[1], field.key] };
  }
  if (SECTION_NAMES.has(key)) {
    const example = FIXED_KEYS.find((k) => k.startsWith(key + '.')) ?? `${key}.<name>`;
    throw new ConfigError('invalid_value', `${key} is a section, not a key; name one of its keys, e.g. ${example}`, { key });
  }
  throw unknownKeyError(key);
}

/**
 * The value of a dotted key in `cfg`: a leaf (`compute.cpu_fraction`), a section (`compute`), a
 * backend profile (`backends.fast`) or a route (`gateway.routes.gpt-`). Unknown keys and missing
 * profiles/routes throw `unknown_key`. Returns a copy.
 */
export function getConfigValue(cfg: SousConfig, key: string): unknown {
  if (SECTION_NAMES.has(key)) return structuredClone(walk(cfg, key.split('.')));
  const { path } = resolveKey(key);
  const value = walk(cfg, path);
  if (value === undefined) {
    const what = path[0] === 'backends' ? `no backend profile named ${path[1]}` : `no gateway route for model prefix ${path[2]}`;
    throw new ConfigError('unknown_key', `${what} is configured; run \`sous config show\` to see the configuration`, { key });
  }
  return structuredClone(value);
}

function walk(node: unknown, path: readonly string[]): unknown {
  let current = node;
  for (const part of path) current = isTable(current) && Object.prototype.hasOwnProperty.call(current, part) ? current[part] : undefined;
  return current;
}

const NUMBER = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/;

/**
 * Turns a command-line string into a typed value for `key`: `true`/`false`, numbers, lists written
 * as TOML/JSON arrays (`'["src/**","lib/**"]'`), inline tables for a whole backend profile
 * (`'{ base_url = "…", model = "…" }'`), and strings (optionally JSON-quoted). Only the syntax is
 * checked here; ranges and the secrets rule are checked when the whole config is validated.
 */
export function parseConfigValue(key: string, raw: string): ConfigValue {
  const { row } = resolveKey(key);
  const text = raw.trim();
  const fail = (): ConfigError =>
    new ConfigError(
      'invalid_value',
      `${key} must be ${row.expect}${syntaxHint(row)} (found ${describeValue(raw, row.sensitive === true || looksSecret(raw, DEFAULT_PATTERNS))})`,
      { key },
    );
  switch (row.kind) {
    case 'boolean':
      if (text === 'true' || text === 'false') return text === 'true';
      throw fail();
    case 'integer':
    case 'number':
      if (NUMBER.test(text)) return Number(text);
      throw fail();
    case 'list': {
      const value = text.startsWith('[') ? inlineToml(text) : undefined;
      if (Array.isArray(value)) return value as string[];
      throw fail();
    }
    case 'table': {
      const value = text.startsWith('{') ? (jsonObject(text) ?? inlineToml(text)) : undefined;
      if (isTable(value)) return { ...value };
      throw fail();
    }
    case 'string':
      if (text.length >= 2 && text.startsWith('"') && text.endsWith('"')) {
        try {
          const unquoted: unknown = JSON.parse(text);
          if (typeof unquoted === 'string') return unquoted;
        } catch {
          // Not a JSON string: take the raw text as written.
        }
      }
      return raw;
  }
}

function syntaxHint(row: ConfigKey): string {
  if (row.kind === 'list') return `, written as a TOML/JSON array such as '["src/**", "docs/**"]'`;
  if (row.kind === 'table') return `, written as an inline table such as '{ base_url = "http://127.0.0.1:11434/v1", model = "m" }'`;
  return '';
}

function inlineToml(text: string): unknown {
  try {
    return parse(`value = ${text}`, { unsafeKeyBehaviour: 'throw' }).value;
  } catch {
    return undefined;
  }
}

function jsonObject(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return isTable(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

/**
 * A copy of `cfg` with `key` set to `value` (not validated: pass the result to
 * `validateConfigObject`). Missing backend profiles / routes are created.
 */
export function withConfigValue(cfg: SousConfig, key: string, value: ConfigValue): SousConfig {
  const { path } = resolveKey(key);
  const next = structuredClone(cfg) as unknown as Record<string, unknown>;
  let node = next;
  for (const part of path.slice(0, -1)) {
    const child = node[part];
    if (isTable(child)) node = child;
    else {
      const created: Record<string, unknown> = {};
      node[part] = created;
      node = created;
    }
  }
  const last = path[path.length - 1] as string;
  node[last] = structuredClone(value);
  return next as unknown as SousConfig;
}
