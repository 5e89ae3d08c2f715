/**
 * The query side of the semantic stage: one embedding call for the prompt, with a short timeout,
 * then a similarity search. It never fails a query: a failed or slow call answers "no semantic
 * ranking" (the caller answers lexically) and keeps the stage out of queries for a while, so a
 * backend that went away costs one short wait, not one per query.
 */
import { redactText } from '@sous/protocol';
import type { SemanticIndex } from './semantic-index';
import type { Embedder, SemanticFileHit } from './types';

/** How long a query waits for its prompt's embedding (a warm local model answers in tens of ms). */
export const PROMPT_EMBED_TIMEOUT_MS = 2000;
/** After a failed prompt embedding, queries stay lexical this long before the backend is asked again. */
export const PROMPT_RETRY_MS = 30_000;
/** The start of the prompt that is embedded (small embedding models read ~512 tokens at most). */
export const MAX_PROMPT_EMBED_CHARS = 2000;

export interface PromptRankerOptions {
  timeoutMs?: number;
  retryMs?: number;
  /** Clock, for tests. */
  now?(): number;
}

/** What `/status` says about the query side. */
export interface PromptRankerStatus {
  /** The last prompt embedding's failure, until one succeeds. */
  error: string | null;
  /** While queries stay lexical after a failure: when the backend is asked again. */
  retry_at: string | null;
}

export class PromptRanker {
  private failedUntil = 0;
  private lastError: string | null = null;
  private readonly now: () => number;

  constructor(
    private readonly index: SemanticIndex,
    private readonly options: PromptRankerOptions = {},
  ) {
    this.now = options.now ?? Date.now;
  }

  /**
   * What fused answers depend on now, or null when a query would not be fused (no embedder, no
   * vectors of its model, or waiting after a failure): context answers are cached under it.
   */
  key(embedder: Embedder | undefined): string | null {
    if (embedder === undefined || this.index.openModel !== embedder.model || this.index.chunks === 0) return null;
    if (this.now() < this.failedUntil) return null;
    return `${embedder.model}#${this.index.version}`;
  }

  /**
   * The semantic file ranking for `prompt` (redacted with `redactPatterns` before it leaves, and
   * cut to MAX_PROMPT_EMBED_CHARS), or undefined when the embedding could not be had in time.
   */
  async rank(embedder: Embedder, prompt: string, redactPatterns: readonly RegExp[]): Promise<SemanticFileHit[] | undefined> {
    let vector: number[] | undefined;
    try {
      const input = redactText(prompt, redactPatterns).slice(0, MAX_PROMPT_EMBED_CHARS);
      [vector] = await embedder.embed([input], { timeoutMs: this.options.timeoutMs ?? PROMPT_EMBED_TIMEOUT_MS });
    } catch (err) {
      this.failedUntil = this.now() + (this.options.retryMs ?? PROMPT_RETRY_MS);
      this.lastError = err instanceof Error ? err.message : String(err);
      return undefined;
    }
    this.failedUntil = 0;
    this.lastError = null;
    return vector === undefined ? undefined : this.index.rank(vector);
  }

  status(): PromptRankerStatus {
    const waiting = this.now() < this.failedUntil;
    return { error: this.lastError, retry_at: waiting ? new Date(this.failedUntil).toISOString() : null };
  }
}
