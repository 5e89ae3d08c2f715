import { getJson, postJson, message } from '../api.js';
import { ago, announce, byId, el } from '../dom.js';
import type { Card, ExportPayload, Inspected } from '../types.js';

const FEEDBACK = ['useful', 'partial', 'irrelevant', 'wrong'] as const;

/** The Prepared Work feed (`GET /prepared-work`): cards keep their open panels across refreshes. */
export async function loadWork(): Promise<void> {
  let feed: { cards: Card[]; note?: string };
  try {
    feed = await getJson<{ cards: Card[]; note?: string }>('/prepared-work');
  } catch (err) {
    byId('work-note').textContent = `Feed unavailable: ${message(err)}`;
    return;
  }
  byId('work-note').textContent = feed.note ?? `${feed.cards.length} card${feed.cards.length === 1 ? '' : 's'}`;
  const list = byId('feed');
  const existing = new Map([...list.querySelectorAll<HTMLElement>('li[data-card-id]')].map((n) => [n.dataset['cardId'] as string, n]));
  const wanted = new Set(feed.cards.map((c) => c.id));
  for (const [id, node] of existing) if (!wanted.has(id)) node.remove();
  for (const card of feed.cards) {
    const node = existing.get(card.id) ?? cardNode(card);
    list.appendChild(node); // appending an existing node moves it: feed order, open panels kept
  }
}

function evidenceLine(e: Card['evidence'][number]): HTMLElement {
  const where = e.line_start === null ? e.path : `${e.path}:${e.line_start}${e.line_end !== null && e.line_end !== e.line_start ? `-${e.line_end}` : ''}`;
  return el('li', {}, el('code', {}, where), e.commit ? ` @ ${e.commit.slice(0, 10)}` : '', e.note ? ` — ${e.note}` : '');
}

function cardNode(card: Card): HTMLElement {
  const titleId = `card-${card.id}-title`;
  const panel = el('div', { class: 'card-panel' });
  const exportPanel = el('div', { class: 'card-panel' });
  const status = el('p', { class: 'muted', role: 'status' });
  const node: HTMLLIElement = el(
    'li',
    { class: 'card', 'data-card-id': card.id, 'aria-labelledby': titleId },
    el('h3', { id: titleId }, el('span', { class: 'kind' }, card.kind.replace(/_/g, ' ')), card.title),
    el('p', {}, card.summary),
    card.why_now ? el('p', {}, el('strong', {}, 'Why now: '), card.why_now) : null,
    card.action ? el('p', {}, el('strong', {}, 'Suggested: '), card.action) : null,
    el('h4', {}, 'Evidence'),
    el('ul', { class: 'evidence' }, ...card.evidence.map(evidenceLine)),
    el('p', { class: 'muted' }, 'Prepared ', ago(card.prepared_at)),
    actions(card, () => node, { inspect: panel, export: exportPanel }, status),
    status,
    panel,
    exportPanel,
  );
  return node;
}

/** Buttons for exactly the actions the daemon listed on this card. */
function actions(card: Card, self: () => HTMLElement, panels: { inspect: HTMLElement; export: HTMLElement }, status: HTMLElement): HTMLElement {
  const panel = panels.inspect;
  const group = el('div', { class: 'actions', role: 'group', 'aria-label': `Actions on ${card.title}` });
  const base = `/work-products/${encodeURIComponent(card.id)}`;
  const fail = (what: string) => (err: unknown) => {
    status.textContent = `${what} failed: ${message(err)}`;
  };
  for (const action of card.actions) {
    if (action === 'inspect') {
      const b = el('button', { type: 'button', 'data-action': 'inspect', 'aria-expanded': 'false' }, 'Inspect');
      b.addEventListener('click', () => {
        if (b.getAttribute('aria-expanded') === 'true') {
          b.setAttribute('aria-expanded', 'false');
          panel.replaceChildren();
          return;
        }
        getJson<Inspected>(`${base}/inspect`).then((d) => {
          b.setAttribute('aria-expanded', 'true');
          panel.replaceChildren(
            el('h4', {}, 'Details'),
            el('p', {}, d.body),
            d.rationale ? el('p', {}, el('strong', {}, 'Rationale: '), d.rationale) : '',
            d.warnings.length > 0 ? el('ul', { class: 'state-warn' }, ...d.warnings.map((w) => el('li', {}, w))) : '',
            el('h4', {}, 'Preview'),
            el('pre', { tabindex: '0', 'aria-label': 'Preview' }, d.preview),
          );
        }, fail('Inspect'));
      });
      group.appendChild(b);
    } else if (action === 'export') {
      group.appendChild(
        el('button', { type: 'button', 'data-action': 'export', onclick: () => postJson<ExportPayload>(`${base}/export`).then((x) => showExport(panels.export, x), fail('Export')) }, 'Export'),
      );
    } else if (action === 'adopt') {
      group.appendChild(
        el('button', { type: 'button', 'data-action': 'adopt', onclick: () => postJson(`${base}/adopt`).then(() => (status.textContent = 'Adopted.'), fail('Adopt')) }, 'Adopt'),
      );
    } else if (action === 'dismiss') {
      group.appendChild(
        el(
          'button',
          {
            type: 'button',
            'data-action': 'dismiss',
            onclick: () =>
              postJson(`${base}/dismiss`).then(() => {
                self().remove();
                announce(`Dismissed: ${card.title}`);
              }, fail('Dismiss')),
          },
          'Dismiss',
        ),
      );
    } else if (action === 'feedback') {
      const fb = el('span', { role: 'group', 'aria-label': 'Feedback', class: 'actions' }, el('span', { class: 'muted' }, 'Feedback:'));
      for (const value of FEEDBACK) {
        fb.appendChild(
          el(
            'button',
            { type: 'button', 'data-feedback': value, onclick: () => postJson(`${base}/feedback`, { value }).then(() => (status.textContent = `Feedback recorded: ${value}.`), fail('Feedback')) },
            value,
          ),
        );
      }
      group.appendChild(fb);
    }
  }
  return group;
}

/** The exported patch or markdown, shown as text, with Copy. */
function showExport(panel: HTMLElement, x: ExportPayload): void {
  const pre = el('pre', { tabindex: '0', 'aria-label': `Export ${x.filename}`, 'data-export': x.format }, x.content);
  const copied = el('span', { role: 'status', class: 'muted' });
  const copy = el('button', { type: 'button', 'data-action': 'copy' }, 'Copy');
  copy.addEventListener('click', () => {
    navigator.clipboard.writeText(x.content).then(
      () => (copied.textContent = 'Copied.'),
      () => {
        // No clipboard permission: select the text so Ctrl-C copies it.
        const range = document.createRange();
        range.selectNodeContents(pre);
        window.getSelection()?.removeAllRanges();
        window.getSelection()?.addRange(range);
        copied.textContent = 'Selected; press Ctrl-C to copy.';
      },
    );
  });
  panel.replaceChildren(el('h4', {}, `Export (${x.format}): ${x.filename}`), el('div', { class: 'actions' }, copy, copied), pre);
}

/** `Prepare now`: queues a warm cycle (`POST /prepare`); a paused workspace gets the daemon's reason. */
export function wirePrepare(): void {
  const button = byId('prepare-now') as HTMLButtonElement;
  button.addEventListener('click', () => {
    button.disabled = true;
    postJson<{ job: { id: string } }>('/prepare')
      .then((r) => announce(`Preparation queued (job ${r.job.id}).`), (err) => announce(`Not queued: ${message(err)}`))
      .finally(() => (button.disabled = false));
  });
}

