/**
 * Polls `fn` until it returns something other than undefined, or fails after `ms`. Tests wait for
 * a condition with a deadline instead of sleeping a fixed time.
 */
export async function until<T>(fn: () => T | undefined | Promise<T | undefined>, ms = 5000, intervalMs = 50): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`condition not met within ${ms} ms`);
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}
