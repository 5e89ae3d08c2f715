import { ConfigError } from './errors';
import { defaultConfig, DEFAULT_REDACT_PATTERNS } from './defaults';
import {
  FIXED_KEYS,
  PROFILE_FIELDS,
  PROFILE_NAME_PATTERN,
  REQUIRED_PROFILE_FIELDS,
  SECTION_NAMES,
  findConfigKey,
  type ConfigKey,
} from './keys';
import { upgradeLegacyDefault } from './legacy';
import { closestKey } from './suggest';
import { compileRedactPatterns, describeValue, looksSecret } from './secrets';
import type { SousConfig } from './types';

/** One value found in the document, with the key table row that governs it. */
interface Leaf {
  key: string;
  path: string[];
  spec: ConfigKey;
  value: unknown;
}

/** Names that would reach Object.prototype if used as a profile name or route prefix. */
const UNSAFE_NAMES = new Set(['__proto__', 'constructor', 'prototype']);
const REDACT_KEY = 'privacy.redact_patterns';
const ROUTE_ROW = findConfigKey('gateway.routes.<model_prefix>') as ConfigKey;
const HINT_CANDIDATES = [...FIXED_KEYS, ...SECTION_NAMES];

/** True for a TOML table / plain object (not an array, date or other class instance). */
export function isTable(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  // Compare shapes, not identity with this realm's Object.prototype: structuredClone and jest's vm
  // contexts produce plain objects from another realm.
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === null || Object.getPrototypeOf(proto) === null;
}

/** The "unknown key" error with a did-you-mean hint drawn from `candidates`. */
export function unknownKeyError(key: string, file?: string, candidates: readonly string[] = HINT_CANDIDATES): ConfigError {
  const hint = closestKey(key, candidates);
  const tail = hint ? `did you mean ${hint}?` : 'run `sous config keys` to list the valid keys';
  return new ConfigError('unknown_key', `${prefix(file)}unknown key ${key}; ${tail}`, { key, ...(file ? { file } : {}) });
}

/**
 * Validates a parsed TOML document (or any plain object of the same shape) and returns the effective
 * configuration: every key present, missing keys filled from the defaults. Throws the first problem
 * as a one-line `ConfigError` (`unknown_key` or `invalid_value`); secret-looking values are never
 * echoed. `file` (optional) prefixes messages with where the document came from.
 */
export function validateConfigObject(raw: unknown, file?: string): SousConfig {
  if (!isTable(raw)) throw invalid('the configuration', 'a TOML document of tables', raw, file);
  const leaves: Leaf[] = [];
  collect(raw, [], leaves, file);
  for (const leaf of leaves) leaf.value = upgradeLegacyDefault(leaf.key, leaf.value);

  // Redact patterns first: every other value is checked against them.
  const redactLeaf = leaves.find((l) => l.key === REDACT_KEY);
  if (redactLeaf) checkLeaf(redactLeaf, [], file);
  const patterns = compileRedactPatterns((redactLeaf?.value as string[] | undefined) ?? DEFAULT_REDACT_PATTERNS);

  const cfg = defaultConfig();
  for (const leaf of leaves) {
    if (leaf !== redactLeaf) checkLeaf(leaf, patterns, file);
    setAt(cfg as unknown as Record<string, unknown>, leaf.path, leaf.value);
  }
  for (const [name, profile] of Object.entries(cfg.backends)) {
    for (const field of REQUIRED_PROFILE_FIELDS) {
      if ((profile as unknown as Record<string, unknown>)[field] === undefined) {
        const key = `backends.${name}.${field}`;
        throw new ConfigError('invalid_value', `${prefix(file)}${key} is missing; a backend profile needs ${REQUIRED_PROFILE_FIELDS.join(' and ')}`, {
          key,
          ...(file ? { file } : {}),
        });
      }
    }
    profile.api_key_env ??= '';
  }
  return cfg;
}

function collect(node: Record<string, unknown>, path: string[], out: Leaf[], file: string | undefined): void {
  for (const [name, value] of Object.entries(node)) {
    const childPath = [...path, name];
    const key = childPath.join('.');
    const spec = findConfigKey(key);
    if (spec && !spec.key.includes('<')) {
      out.push({ key, path: childPath, spec, value });
    } else if (key === 'backends') {
      collectProfiles(value, out, file);
    } else if (key === 'gateway.routes') {
      collectRoutes(value, out, file);
    } else if (SECTION_NAMES.has(key)) {
      if (!isTable(value)) throw invalid(key, 'a table of settings', value, file);
      collect(value, childPath, out, file);
    } else {
      throw unknownKeyError(key, file);
    }
  }
}

function collectProfiles(value: unknown, out: Leaf[], file: string | undefined): void {
  if (!isTable(value)) throw invalid('backends', 'a table of named profiles ([backends.<profile>])', value, file);
  for (const [name, profile] of Object.entries(value)) {
    checkName(`backends.${name}`, name, 'backend profile name', file);
    if (!PROFILE_NAME_PATTERN.test(name)) {
      throw invalid(`backends.${name}`, 'a profile name made of letters, digits, _ or -', name, file);
    }
    if (!isTable(profile)) throw invalid(`backends.${name}`, 'a table with base_url, model and optional api_key_env', profile, file);
    for (const [field, fieldValue] of Object.entries(profile)) {
      const key = `backends.${name}.${field}`;
      const spec = PROFILE_FIELDS.find((f) => f.key === field);
      if (!spec) throw unknownKeyError(key, file, PROFILE_FIELDS.map((f) => `backends.${name}.${f.key}`));
      out.push({ key, path: ['backends', name, field], spec, value: fieldValue });
    }
    // An empty profile still has to exist so the missing-field check can name it.
    if (Object.keys(profile).length === 0) out.push({ key: `backends.${name}`, path: ['backends', name], spec: emptyProfileRow, value: {} });
  }
}

const emptyProfileRow = findConfigKey('backends.<profile>') as ConfigKey;

function collectRoutes(value: unknown, out: Leaf[], file: string | undefined): void {
  if (!isTable(value)) throw invalid('gateway.routes', 'a table mapping model-name prefixes to URLs', value, file);
  for (const [modelPrefix, target] of Object.entries(value)) {
    const key = `gateway.routes.${modelPrefix}`;
    checkName(key, modelPrefix, 'model-name prefix', file);
    out.push({ key, path: ['gateway', 'routes', modelPrefix], spec: ROUTE_ROW, value: target });
  }
}

function checkName(key: string, name: string, what: string, file: string | undefined): void {
  if (name.length === 0 || UNSAFE_NAMES.has(name)) throw invalid(key, `a non-empty ${what} other than __proto__/constructor/prototype`, name, file);
}

function checkLeaf(leaf: Leaf, patterns: readonly RegExp[], file: string | undefined): void {
  if (leaf.spec === emptyProfileRow) return;
  if (leaf.key !== REDACT_KEY && looksSecret(leaf.value, patterns)) {
    const where = leaf.key === 'exploration.api_key' ? 'write env:NAME here' : 'name that variable in an *_env field such as backend.api_key_env';
    throw new ConfigError(
      'invalid_value',
      `${prefix(file)}${leaf.key} looks like a key value (it matches privacy.redact_patterns) (found ${describeValue(leaf.value, true)}); ` +
        `Sous never stores keys in config: put the key in an environment variable and ${where}`,
      { key: leaf.key, ...(file ? { file } : {}) },
    );
  }
  const { error } = leaf.spec.schema.validate(leaf.value, { convert: false });
  if (error) throw invalid(leaf.key, leaf.spec.expect, leaf.value, file, leaf.spec.sensitive === true);
}

function invalid(key: string, expect: string, value: unknown, file: string | undefined, redact = false): ConfigError {
  return new ConfigError('invalid_value', `${prefix(file)}${key} must be ${expect} (found ${describeValue(value, redact)})`, {
    key,
    ...(file ? { file } : {}),
  });
}

function prefix(file: string | undefined): string {
  return file ? `${file}: ` : '';
}

function setAt(target: Record<string, unknown>, path: readonly string[], value: unknown): void {
  let node = target;
  for (const segment of path.slice(0, -1)) {
    const next = node[segment];
    if (isTable(next)) node = next;
    else {
      const created: Record<string, unknown> = {};
      node[segment] = created;
      node = created;
    }
  }
  const last = path[path.length - 1];
  if (last !== undefined) node[last] = Array.isArray(value) ? [...(value as unknown[])] : value;
}
