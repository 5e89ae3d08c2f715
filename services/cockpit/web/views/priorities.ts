import { getJson, message } from '../api.js';
import { ago, el, fill, kv } from '../dom.js';
import type { Status } from '../types.js';

interface Goal { id: string; title: string; status: string; related_files: string[]; reconciliation_state: string; reconciliation_reasons?: string[] }
interface Prediction { id: string; source: string; prompt: string; weight: number; state: string; category?: string | null; updated_at: string }

/**
 * Priorities: the frontier of the latest preparation cycle (`GET /status` preparation.last_cycle), goals
 * (`GET /goals`) and predictions (`GET /predictions/dashboard`).
 */
export async function loadPriorities(status: Status | undefined): Promise<void> {
  frontier(status);
  await Promise.all([goals(), predictions()]);
}

function frontier(status: Status | undefined): void {
  const c = status?.preparation.last_cycle;
  if (!c) return void fill('frontier', el('p', { class: 'muted' }, status ? 'No preparation cycle has finished yet.' : 'The daemon is not reachable.'));
  fill(
    'frontier',
    kv([
      ['Files on the frontier', String(c.frontier)],
      ['Trigger', c.trigger],
      ['Candidates scored', String(c.candidates)],
      ['Ready / landed', `${c.ready} / ${c.landed}`],
      ['Finished', ago(c.finished_at)],
    ]),
    el('p', { class: 'muted' }, 'The frontier is the set of recently changed files and their neighbours a cycle explores, highest priority first.'),
  );
}

async function goals(): Promise<void> {
  try {
    const { goals: list } = await getJson<{ goals: Goal[] }>('/goals');
    if (list.length === 0) return void fill('goals', el('p', { class: 'muted' }, 'No goals declared (sous goals declare <title>, or your agent through the MCP goal tools).'));
    fill(
      'goals',
      el(
        'ul',
        {},
        ...list.map((g) =>
          el('li', {}, el('strong', {}, g.title), ` — ${g.status}, ${g.reconciliation_state}`, g.related_files.length ? el('div', { class: 'muted' }, g.related_files.join(', ')) : null),
        ),
      ),
    );
  } catch (err) {
    fill('goals', el('p', { class: 'state-bad' }, message(err)));
  }
}

async function predictions(): Promise<void> {
  try {
    const d = await getJson<{ predictions: Prediction[]; by_state: Record<string, number> }>('/predictions/dashboard');
    if (d.predictions.length === 0) return void fill('predictions', el('p', { class: 'muted' }, 'No predictions yet.'));
    fill(
      'predictions',
      el('p', { class: 'muted' }, Object.entries(d.by_state).map(([k, v]) => `${k}: ${v}`).join(', ')),
      el(
        'table',
        {},
        el('thead', {}, el('tr', {}, ...['Weight', 'State', 'Source', 'Anticipated prompt', 'Updated'].map((h) => el('th', { scope: 'col' }, h)))),
        el('tbody', {}, ...d.predictions.slice(0, 50).map((p) => el('tr', {}, el('td', {}, p.weight.toFixed(2)), el('td', {}, p.state), el('td', {}, p.source), el('td', {}, p.prompt), el('td', {}, ago(p.updated_at))))),
      ),
    );
  } catch (err) {
    fill('predictions', el('p', { class: 'state-bad' }, message(err)));
  }
}
