/**
 * The cockpit shell: hash routing between views, a status poll for the header, and the live event
 * stream (`GET /events`) that feeds the activity log and refreshes the feed when cards change.
 * Every view renders daemon answers as text; nothing here decides anything (spec 1, rule 8).
 */
import { eventStream, getJson, message, saveToken, whenTokenNeeded } from './api.js';
import { byId } from './dom.js';
import type { Status } from './types.js';
import { logEvent } from './views/activity.js';
import { loadDiagnostics } from './views/diagnostics.js';
import { loadOverview, renderEngine, whenFocusChanges } from './views/overview.js';
import { loadPreferences } from './views/preferences.js';
import { loadPriorities } from './views/priorities.js';
import { loadSettings } from './views/settings.js';
import { loadWork, wirePrepare } from './views/work.js';

const VIEWS = ['overview', 'work', 'priorities', 'diagnostics', 'activity', 'preferences', 'settings'] as const;
type View = (typeof VIEWS)[number];

/** How often the header and the open view re-read the daemon's state. */
const STATUS_POLL_MS = 5_000;

let status: Status | undefined;

function current(): View {
  const name = location.hash.slice(1);
  return (VIEWS as readonly string[]).includes(name) ? (name as View) : 'overview';
}

async function load(view: View): Promise<void> {
  switch (view) {
    case 'overview':
      return loadOverview(status);
    case 'work':
      return loadWork();
    case 'priorities':
      return loadPriorities(status);
    case 'diagnostics':
      return loadDiagnostics(status);
    case 'activity':
      return;
    case 'preferences':
      return loadPreferences();
    case 'settings':
      return loadSettings(status);
  }
}

function show(view: View, moveFocus: boolean): void {
  for (const name of VIEWS) byId(`view-${name}`).hidden = name !== view;
  for (const a of document.querySelectorAll<HTMLAnchorElement>('nav a')) {
    if (a.getAttribute('href') === `#${view}`) a.setAttribute('aria-current', 'page');
    else a.removeAttribute('aria-current');
  }
  document.title = `${byId(`h-${view}`).textContent ?? ''} · Sous cockpit`;
  if (moveFocus) byId('main').focus();
  void load(view);
}

async function pollStatus(): Promise<void> {
  const health = byId('health');
  try {
    status = await getJson<Status>('/status');
    health.textContent = `${status.status === 'ok' ? 'healthy' : 'degraded'} · ${status.focus.class} · index ${status.index.state}`;
    health.className = `pill ${status.status === 'ok' ? 'ok' : 'warn'}`;
    if (current() === 'overview') renderEngine(status);
  } catch (err) {
    status = undefined;
    health.textContent = message(err);
    health.className = 'pill bad';
  }
}

const STREAM_EVENTS = new Set(['cycle.started', 'cycle.finished', 'cycle.deferred', 'card.landed', 'card.stale', 'card.superseded', 'card.dismissed', 'card.feedback']);

/** The live stream (read with fetch so it can carry the token); reconnects after the daemon restarts. */
function stream(): void {
  const label = byId('stream');
  eventStream('/events', {
    open() {
      label.textContent = 'live stream: connected';
      label.className = 'pill ok';
    },
    error() {
      label.textContent = 'live stream: reconnecting…';
      label.className = 'pill warn';
    },
    event(type, raw) {
      if (!STREAM_EVENTS.has(type)) return;
      let data: Record<string, unknown>;
      try {
        data = JSON.parse(raw) as Record<string, unknown>;
      } catch {
        return;
      }
      logEvent(type, data);
      if (type.startsWith('card.') && type !== 'card.feedback') void loadWork();
      if (type === 'cycle.finished') {
        void pollStatus().then(() => (current() === 'priorities' ? loadPriorities(status) : undefined));
      }
    },
  });
}

/** The token form: shown on a 401; the token is kept in this browser and the page starts again with it. */
function wireToken(): void {
  const form = byId('token-form') as HTMLFormElement;
  const input = byId('token-input') as HTMLInputElement;
  whenTokenNeeded((refused) => {
    if (!form.hidden) return;
    byId('token-note').textContent = refused ? 'The saved token was refused; paste a current one.' : 'This daemon asks for a token; paste the one you were given.';
    form.hidden = false;
    input.focus();
  });
  form.addEventListener('submit', (ev) => {
    ev.preventDefault();
    const token = input.value.trim();
    if (token === '') return;
    saveToken(token);
    location.reload();
  });
}

function start(): void {
  wireToken();
  wirePrepare();
  whenFocusChanges(() => void pollStatus());
  window.addEventListener('hashchange', () => show(current(), true));
  void pollStatus().then(() => show(current(), false));
  // The feed is kept current in the background so a landing card is there when the view opens.
  void loadWork();
  stream();
  window.setInterval(() => {
    void pollStatus().then(() => {
      const view = current();
      if (view === 'overview' || view === 'diagnostics') void load(view);
    });
  }, STATUS_POLL_MS);
  if ('serviceWorker' in navigator) {
    navigator.serviceWorker.register('/sw.js', { scope: '/' }).catch(() => undefined);
  }
}

start();
