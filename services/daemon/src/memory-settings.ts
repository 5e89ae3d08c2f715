/**
 * How the supervisor starts the daemon process so that it stays small. The daemon idles between
 * bursts (a first build, a checkout), so its resident size matters more than the last percent of
 * throughput. Measured on the 5,000-file bench corpus: each setting took 15-90 MB off the peak or
 * the steady resident size, and together they keep both under 400 MB.
 */

/** Node and V8 flags of the daemon process. */
export const DAEMON_NODE_FLAGS: readonly string[] = [
  // Collect when the heap has grown 30% past what the last full GC kept, not up to 4x: the index
  // is long-lived and the garbage of a build would otherwise stay resident until much later.
  '--heap-growing-percent=30',
  // Young generation of 2 x 4 MB instead of 2 x 16 MB: parse results and query garbage die young.
  '--max-semi-space-size=4',
  // One V8 helper thread: fewer malloc arenas holding freed compiler memory (PGlite's WebAssembly).
  '--v8-pool-size=1',
];

/**
 * glibc malloc settings (other C libraries ignore them). Fixed thresholds stop glibc from raising
 * them after large frees, so freed WebAssembly compiler memory and message buffers go back to the
 * system instead of staying in up to 16 arenas; an explicit setting in the environment wins.
 */
export const DAEMON_MALLOC_ENV: Readonly<Record<string, string>> = {
  MALLOC_ARENA_MAX: '2',
  MALLOC_MMAP_THRESHOLD_: '65536',
  MALLOC_TRIM_THRESHOLD_: '65536',
};

/** The daemon's environment: `env` over the malloc defaults. */
export function daemonEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return { ...DAEMON_MALLOC_ENV, ...env };
}
