/**
 * Chunk vectors held in memory for similarity search (the daemon's copy of what the store holds
 * when the store has no pgvector). Vectors are normalized once when added, so a search is one dot
 * product per chunk: a few thousand 384-dimension chunks take about a millisecond.
 */
import type { ChunkHit } from '@sous/store';
import type { SemanticFileHit } from './types';

/** Chunks compared per prompt before they are grouped by file. */
export const SEMANTIC_CHUNK_CANDIDATES = 200;
/** Files the semantic ranking hands to fusion. */
export const SEMANTIC_TOP_FILES = 20;
/**
 * Files whose best chunk is less similar than this are left out of fusion. Reciprocal rank fusion
 * looks at ranks only, so without a floor the least unrelated file would still get a share.
 */
export const SEMANTIC_MIN_SIMILARITY = 0.2;

/** `v` scaled to length 1 (a zero vector stays zero). */
export function normalize(v: readonly number[]): Float32Array {
  let sum = 0;
  for (const x of v) sum += x * x;
  const norm = Math.sqrt(sum);
  const out = new Float32Array(v.length);
  if (norm > 0) for (let i = 0; i < v.length; i++) out[i] = (v[i] as number) / norm;
  return out;
}

/** Cosine similarity of two vectors of one length (0 when either is zero). */
export function cosineSimilarity(a: readonly number[], b: readonly number[]): number {
  return dot(normalize(a), normalize(b));
}

function dot(a: Float32Array, b: Float32Array): number {
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += (a[i] as number) * (b[i] as number);
  return sum;
}

interface HeldChunk {
  startLine: number;
  endLine: number;
  vector: Float32Array;
}

/** The chunk vectors of one workspace and model, by path. */
export class ChunkVectors {
  private readonly byPath = new Map<string, HeldChunk[]>();
  private chunkCount = 0;

  /** Replaces a file's chunks (none: the file is dropped). */
  set(path: string, chunks: ReadonlyArray<{ startLine: number; endLine: number; embedding: readonly number[] }>): void {
    this.remove(path);
    if (chunks.length === 0) return;
    this.byPath.set(path, chunks.map((c) => ({ startLine: c.startLine, endLine: c.endLine, vector: normalize(c.embedding) })));
    this.chunkCount += chunks.length;
  }

  /** Adds one chunk (loading from the store, a page at a time). */
  add(path: string, chunk: { startLine: number; endLine: number; embedding: readonly number[] }): void {
    const held = this.byPath.get(path) ?? [];
    held.push({ startLine: chunk.startLine, endLine: chunk.endLine, vector: normalize(chunk.embedding) });
    this.byPath.set(path, held);
    this.chunkCount += 1;
  }

  remove(path: string): void {
    const held = this.byPath.get(path);
    if (held === undefined) return;
    this.chunkCount -= held.length;
    this.byPath.delete(path);
  }

  clear(): void {
    this.byPath.clear();
    this.chunkCount = 0;
  }

  get files(): number {
    return this.byPath.size;
  }

  get chunks(): number {
    return this.chunkCount;
  }

  /** The `limit` chunks most similar to `query`, best first; chunks of another length are skipped. */
  nearest(query: readonly number[], limit = SEMANTIC_CHUNK_CANDIDATES): ChunkHit[] {
    const q = normalize(query);
    const hits: ChunkHit[] = [];
    for (const [path, chunks] of this.byPath) {
      for (const c of chunks) if (c.vector.length === q.length) hits.push({ path, startLine: c.startLine, endLine: c.endLine, similarity: dot(q, c.vector) });
    }
    return hits.sort(byHit).slice(0, limit);
  }
}

function byHit(a: ChunkHit, b: ChunkHit): number {
  return b.similarity - a.similarity || a.path.localeCompare(b.path) || a.startLine - b.startLine;
}

/**
 * Chunk hits as a file ranking: a file scores its best chunk. Files under `minSimilarity` are left
 * out; at most `limit` files, best first.
 */
export function fileRanking(hits: readonly ChunkHit[], options: { limit?: number; minSimilarity?: number } = {}): SemanticFileHit[] {
  const limit = options.limit ?? SEMANTIC_TOP_FILES;
  const floor = options.minSimilarity ?? SEMANTIC_MIN_SIMILARITY;
  const best = new Map<string, ChunkHit>();
  for (const hit of hits) {
    if (hit.similarity < floor) continue;
    const known = best.get(hit.path);
    if (known === undefined || byHit(hit, known) < 0) best.set(hit.path, hit);
  }
  return [...best.values()]
    .sort(byHit)
    .slice(0, limit)
    .map((h) => ({ path: h.path, similarity: h.similarity, startLine: h.startLine, endLine: h.endLine }));
}
