/**
 * The semantic index of one workspace: chunk vectors of the indexed files under one embedding
 * model, kept in the store and brought up to date a bounded step at a time (`update`), and searched
 * by similarity (`rank`). It plans from content keys (planner), so an unchanged file is never sent
 * to the model again, a changed one is re-embedded whole and a deleted one loses its vectors; every
 * group of files is written in one transaction before it counts as done.
 *
 * Where similarity is computed: in PostgreSQL when the store has pgvector, else over a copy of the
 * vectors in memory (normalized once; loaded when the model is opened, updated on every write).
 */
import type { ChunkEmbeddingRepository, ChunkFileInput, VectorSupport } from '@sous/store';
import { chunkText, embeddingInput, type TextChunk } from './chunk';
import { contentKey, planEmbeddings } from './plan';
import type { Embedder, SemanticFileHit } from './types';
import { ChunkVectors, fileRanking, SEMANTIC_CHUNK_CANDIDATES } from './vectors';

/** Chunks embedded by one `update` (a bounded step, so an idle check and other jobs come between steps). */
export const DEFAULT_MAX_CHUNKS_PER_UPDATE = 256;
/** Chunks gathered across files for one write (the client sends them in batches of its own size). */
const GROUP_CHUNKS = 64;

/** The files an update reads: the live index (`IndexReader`), structurally. */
export interface SemanticSource {
  paths(): string[];
  file(path: string): { sha256: string } | undefined;
  /** The redacted, in-scope text as indexed. */
  text(path: string): string | undefined;
}

export interface UpdateOptions {
  /** `privacy.redact_patterns` in force: part of each file's content key. */
  redactPatterns: readonly RegExp[];
  /** Stops between groups and cancels the request in flight. */
  signal?: AbortSignal;
  /** Default `DEFAULT_MAX_CHUNKS_PER_UPDATE`. */
  maxChunks?: number;
}

/** What one `update` did. */
export interface UpdateResult {
  /** Files whose chunks were sent to the model and stored. */
  embedded_files: number;
  embedded_chunks: number;
  removed_files: number;
  unchanged_files: number;
  /** Files still to embed (the step's budget ran out or it was stopped). */
  pending_files: number;
}

/** What `/status` says about the stored vectors. */
export interface SemanticIndexSummary {
  model: string | null;
  files: number;
  chunks: number;
  dims: number | null;
  /** `pgvector` or `array` (similarity in process), with the store's reason. */
  storage: VectorSupport | null;
  /** Files to embed as of the last update; null before the first. */
  pending_files: number | null;
}

export class SemanticIndex {
  private model: string | null = null;
  private support: VectorSupport | null = null;
  /** A copy of the vectors, when similarity is computed in process. */
  private memory: ChunkVectors | null = null;
  /** Content key and chunk count per path of what is stored (and of files that had no chunk to store). */
  private readonly stored = new Map<string, { key: string; chunks: number }>();
  private chunkCount = 0;
  private dims: number | null = null;
  private pending: number | null = null;
  private changes = 0;
  private work: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly store: ChunkEmbeddingRepository,
    private readonly workspaceId: string,
  ) {}

  /** Bumped by every change to the vectors: part of the context answers' cache key. */
  get version(): number {
    return this.changes;
  }

  /** Chunks stored under the open model (read on every query: no walk over the files). */
  get chunks(): number {
    return this.chunkCount;
  }

  /** The model whose vectors are held, or null before the first `open`. */
  get openModel(): string | null {
    return this.model;
  }

  /** Files and chunks stored under the open model. */
  summary(): SemanticIndexSummary {
    return { model: this.model, files: this.filesWithChunks(), chunks: this.chunkCount, dims: this.dims, storage: this.support, pending_files: this.pending };
  }

  /**
   * Makes `model` the open one: vectors of every other model are dropped from the store (their
   * vectors cannot be compared with this model's), and this model's are loaded for search.
   */
  open(model: string): Promise<void> {
    return this.exclusive(() => this.openNow(model));
  }

  /**
   * Brings the vectors up to date with `source`, at most `maxChunks` chunks: drops the vectors of
   * files no longer indexed, then embeds changed and new files in path order. Throws what the
   * embedder throws; groups written before that stay written.
   */
  update(source: SemanticSource, embedder: Embedder, options: UpdateOptions): Promise<UpdateResult> {
    return this.exclusive(async () => {
      await this.openNow(embedder.model);
      const keys = new Map<string, string>();
      for (const path of source.paths()) {
        const file = source.file(path);
        if (file !== undefined) keys.set(path, contentKey(file.sha256, options.redactPatterns));
      }
      const plan = planEmbeddings(
        [...keys].map(([path, key]) => ({ path, contentKey: key })),
        [...this.stored].map(([path, s]) => ({ path, contentKey: s.key })),
      );
      if (plan.remove.length > 0) {
        await this.store.removePaths(this.workspaceId, plan.remove);
        for (const path of plan.remove) this.forget(path);
      }
      let budget = options.maxChunks ?? DEFAULT_MAX_CHUNKS_PER_UPDATE;
      const result: UpdateResult = { embedded_files: 0, embedded_chunks: 0, removed_files: plan.remove.length, unchanged_files: plan.unchanged, pending_files: 0 };
      let next = 0;
      try {
        while (next < plan.embed.length && budget > 0 && options.signal?.aborted !== true) {
          const group: Array<{ path: string; key: string; chunks: TextChunk[] }> = [];
          let size = 0;
          while (next < plan.embed.length && size < Math.min(GROUP_CHUNKS, budget)) {
            const path = plan.embed[next++] as string;
            const text = source.text(path);
            if (text === undefined) continue;
            const chunks = chunkText(text);
            group.push({ path, key: keys.get(path) as string, chunks });
            size += chunks.length;
          }
          const inputs = group.flatMap((f) => f.chunks.map((c) => embeddingInput(f.path, c)));
          const vectors = inputs.length > 0 ? await embedder.embed(inputs, options.signal ? { signal: options.signal } : {}) : [];
          await this.write(group, vectors);
          // A file with no chunk (empty, blank) is recorded but not counted: nothing was sent for it.
          result.embedded_files += group.filter((f) => f.chunks.length > 0).length;
          result.embedded_chunks += inputs.length;
          budget -= inputs.length;
        }
      } finally {
        result.pending_files = plan.embed.length - next;
        this.pending = result.pending_files;
      }
      return result;
    });
  }

  /**
   * Files most similar to `vector` (a prompt's embedding under the open model): each file scores
   * its best chunk; files under `minSimilarity` are left out (see `fileRanking`).
   */
  async rank(vector: readonly number[], options: { limit?: number; minSimilarity?: number } = {}): Promise<SemanticFileHit[]> {
    if (this.model === null || this.chunkCount === 0) return [];
    const hits = this.memory !== null ? this.memory.nearest(vector, SEMANTIC_CHUNK_CANDIDATES) : await this.store.nearest(this.workspaceId, this.model, vector, SEMANTIC_CHUNK_CANDIDATES);
    return fileRanking(hits, options);
  }

  private async openNow(model: string): Promise<void> {
    if (this.model === model) return;
    await this.store.removeOtherModels(this.workspaceId, model);
    this.support = await this.store.vectorSupport();
    this.stored.clear();
    this.memory = this.support.kind === 'pgvector' ? null : new ChunkVectors();
    const files = await this.store.files(this.workspaceId, model);
    for (const f of files) this.stored.set(f.path, { key: f.contentKey, chunks: f.chunks });
    this.chunkCount = files.reduce((n, f) => n + f.chunks, 0);
    this.dims = (await this.store.summary(this.workspaceId, model)).dims;
    if (this.memory !== null) {
      const memory = this.memory;
      let after: { path: string; chunk: number } | undefined;
      for (;;) {
        const page = await this.store.vectors(this.workspaceId, model, after ? { after } : {});
        for (const row of page) memory.add(row.path, row);
        const last = page.at(-1);
        if (last === undefined) break;
        after = { path: last.path, chunk: last.chunk };
      }
    }
    this.model = model;
    this.pending = null;
    this.changes += 1;
  }

  /** Stores one group's chunks (one transaction), then updates the in-memory view. */
  private async write(group: ReadonlyArray<{ path: string; key: string; chunks: TextChunk[] }>, vectors: readonly number[][]): Promise<void> {
    const model = this.model as string;
    const dims = vectors[0]?.length;
    if (dims !== undefined && this.dims !== null && dims !== this.dims) {
      // Another model answers under the same name (re-pulled, swapped): old vectors cannot be compared with new ones.
      await this.store.removePaths(this.workspaceId, [...this.stored.keys()]);
      for (const path of [...this.stored.keys()]) this.forget(path);
    }
    if (dims !== undefined) this.dims = dims;
    let at = 0;
    const files: ChunkFileInput[] = group.map((f) => ({
      path: f.path,
      contentKey: f.key,
      chunks: f.chunks.map((c) => ({ startLine: c.startLine, endLine: c.endLine, embedding: vectors[at++] as number[] })),
    }));
    await this.store.replaceFiles(this.workspaceId, model, files);
    for (const f of files) {
      this.forget(f.path);
      this.stored.set(f.path, { key: f.contentKey, chunks: f.chunks.length });
      this.chunkCount += f.chunks.length;
      if (f.chunks.length > 0) this.memory?.set(f.path, f.chunks);
    }
    this.changes += 1;
  }

  /** Drops a path from the in-memory view (its rows are gone or about to be replaced). */
  private forget(path: string): void {
    const known = this.stored.get(path);
    if (known === undefined) return;
    this.stored.delete(path);
    this.memory?.remove(path);
    this.chunkCount -= known.chunks;
    this.changes += 1;
  }

  private filesWithChunks(): number {
    let files = 0;
    for (const s of this.stored.values()) if (s.chunks > 0) files += 1;
    return files;
  }

  private exclusive<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.work.then(fn, fn);
    this.work = run.catch(() => undefined);
    return run;
  }
}
