import { getJson, postJson, message } from '../api.js';
import { ago, announce, el, fill, kv } from '../dom.js';
import type { Focus, Status } from '../types.js';

/** Engine state and health (`GET /status`) and Auto Focus with its reasons and controls (`GET /focus`). */
export async function loadOverview(status: Status | undefined): Promise<void> {
  if (status) renderEngine(status);
  try {
    renderFocus(await getJson<Focus>('/focus'));
  } catch (err) {
    fill('focus', el('p', { class: 'state-bad' }, `Auto Focus unavailable: ${message(err)}`));
  }
}

function yesNo(v: boolean | null): string {
  return v === null ? 'not checked yet' : v ? 'yes' : 'no';
}

export function renderEngine(s: Status): void {
  const p = s.preparation;
  fill(
    'engine',
    el('p', { class: s.status === 'ok' ? 'state-ok' : 'state-warn' }, s.status === 'ok' ? 'Healthy' : 'Degraded'),
    s.reasons && s.reasons.length > 0 ? el('ul', {}, ...s.reasons.map((r) => el('li', {}, `${r.dependency}: ${r.reason}`))) : null,
    kv([
      ['Workspace', s.workspace.root],
      ['Version', `${s.version} (pid ${s.pid}, up ${s.uptime_seconds} s)`],
      ['Policy bundle', s.policy.bundle],
      ['Store', `${s.store.kind}: ${s.store.ok ? 'ok' : (s.store.detail ?? 'failing')}`],
      ['Queue', `${s.queue.kind}: ${s.queue.ok ? 'ok' : (s.queue.detail ?? 'failing')}`],
      ['Index', s.index.state],
      ['Model', `${s.backend.model} at ${s.backend.base_url} (reachable: ${yesNo(s.backend.reachable)})`],
      ['Preparation', `${p.model.mode}: ${p.model.reason}`],
      ['Last cycle', p.last_cycle ? el('span', {}, `${p.last_cycle.trigger}, ${p.last_cycle.candidates} candidates, ${p.last_cycle.landed} landed, `, ago(p.last_cycle.finished_at)) : 'none yet'],
      ['Deferred', p.deferred ?? 'no'],
      ['Config', s.config.last_error ? `last edit refused: ${s.config.last_error}` : el('span', {}, 'loaded ', ago(s.config.loaded_at))],
    ]),
  );
}

/** The actions the daemon offers on a workspace; the daemon decides what they change. */
function controls(f: Focus, refresh: () => void): HTMLElement {
  const own = f.this_workspace;
  const act = async (kind: string, label: string): Promise<void> => {
    try {
      renderFocus(await postJson<Focus>(`/focus/workspaces/${encodeURIComponent(own.id)}/${kind}`));
      announce(`${label}: done`);
      refresh();
    } catch (err) {
      announce(`${label} refused: ${message(err)}`);
    }
  };
  const pinned = own.pinned === true;
  const button = (kind: string, label: string): HTMLButtonElement => el('button', { type: 'button', 'data-focus-action': kind, onclick: () => void act(kind, label) }, label);
  return el(
    'div',
    { class: 'actions', role: 'group', 'aria-label': 'Auto Focus controls' },
    own.class === 'paused' ? button('resume', 'Resume') : button('pause', 'Pause'),
    button('work-here', 'Work here'),
    pinned ? button('unpin', 'Unpin') : button('pin', 'Pin'),
  );
}

let onFocusChange: () => void = () => undefined;

/** Lets the shell refresh the header after a focus action. */
export function whenFocusChanges(fn: () => void): void {
  onFocusChange = fn;
}

export function renderFocus(f: Focus): void {
  const own = f.this_workspace;
  fill(
    'focus',
    el('p', { id: 'focus-class' }, el('strong', {}, own.class), ` — mode ${f.mode}`),
    el('p', { id: 'focus-reason' }, own.reason),
    own.action ? el('p', { class: 'muted' }, own.action) : null,
    controls(f, () => onFocusChange()),
    el('h4', {}, 'Why'),
    el('ul', { id: 'focus-reasons' }, ...f.reasons.map((r) => el('li', {}, r))),
    f.workspaces.length > 1 ? el('h4', {}, 'Other workspaces') : null,
    f.workspaces.length > 1 ? el('ul', {}, ...f.workspaces.filter((w) => w.id !== own.id).map((w) => el('li', {}, `${w.root}: ${w.class} — ${w.reason}`))) : null,
    f.problem ? el('p', { class: 'state-warn' }, f.problem) : null,
  );
}
