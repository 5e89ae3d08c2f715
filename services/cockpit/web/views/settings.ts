import { getJson, postJson, message } from '../api.js';
import { configField, editable, valueAt } from '../config-field.js';
import { announce, byId, el, fill, kv } from '../dom.js';
import type { ConfigAnswer, ConfigKeyInfo, Status } from '../types.js';

/** The handful of keys most people change; the rest are under Preferences > Engine. */
const COMMON_KEYS = ['policy.bundle', 'backend.base_url', 'backend.model', 'compute.cpu_fraction', 'compute.idle_only', 'privacy.allowed_paths'];

interface BeforeInstallPrompt extends Event {
  prompt(): Promise<void>;
  userChoice: Promise<{ outcome: string }>;
}

let installPrompt: BeforeInstallPrompt | undefined;
window.addEventListener('beforeinstallprompt', (ev) => {
  ev.preventDefault();
  installPrompt = ev as BeforeInstallPrompt;
  // The browser decides late (manifest, icons and worker checked): show the offer if Settings is open.
  if (!byId('view-settings').hidden) install();
});

/** Settings: install status, start/stop, client wiring (`GET /clients`) and common settings. */
export async function loadSettings(status: Status | undefined): Promise<void> {
  install();
  if (status) daemon(status);
  await Promise.all([clients(), common()]);
}

function install(): void {
  const standalone = window.matchMedia('(display-mode: standalone)').matches;
  const worker = 'serviceWorker' in navigator ? (navigator.serviceWorker.controller ? 'active: the shell opens offline' : 'registered on the next load') : 'not supported by this browser';
  const button = el('button', { type: 'button', class: 'primary' }, 'Install the cockpit app');
  button.disabled = standalone || installPrompt === undefined;
  button.addEventListener('click', () => {
    if (!installPrompt) return;
    void installPrompt.prompt();
    void installPrompt.userChoice.then((c) => announce(c.outcome === 'accepted' ? 'Installed.' : 'Not installed.'));
  });
  fill(
    'install',
    kv([
      ['Running as', standalone ? 'installed app' : 'browser tab'],
      ['Offline shell', worker],
    ]),
    el('div', { class: 'actions' }, button),
    el('p', { class: 'muted' }, standalone ? 'Installed.' : installPrompt ? 'This browser offers to install the cockpit.' : 'Use the browser menu (Install app) when the button is not offered.'),
  );
}

function commandRow(label: string, command: string): HTMLElement {
  const copy = el('button', { type: 'button', 'aria-label': `Copy: ${command}` }, 'Copy');
  copy.addEventListener('click', () => navigator.clipboard.writeText(command).then(() => announce('Copied.'), () => announce('Copy not allowed; select the command instead.')));
  return el('div', { class: 'actions' }, el('span', {}, `${label}: `), el('code', {}, command), copy);
}

function daemon(s: Status): void {
  const root = s.workspace.root;
  const paused = s.focus.class === 'paused';
  const toggle = el('button', { type: 'button', 'data-focus-action': paused ? 'resume' : 'pause' }, paused ? 'Resume preparation' : 'Pause preparation');
  toggle.addEventListener('click', () =>
    postJson(`/focus/workspaces/${encodeURIComponent(s.workspace.id)}/${paused ? 'resume' : 'pause'}`).then(
      () => announce(paused ? 'Resumed.' : 'Paused.'),
      (err) => announce(message(err)),
    ),
  );
  // Stop as `sous down` does (POST /lifecycle/stop); the daemon refuses it unless it listens on loopback.
  const stop = el('button', { type: 'button', id: 'stop-daemon' }, 'Stop the daemon');
  stop.addEventListener('click', () => {
    if (!window.confirm('Stop the Sous daemon for this repository? Start it again with sous up.')) return;
    postJson<{ start_again: string }>('/lifecycle/stop').then(
      (answer) => announce(`Stopping. Start it again with ${answer.start_again}.`),
      (err) => announce(message(err)),
    );
  });
  fill(
    'daemon',
    kv([
      ['Daemon', `running, pid ${s.pid}, ${s.host}:${s.port}`],
      ['Workspace', root],
      ['Auto Focus', s.focus.reason],
    ]),
    el('div', { class: 'actions' }, toggle, stop),
    el('p', { class: 'muted' }, 'A web page cannot start a stopped daemon; from a terminal:'),
    commandRow('Start', `sous up --path ${root}`),
    commandRow('Stop', `sous down --path ${root}`),
  );
}

async function clients(): Promise<void> {
  try {
    const { clients: list } = await getJson<{ clients: Array<{ id: string; name: string; installed: boolean; wired: boolean }> }>('/clients');
    fill(
      'clients',
      el(
        'table',
        {},
        el('thead', {}, el('tr', {}, ...['Client', 'Installed', 'Wired here'].map((h) => el('th', { scope: 'col' }, h)))),
        el('tbody', {}, ...list.map((c) => el('tr', {}, el('td', {}, c.name), el('td', {}, c.installed ? 'yes' : 'no'), el('td', {}, c.wired ? 'yes' : 'no')))),
      ),
      el('p', { class: 'muted' }, 'Wire one with sous launch <client_id>; check with sous clients verify.'),
    );
  } catch (err) {
    fill('clients', el('p', { class: 'state-bad' }, message(err)));
  }
}

async function common(): Promise<void> {
  try {
    const answer = await getJson<ConfigAnswer>('/config');
    const keys = COMMON_KEYS.map((k) => answer.keys.find((i) => i.key === k)).filter((k): k is ConfigKeyInfo => k !== undefined && editable(k));
    fill('common', ...keys.map((k) => configField(k, valueAt(answer.config, k.key))));
  } catch (err) {
    fill('common', el('p', { class: 'state-bad' }, message(err)));
  }
}
