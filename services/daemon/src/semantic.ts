/**
 * The daemon's side of the semantic stage of retrieval (docs/retrieval-semantic.md): decides from
 * the config and the backend probe whether a local backend embeds, runs the `index.embed` job in
 * idle time after index changes, and gives `/v1/context` its semantic hook and `/status` its
 * `index.semantic`. Chunking, planning, storage, search and fusion live in @sous/retrieval.
 */
import Joi from 'joi';
import type { SousConfig } from '@sous/config';
import { createEmbeddingClient, isLocalBackendUrl } from '@sous/backend';
import { CycleScheduler, idleRefusal } from '@sous/engine';
import type { FocusMonitor } from '@sous/focus';
import type { ContextSemantic } from '@sous/http';
import type { JobQueue } from '@sous/jobs';
import type { Logger } from '@sous/logging';
import { PromptRanker, SemanticIndex, type Embedder, type PromptRankerStatus, type UpdateResult } from '@sous/retrieval';
import type { Store } from '@sous/store';
import type { BackendMonitor } from './backend-monitor';
import { explorationTarget } from './preparation';
import type { DaemonIndex } from './repository-index';

export const EMBED_JOB = 'index.embed';

/** What `/status` says about the semantic stage (`index.semantic`). */
export interface SemanticStatus {
  /**
   * `off`: it does not run here (config, no reachable local backend); `waiting`: it would, but is
   * held back (Auto Focus, a busy machine, not run yet); `embedding`: a step runs or more is queued;
   * `ready`: every indexed file is embedded; `failed`: the last step failed and is retried later.
   */
  state: 'off' | 'waiting' | 'embedding' | 'ready' | 'failed';
  /** One line: why, or which model at which endpoint. */
  reason: string;
  model: string;
  files: number;
  chunks: number;
  dims: number | null;
  /** Files still to embed as of the last step; null before the first. */
  pending_files: number | null;
  /** `pgvector` (similarity in PostgreSQL) or `array` (in process); null until first opened. */
  storage: 'pgvector' | 'array' | null;
  storage_detail: string | null;
  last_run: (Omit<UpdateResult, 'pending_files'> & { finished_at: string; duration_ms: number }) | null;
  /** The query side: the last prompt embedding's failure, and when it is tried again. */
  query: PromptRankerStatus;
}

export interface DaemonSemantic {
  /** `/v1/context`'s semantic hook. */
  context: ContextSemantic;
  /** The index recorded a change (saves, HEAD moved). */
  signal(): void;
  /** The config was reloaded and the backend probed again. */
  configChanged(): void;
  status(): SemanticStatus;
  close(): void;
}

/** The embedding client the config asks for, or why there is none. Never does I/O. */
type Availability = { embedder: Embedder; reason: string } | { embedder?: undefined; reason: string; retry: boolean };

export function startSemantic(options: {
  store: Store;
  queue: JobQueue;
  index: DaemonIndex;
  workspaceId: string;
  config: () => SousConfig;
  backend: BackendMonitor;
  focus: FocusMonitor;
  logger: Logger;
}): DaemonSemantic {
  const { queue, index, logger } = options;
  const semantic = new SemanticIndex(options.store.chunkEmbeddings, options.workspaceId);
  const ranker = new PromptRanker(semantic);
  let client: { key: string; embedder: Embedder } | undefined;
  let running = false;
  let held: string | null = 'not run yet';
  let failure: string | null = null;
  let lastRun: SemanticStatus['last_run'] = null;

  /** Same rules as the preparation model: only a reachable backend on this machine or the private network. */
  const availability = (config: SousConfig): Availability => {
    if (config.exploration.semantic === 'off') return { reason: 'exploration.semantic is off', retry: false };
    const target = { ...explorationTarget(config), model: config.exploration.embedding_model };
    if (!isLocalBackendUrl(target.baseUrl)) {
      return { reason: `backend ${target.baseUrl} is not on this machine or the private network; code is never sent to the cloud for embeddings`, retry: false };
    }
    const probe = options.backend.latest();
    if (!config.exploration.endpoint) {
      if (probe === undefined) return { reason: 'waiting for the first backend check', retry: true };
      if (!probe.reachable) return { reason: `backend not reachable (${probe.error ?? 'no answer'}): lexical ranking only`, retry: true };
    }
    const key = JSON.stringify([target.name, target.baseUrl, target.model, target.apiKeyEnv]);
    try {
      if (client?.key !== key) client = { key, embedder: createEmbeddingClient(target) };
    } catch (err) {
      return { reason: `${err instanceof Error ? err.message : String(err)}: lexical ranking only`, retry: false };
    }
    return { embedder: client.embedder, reason: `model ${target.model} at ${target.baseUrl}` };
  };

  // Work is requested after index changes and run as a job once the gate below lets it through;
  // the scheduler merges requests, debounces saves and retries what was held back.
  const scheduler: CycleScheduler = new CycleScheduler({
    enqueue: async () => {
      const reason = await gate();
      if (reason === null) {
        held = 'queued: an embedding step waits for its turn in the job queue';
        await queue.enqueue(EMBED_JOB, {});
        return;
      }
      held = reason.why;
      if (reason.retry) scheduler.retryLater({ kind: 'file_change' });
      else scheduler.cycleEnded();
    },
    onError: (err) => logger.warn({ error: err.message }, 'embedding step not queued'),
  });

  /** Why no step may run now (and whether to ask again later), or null when one may. */
  const gate = async (): Promise<{ why: string; retry: boolean } | null> => {
    const config = options.config();
    if (options.backend.latest() === undefined) await options.backend.check();
    const available = availability(config);
    if (available.embedder === undefined) return { why: available.reason, retry: available.retry };
    const own = options.focus.own();
    // Like background preparation: only where you work (Auto Focus), and only on an idle machine.
    if (own.class === 'paused' || !options.focus.mayPrepare()) return { why: `${own.reason} ${own.action}`, retry: true };
    await index.ready;
    // A privacy rebuild re-reads everything: embed what it settles on, not the index it replaces.
    if (index.live.status().state !== 'ready') return { why: `the index is ${index.live.status().state}; embedding waits for it`, retry: true };
    const idle = await idleRefusal({ ...config.compute, idle_only: config.compute.idle_only || config.compute.preset === 'background' });
    return idle === null ? null : { why: idle, retry: true };
  };

  queue.register(
    EMBED_JOB,
    async (_payload, job) => {
      let more = false;
      let retry = false;
      try {
        const config = options.config();
        const available = availability(config);
        if (available.embedder === undefined) return { skipped: available.reason };
        running = true;
        held = null;
        const started = Date.now();
        const result = await semantic.update(index.live.reader(), available.embedder, { redactPatterns: index.policy().redactPatterns, signal: job.signal });
        const { pending_files: pending, ...done } = result;
        lastRun = { ...done, finished_at: new Date().toISOString(), duration_ms: Date.now() - started };
        failure = null;
        more = pending > 0 && !job.signal.aborted;
        if (result.embedded_files + result.removed_files > 0) logger.info({ ...result, ms: lastRun.duration_ms }, 'chunk embeddings updated');
        return result;
      } catch (err) {
        retry = true;
        failure = `embedding failed (${err instanceof Error ? err.message : String(err)}); retried in a minute`;
        logger.warn({ error: failure }, 'embedding step failed');
        throw err;
      } finally {
        running = false;
        if (retry) scheduler.retryLater({ kind: 'file_change' });
        else scheduler.cycleEnded();
        if (more) scheduler.request({ kind: 'file_change' }, { immediate: true });
      }
    },
    { payload: Joi.object({}) },
  );

  void index.ready.then(() => scheduler.request({ kind: 'start' }, { immediate: true }));

  return {
    context: {
      key: () => ranker.key(availability(options.config()).embedder),
      rank: (prompt) => {
        const embedder = availability(options.config()).embedder;
        return embedder === undefined ? Promise.resolve(undefined) : ranker.rank(embedder, prompt, index.policy().redactPatterns);
      },
    },
    signal: () => scheduler.request({ kind: 'file_change' }),
    configChanged: () => scheduler.request({ kind: 'file_change' }, { immediate: true }),
    status: () => {
      const config = options.config();
      const available = availability(config);
      const summary = semantic.summary();
      const base = {
        model: config.exploration.embedding_model,
        files: summary.files,
        chunks: summary.chunks,
        dims: summary.dims,
        pending_files: summary.pending_files,
        storage: summary.storage?.kind ?? null,
        storage_detail: summary.storage?.detail ?? null,
        last_run: lastRun,
        query: ranker.status(),
      };
      if (available.embedder === undefined) return { state: 'off', reason: available.reason, ...base };
      if (running) return { state: 'embedding', reason: available.reason, ...base };
      if (failure !== null) return { state: 'failed', reason: failure, ...base };
      if (held !== null) return { state: 'waiting', reason: held, ...base };
      const pending = summary.pending_files ?? 0;
      return { state: pending > 0 ? 'embedding' : 'ready', reason: available.reason, ...base };
    },
    close: () => scheduler.close(),
  };
}
