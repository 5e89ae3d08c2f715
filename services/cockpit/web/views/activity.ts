import { byId, el } from '../dom.js';

/** Most lines the activity log keeps (older ones drop off the bottom). */
const MAX_LINES = 200;

type EventData = Record<string, unknown>;

/** One engine event as a line a person reads (the same wording as `sous watch`). */
export function describeEvent(type: string, d: EventData): string {
  const s = (k: string): string => String(d[k] ?? '');
  switch (type) {
    case 'cycle.started':
      return `cycle started (${s('trigger')})`;
    case 'cycle.finished':
      return `cycle finished in ${s('duration_ms')} ms: ${s('candidates')} candidates, ${s('landed')} landed, ${s('stale')} stale`;
    case 'cycle.deferred':
      return `cycle deferred: ${s('reason')}`;
    case 'card.landed':
      return `+ ${s('kind')}: ${s('title')}`;
    case 'card.stale':
      return `~ stale ${s('id')}: ${s('reason')}`;
    case 'card.superseded':
      return `~ superseded ${s('id')} by ${s('by')}`;
    case 'card.dismissed':
      return `- dismissed ${s('id')}`;
    case 'card.feedback':
      return `feedback ${s('value')} on ${s('id')}`;
    default:
      return type;
  }
}

/** Adds an event to the top of the live activity log. */
export function logEvent(type: string, d: EventData): void {
  const at = typeof d['at'] === 'string' ? (d['at'] as string) : new Date().toISOString();
  const log = byId('activity');
  log.prepend(el('li', { 'data-event': type }, el('time', { datetime: at }, at.slice(11, 19)), ' ', describeEvent(type, d)));
  while (log.childElementCount > MAX_LINES) log.lastElementChild?.remove();
}
