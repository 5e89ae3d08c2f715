/**
 * The only way the cockpit builds DOM: elements with text set through textContent and attributes
 * through setAttribute. Nothing from the daemon is ever parsed as HTML.
 */
export type Child = Node | string | number | null | undefined | false;

export interface Props {
  [attr: string]: string | number | boolean | undefined | ((ev: Event) => void);
}

export function el<K extends keyof HTMLElementTagNameMap>(tag: K, props: Props = {}, ...children: Child[]): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(props)) {
    if (value === undefined || value === false) continue;
    if (typeof value === 'function') node.addEventListener(name.replace(/^on/, ''), value);
    else node.setAttribute(name, value === true ? '' : String(value));
  }
  append(node, ...children);
  return node;
}

export function append(node: Node, ...children: Child[]): void {
  for (const c of children) {
    if (c === null || c === undefined || c === false) continue;
    node.appendChild(typeof c === 'string' || typeof c === 'number' ? document.createTextNode(String(c)) : c);
  }
}

/** Replaces the children of the element with this id. */
export function fill(id: string, ...children: Child[]): HTMLElement {
  const node = byId(id);
  node.replaceChildren();
  append(node, ...children);
  return node;
}

export function byId(id: string): HTMLElement {
  const node = document.getElementById(id);
  if (!node) throw new Error(`cockpit shell has no #${id}`);
  return node;
}

/** A definition list of label/value rows; values are text or nodes. */
export function kv(rows: Array<[string, Child]>): HTMLDListElement {
  const dl = el('dl', { class: 'kv' });
  for (const [k, v] of rows) append(dl, el('dt', {}, k), el('dd', {}, v));
  return dl;
}

/** A short-lived message for screen readers and eyes (the toast region is aria-live). */
export function announce(message: string): void {
  const toast = byId('toast');
  toast.textContent = message;
  window.setTimeout(() => {
    if (toast.textContent === message) toast.textContent = '';
  }, 5000);
}

/** "3 min ago" from an ISO time; the exact time in the title. */
export function ago(iso: string | null | undefined): HTMLElement | string {
  if (!iso) return 'never';
  const seconds = Math.max(0, Math.round((Date.now() - Date.parse(iso)) / 1000));
  const text = seconds < 60 ? `${seconds} s ago` : seconds < 3600 ? `${Math.round(seconds / 60)} min ago` : `${Math.round(seconds / 3600)} h ago`;
  return el('time', { datetime: iso, title: iso }, text);
}
