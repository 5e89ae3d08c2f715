import { ApiFailure, postJson, message } from './api.js';
import { el } from './dom.js';
import type { ConfigKeyInfo } from './types.js';

/** The value at a dotted key of the config object (undefined when absent). */
export function valueAt(config: Record<string, unknown>, key: string): unknown {
  let node: unknown = config;
  for (const part of key.split('.')) {
    if (node === null || typeof node !== 'object') return undefined;
    node = (node as Record<string, unknown>)[part];
  }
  return node;
}

/** The CLI's string form of a value (`sous config set <key> <value>`): strings bare, the rest as JSON/TOML. */
export function cliForm(value: unknown): string {
  if (value === undefined || value === null) return '';
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/** Keys the form edits: one value each (pattern keys such as `backends.<profile>` stay CLI-only). */
export function editable(k: ConfigKeyInfo): boolean {
  return !k.key.includes('<') && !k.type.startsWith('table');
}

let fieldCount = 0;

/**
 * One config key as a labelled field with a Save button. The value goes to `POST /config/set` as
 * typed; the daemon parses and validates it exactly as `sous config set` does, and its refusal is
 * shown under the field (the browser checks nothing itself).
 */
export function configField(info: ConfigKeyInfo, current: unknown, onSaved?: (value: unknown) => void): HTMLElement {
  const id = `cfg-${++fieldCount}`;
  const hintId = `${id}-hint`;
  const errorId = `${id}-error`;
  // Choices the daemon lists (enums, booleans) as a select; the value sent is the same string either way.
  const choices = info.values ?? (info.type === 'bool' ? ['true', 'false'] : undefined);
  const input: HTMLInputElement | HTMLSelectElement = choices
    ? el('select', { id, name: info.key, 'aria-describedby': `${hintId} ${errorId}` }, ...choices.map((v) => el('option', { value: v }, v)))
    : el('input', { id, name: info.key, type: 'text', spellcheck: 'false', autocomplete: 'off', 'aria-describedby': `${hintId} ${errorId}` });
  input.value = cliForm(current);
  const error = el('p', { class: 'error', id: errorId, role: 'alert' });
  const saved = el('p', { class: 'saved', role: 'status' });
  const save = el('button', { type: 'button', 'data-save': info.key }, 'Save');
  const submit = async (): Promise<void> => {
    save.disabled = true;
    error.textContent = '';
    saved.textContent = '';
    input.removeAttribute('aria-invalid');
    try {
      const res = await postJson<{ key: string; value: unknown; reloaded: boolean }>('/config/set', { key: info.key, value: input.value });
      input.value = cliForm(res.value);
      saved.textContent = res.reloaded ? `Saved; the daemon reloaded it.` : `Saved; the daemon has not reloaded it yet.`;
      onSaved?.(res.value);
    } catch (err) {
      input.setAttribute('aria-invalid', 'true');
      error.textContent = err instanceof ApiFailure ? err.message : message(err);
    } finally {
      save.disabled = false;
    }
  };
  save.addEventListener('click', () => void submit());
  input.addEventListener('keydown', (ev) => {
    if ((ev as KeyboardEvent).key === 'Enter') void submit();
  });
  const hint = `${info.description} (${info.type}; default ${info.default === null ? 'none' : cliForm(info.default) || '""'})${info.reserved ? ' — reserved: validated, not acted on yet' : ''}`;
  return el('div', { class: 'field' }, el('label', { for: id }, info.key), input, save, el('p', { class: 'hint', id: hintId }, hint), error, saved);
}
