/** Plain data and the one seam of the semantic stage. */

/**
 * Whatever turns texts into vectors: `@sous/backend`'s embedding client over an OpenAI-compatible
 * `/embeddings`, structurally (retrieval does not depend on the backend package). One vector per
 * text, in order; failures are thrown (the backend's `BackendError`).
 */
export interface Embedder {
  /** The embedding model; vectors of another model are never compared with its own. */
  readonly model: string;
  embed(texts: readonly string[], options?: { signal?: AbortSignal; timeoutMs?: number }): Promise<number[][]>;
}

/** A file found by similarity: its best chunk. */
export interface SemanticFileHit {
  path: string;
  /** Cosine similarity of the best chunk to the prompt, -1..1. */
  similarity: number;
  /** 1-based inclusive lines of that chunk. */
  startLine: number;
  endLine: number;
}
