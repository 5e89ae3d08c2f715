/**
 * Spec 5.3: the config names environment variables and never holds a key. These helpers find
 * key-like strings and describe values in error messages without echoing anything secret.
 */

import { compileRedactPatterns, redactText } from '@sous/protocol';

export { compileRedactPatterns, redactText };

const MAX_SHOWN = 60;

/** True when `value` (or any string inside it) matches one of the patterns. */
export function looksSecret(value: unknown, patterns: readonly RegExp[]): boolean {
  if (typeof value === 'string') return patterns.some((p) => p.test(value));
  if (Array.isArray(value)) return value.some((v) => looksSecret(v, patterns));
  if (value !== null && typeof value === 'object') return Object.values(value).some((v) => looksSecret(v, patterns));
  return false;
}

/**
 * A short description of a value for an error message: `1.5`, `"cpu"`, `[1,2]`. With `redact` it
 * never shows the value, only its size.
 */
export function describeValue(value: unknown, redact = false): string {
  if (redact) {
    const size = typeof value === 'string' ? `${value.length} characters` : 'value';
    return `[redacted ${size}]`;
  }
  let shown: string;
  if (typeof value === 'string') shown = JSON.stringify(value);
  else if (typeof value === 'number' || typeof value === 'boolean') shown = String(value);
  else if (value === undefined) shown = 'nothing';
  else if (value instanceof Date || (value !== null && typeof value === 'object' && value.constructor?.name === 'TomlDate')) {
    shown = `date ${String(value)}`;
  } else {
    try {
      shown = JSON.stringify(value) ?? String(value);
    } catch {
      shown = String(value);
    }
  }
  return shown.length > MAX_SHOWN ? shown.slice(0, MAX_SHOWN - 1) + '…' : shown;
}
