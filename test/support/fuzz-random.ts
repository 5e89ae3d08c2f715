/**
 * Seeded randomness for the fuzz suites: request `i` of a run with seed `s` is drawn from its own
 * generator, seeded from (s, i), so a failure replays alone and the order in which concurrent
 * requests finish never changes what is sent.
 */

/** mulberry32: small, fast, and good enough to pick mutations. */
function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The seed of a run: SOUS_FUZZ_SEED when set (to replay a failure), else a fixed one (CI is deterministic). */
export function fuzzSeed(env: NodeJS.ProcessEnv = process.env): number {
  const raw = env.SOUS_FUZZ_SEED;
  if (raw === undefined || raw === '') return 20261126;
  const seed = Number(raw);
  if (!Number.isInteger(seed)) throw new Error(`SOUS_FUZZ_SEED must be an integer, got ${raw}`);
  return seed;
}

/** Dice for one request. */
export class Dice {
  private readonly next: () => number;

  constructor(seed: number, index: number) {
    // Mixes the index into the seed so neighbouring requests differ in every draw.
    this.next = mulberry32(Math.imul(seed ^ 0x9e3779b9, 0x85ebca6b) ^ Math.imul(index + 1, 0xc2b2ae35));
  }

  /** An integer in [0, n). */
  int(n: number): number {
    return Math.floor(this.next() * n);
  }

  /** An integer in [min, max]. */
  between(min: number, max: number): number {
    return min + this.int(max - min + 1);
  }

  chance(p: number): boolean {
    return this.next() < p;
  }

  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new Error('pick from an empty list');
    return items[this.int(items.length)] as T;
  }

  /** Printable ASCII and Latin-1 characters (what an HTTP client may send raw in a header or path). */
  latin1(length: number): string {
    let s = '';
    for (let i = 0; i < length; i++) {
      const c = this.chance(0.8) ? this.between(0x21, 0x7e) : this.between(0xa1, 0xff);
      s += String.fromCharCode(c);
    }
    return s;
  }

  /** Any UTF-16 text, including NUL, lone surrogates and control characters. */
  text(length: number): string {
    let s = '';
    for (let i = 0; i < length; i++) s += String.fromCharCode(this.chance(0.7) ? this.between(0x20, 0x7e) : this.int(0x10000));
    return s;
  }

  bytes(length: number): Buffer {
    const b = Buffer.alloc(length);
    for (let i = 0; i < length; i++) b[i] = this.int(256);
    return b;
  }
}
