import { parseToml as parse, TomlError } from './toml-lib';
import { ConfigError } from './errors';
import { CONFIG_KEYS, PROFILE_FIELDS } from './keys';
import type { SousConfig } from './types';
import { validateConfigObject } from './validate';

/**
 * Parses and validates the text of a config file. Syntax errors name `file:line:column`; the TOML
 * parser's own excerpt of the file is dropped (it would echo file contents, which may hold a secret).
 */
export function parseConfigToml(text: string, fileForMessages: string): SousConfig {
  let raw: unknown;
  try {
    raw = parse(text, { unsafeKeyBehaviour: 'throw' });
  } catch (err) {
    if (err instanceof TomlError) {
      const reason = (err.message.split('\n')[0] ?? 'invalid TOML').replace(/^Invalid TOML document:\s*/, '');
      throw new ConfigError(
        'toml_syntax',
        `${fileForMessages}:${err.line}:${err.column}: TOML syntax error: ${reason}; fix the file (sous config edit)`,
        { file: fileForMessages, line: err.line, column: err.column },
      );
    }
    throw err;
  }
  if (!setsAnyKey(raw)) {
    throw new ConfigError(
      'empty_file',
      `${fileForMessages} sets no key (it is empty, or holds only comments or section headers); Sous refuses it rather than reset every setting, privacy.excluded_patterns included, to its default: restore it (sous config edit), or delete it and run sous init for a fresh file with every default`,
      { file: fileForMessages },
    );
  }
  return validateConfigObject(raw, fileForMessages);
}

/**
 * Whether a parsed TOML document sets at least one key to a value (a table with nothing in it sets
 * none). A truncated or emptied file would otherwise parse as "all defaults" and silently drop the
 * user's exclusions; a missing file still means the defaults (see `loadConfig`).
 */
function setsAnyKey(node: unknown): boolean {
  if (node === null || typeof node !== 'object' || Array.isArray(node)) return true;
  const proto = Object.getPrototypeOf(node) as unknown;
  if (proto !== null && proto !== Object.prototype) return true; // a TOML date
  return Object.values(node).some(setsAnyKey);
}

const BARE_KEY = /^[A-Za-z0-9_-]+$/;

function tomlKey(name: string): string {
  return BARE_KEY.test(name) ? name : JSON.stringify(name);
}

/**
 * One value in TOML syntax: `"text"`, `0.25`, `true`, `["a", "b"]`, `{ model = "x" }`. JSON string
 * escapes are valid TOML basic-string escapes, so JSON.stringify quotes strings.
 */
export function formatTomlValue(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : value > 0 ? 'inf' : value < 0 ? '-inf' : 'nan';
  if (typeof value === 'boolean') return String(value);
  if (Array.isArray(value)) return `[${value.map(formatTomlValue).join(', ')}]`;
  if (value !== null && typeof value === 'object') {
    const fields = Object.entries(value).map(([k, v]) => `${tomlKey(k)} = ${formatTomlValue(v)}`);
    return fields.length ? `{ ${fields.join(', ')} }` : '{}';
  }
  return JSON.stringify(String(value));
}

function valueAt(cfg: SousConfig, key: string): unknown {
  let node: unknown = cfg;
  for (const part of key.split('.')) node = (node as Record<string, unknown> | undefined)?.[part];
  return node;
}

/**
 * Renders a complete, readable config file: every key present, each with a one-line comment and its
 * default. Backend profiles and gateway routes get a commented example when there are none.
 */
export function renderConfigToml(cfg: SousConfig): string {
  const lines: string[] = [
    '# Sous configuration (.sous/config.toml).',
    '# Every key is listed with its default; see docs/configuration.md or `sous config keys`.',
    '# A running daemon reloads this file when it changes. Keys are never stored here: *_env fields',
    '# name the environment variable that holds one.',
  ];
  let section = '';
  for (const row of CONFIG_KEYS) {
    const parts = row.key.split('.');
    const rowSection = parts.slice(0, -1).join('.');
    if (row.key === 'backends.<profile>') {
      lines.push('', `# ${row.description}`);
      renderProfiles(cfg, lines);
      section = '';
      continue;
    }
    if (row.key === 'gateway.routes.<model_prefix>') {
      lines.push('', '[gateway.routes]', `# ${row.description}`);
      const routes = Object.entries(cfg.gateway.routes);
      if (routes.length === 0) lines.push('# "gpt-" = "https://api.openai.com/v1"');
      for (const [modelPrefix, target] of routes) lines.push(`${tomlKey(modelPrefix)} = ${formatTomlValue(target)}`);
      section = 'gateway.routes';
      continue;
    }
    if (rowSection !== section) {
      lines.push('', `[${rowSection}]`);
      section = rowSection;
    }
    const suffix = row.addition ? ' Sous addition.' : '';
    const shownDefault = row.default === undefined ? '' : ` Default: ${formatTomlValue(row.default)}.`;
    lines.push(`# ${row.description}${suffix}${shownDefault}`);
    lines.push(`${parts[parts.length - 1]} = ${formatTomlValue(valueAt(cfg, row.key))}`);
  }
  return lines.join('\n') + '\n';
}

function renderProfiles(cfg: SousConfig, lines: string[]): void {
  const profiles = Object.entries(cfg.backends);
  if (profiles.length === 0) {
    lines.push('# [backends.fast]', '# base_url = "http://127.0.0.1:11434/v1"', '# model = "qwen2.5-coder:7b"', '# api_key_env = ""');
    return;
  }
  for (const [name, profile] of profiles) {
    lines.push(`[backends.${tomlKey(name)}]`);
    for (const field of PROFILE_FIELDS) {
      lines.push(`${field.key} = ${formatTomlValue((profile as unknown as Record<string, unknown>)[field.key] ?? '')}`);
    }
  }
}
