import { getJson, message } from '../api.js';
import { configField, editable, valueAt } from '../config-field.js';
import { el, fill } from '../dom.js';
import type { ConfigAnswer, ConfigKeyInfo } from '../types.js';

interface Recommendation { tier: string; bundle_id: string; active_bundle: string; trail: string[] }

/**
 * Preferences: the setup reasoning trail (`GET /setup/recommend`), shown verbatim, and the Engine
 * editor over every config key (`GET /config`, `POST /config/set`).
 */
export async function loadPreferences(): Promise<void> {
  await Promise.all([trail(), engine()]);
}

async function trail(): Promise<void> {
  try {
    const r = await getJson<Recommendation>('/setup/recommend');
    fill(
      'trail',
      el('p', {}, `Hardware tier ${r.tier}; recommended bundle `, el('strong', {}, r.bundle_id), `; active bundle `, el('strong', {}, r.active_bundle), '.'),
      // Verbatim (spec 2.9): the daemon's lines, one per line, as text.
      el('pre', { class: 'trail', id: 'setup-trail', tabindex: '0', 'aria-label': 'Reasoning trail' }, r.trail.join('\n')),
      el('p', { class: 'muted' }, 'Apply a bundle with sous setup apply <bundle_id>, or set policy.bundle below.'),
    );
  } catch (err) {
    fill('trail', el('p', { class: 'state-bad' }, message(err)));
  }
}

async function engine(): Promise<void> {
  let answer: ConfigAnswer;
  try {
    answer = await getJson<ConfigAnswer>('/config');
  } catch (err) {
    return void fill('engine-prefs', el('p', { class: 'state-bad' }, message(err)));
  }
  const sections = new Map<string, ConfigKeyInfo[]>();
  for (const k of answer.keys.filter(editable)) {
    const section = k.key.split('.')[0] as string;
    sections.set(section, [...(sections.get(section) ?? []), k]);
  }
  fill(
    'engine-prefs',
    el('p', { class: 'muted' }, `Editing ${answer.path}. Values are written as with sous config set (lists as ["a","b"]); the daemon checks each and hot-reloads it.`),
    answer.last_error ? el('p', { class: 'state-warn' }, `The last edit on disk was refused: ${answer.last_error}`) : null,
    ...[...sections].map(([name, keys]) => el('details', { open: name === 'backend' }, el('summary', {}, name), ...keys.map((k) => configField(k, valueAt(answer.config, k.key))))),
  );
}
