/** Picking the k best of many items without sorting them all. */

/**
 * The `k` best `items` by `before` (true when `a` ranks before `b`; must be a strict total order),
 * best first. A bounded heap: O(n log k) instead of sorting all n items.
 */
export function topK<T>(items: readonly T[], k: number, before: (a: T, b: T) => boolean): T[] {
  if (k <= 0) return [];
  if (k >= items.length) return [...items].sort((a, b) => (before(a, b) ? -1 : before(b, a) ? 1 : 0));
  // Min-heap on rank: the root is the worst item kept so far.
  const heap: T[] = [];
  const worse = (i: number, j: number): boolean => before(heap[j] as T, heap[i] as T);
  const swap = (i: number, j: number): void => {
    const t = heap[i] as T;
    heap[i] = heap[j] as T;
    heap[j] = t;
  };
  const down = (from: number): void => {
    let i = from;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if (l < heap.length && worse(l, m)) m = l;
      if (r < heap.length && worse(r, m)) m = r;
      if (m === i) return;
      swap(i, m);
      i = m;
    }
  };
  for (const item of items) {
    if (heap.length < k) {
      heap.push(item);
      for (let i = heap.length - 1; i > 0; ) {
        const parent = (i - 1) >> 1;
        if (!worse(i, parent)) break;
        swap(i, parent);
        i = parent;
      }
    } else if (before(item, heap[0] as T)) {
      heap[0] = item;
      down(0);
    }
  }
  return heap.sort((a, b) => (before(a, b) ? -1 : before(b, a) ? 1 : 0));
}
