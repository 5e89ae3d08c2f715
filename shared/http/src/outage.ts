import { ApiError } from '@sous/protocol';

/** Which dependency an error says is down, by the stable codes of StoreError and JobError. */
const OUTAGE_CODES: Record<string, Record<string, 'store' | 'queue'>> = {
  StoreError: { store_unavailable: 'store', store_unreachable: 'store', store_closed: 'store' },
  JobError: { unavailable: 'queue', closed: 'queue' },
};

/**
 * A 503 `unavailable` for an error that means a dependency is out of service (the store: PostgreSQL
 * down, the embedded store's disk full; the job queue: Redis down), naming the dependency in
 * `details.dependency` and saying why in the message; undefined for any other error. Matched by
 * name and code, not by class, so a store or queue error from another copy of the package counts.
 * Looks through `cause` (a wrapped driver or queue error).
 */
export function outageError(err: unknown): ApiError | undefined {
  let current: unknown = err;
  for (let depth = 0; depth < 4 && typeof current === 'object' && current !== null; depth++) {
    const e = current as { name?: unknown; code?: unknown; message?: unknown; cause?: unknown };
    const dependency = typeof e.name === 'string' && typeof e.code === 'string' ? OUTAGE_CODES[e.name]?.[e.code] : undefined;
    if (dependency !== undefined) {
      const message = typeof e.message === 'string' ? (e.message.split('\n')[0] ?? '') : '';
      return new ApiError('unavailable', `the ${dependency === 'store' ? 'store' : 'job queue'} is unavailable: ${message}`, undefined, { dependency });
    }
    current = e.cause;
  }
  return undefined;
}
