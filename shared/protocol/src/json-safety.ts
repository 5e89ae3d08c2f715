/**
 * Values no Sous edge accepts in JSON it receives (HTTP bodies, query values, path ids, MCP tool
 * arguments), whatever the schema behind it says:
 *
 * - the keys `__proto__`, `constructor` and `prototype`: an object built from them by a careless
 *   merge or clone changes the prototype of every object (joi itself drops `__proto__` silently,
 *   so a schema alone never sees it);
 * - U+0000 (NUL) in any string or key: PostgreSQL text cannot hold it, so it would fail deep in a
 *   query as a 500 instead of at the edge as the client's mistake.
 */

/** Object keys refused at every JSON edge. */
export const FORBIDDEN_JSON_KEYS: readonly string[] = ['__proto__', 'constructor', 'prototype'];

/** The first refused key or string in a value, with its path from the root (joi-style segments). */
export interface UnsafeJson {
  path: Array<string | number>;
  /** One sentence naming the problem, without the path (callers prefix it with theirs). */
  problem: string;
}

/**
 * The first forbidden key or NUL-carrying string in `value` (depth-first, keys before values), or
 * undefined. Iterative: a body nested a hundred thousand levels deep cannot overflow the stack.
 */
export function findUnsafeJson(value: unknown): UnsafeJson | undefined {
  // Each entry links to its parent: paths are built only for the one value reported, so a deeply
  // nested body costs linear time.
  interface Entry { value: unknown; parent: Entry | undefined; key: string | number }
  const pathOf = (entry: Entry | undefined, last?: string): Array<string | number> => {
    const path: Array<string | number> = last === undefined ? [] : [last];
    for (let e = entry; e?.parent !== undefined; e = e.parent) path.push(e.key);
    return path.reverse();
  };
  const stack: Entry[] = [{ value, parent: undefined, key: '' }];
  while (stack.length > 0) {
    const entry = stack.pop() as Entry;
    const v = entry.value;
    if (typeof v === 'string') {
      if (v.includes('\u0000')) return { path: pathOf(entry), problem: 'contains a NUL character (U+0000), which Sous does not accept in any text' };
      continue;
    }
    if (typeof v !== 'object' || v === null) continue;
    if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) stack.push({ value: v[i], parent: entry, key: i });
      continue;
    }
    const keys = Object.keys(v);
    for (const key of keys) {
      if (FORBIDDEN_JSON_KEYS.includes(key)) return { path: pathOf(entry, key), problem: `is a key Sous refuses (${FORBIDDEN_JSON_KEYS.join(', ')} are never accepted)` };
      if (key.includes('\u0000')) return { path: pathOf(entry, key.replace(/\u0000/g, '\\u0000')), problem: 'is a key with a NUL character (U+0000), which Sous does not accept' };
    }
    for (let i = keys.length - 1; i >= 0; i--) {
      const key = keys[i] as string;
      stack.push({ value: (v as Record<string, unknown>)[key], parent: entry, key });
    }
  }
  return undefined;
}
