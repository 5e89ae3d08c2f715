/** Bounded concurrency for file reads. */

/** Files read and parsed at once by default: enough to overlap I/O without flooding the disk. */
export const DEFAULT_READ_CONCURRENCY = 8;

/**
 * Runs `worker` over `items` with at most `limit` calls in flight; results keep input order.
 * The first rejection rejects the whole call (workers already started still finish).
 */
export async function mapLimit<T, R>(items: readonly T[], limit: number, worker: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const lanes = Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await worker(items[i] as T, i);
    }
  });
  await Promise.all(lanes);
  return results;
}
