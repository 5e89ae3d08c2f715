import * as path from 'node:path';
import type { Backend, StoreDb } from './db';
import {
  DEFAULT_CONNECT_TIMEOUT_MS,
  DEFAULT_HEALTH_TIMEOUT_MS,
  DEFAULT_POOL_SIZE,
  MIGRATIONS_FOLDER,
  SCHEMA_NAME_PATTERN,
} from './defaults';
import { StoreError, firstLine } from './errors';
import { openPglite } from './pglite';
import { openPostgres } from './postgres';
import { createDeepRunRepository, type DeepRunRepository } from './repositories/deep-run';
import { createChunkEmbeddingRepository, type ChunkEmbeddingRepository } from './repositories/chunk-embeddings';
import { createFeedbackRepository, type FeedbackRepository } from './repositories/feedback';
import { createGoalRepository, type GoalRepository } from './repositories/goals';
import { createJobRepository, type JobRepository } from './repositories/jobs';
import { createPredictionRepository, type PredictionRepository } from './repositories/predictions';
import { createRepositoryIndexRepository, type RepositoryIndexRepository } from './repositories/repository-index';
import { createResolutionRepository, type ResolutionRepository } from './repositories/resolutions';
import { createSkillRepository, type SkillRepository } from './repositories/skills';
import { createSignalEventRepository, type SignalEventRepository } from './repositories/signals';
import { createStoredTextRepository, type StoredTextRepository } from './repositories/stored-text';
import { createWorkProductRepository, type WorkProductRepository } from './repositories/work-products';
import { createWorkspaceRepository, type WorkspaceRepository } from './repositories/workspaces';

/** Options of openStore. */
export interface OpenStoreOptions {
  /** PostgreSQL URL (callers pass `process.env.DATABASE_URL`). When empty or absent, PGlite in `dataDir` is used. */
  databaseUrl?: string;
  /** PGlite data directory (callers pass `<workspace>/.sous/data`); created when missing. Required without `databaseUrl`. */
  dataDir?: string;
  /**
   * Put every table and the migration history in this schema (created when missing); lower-case
   * identifier. Default: tables in `public`, history in `drizzle`. Tests use one schema each.
   */
  schema?: string;
  /** Most pooled PostgreSQL connections. Default 10. */
  poolSize?: number;
  /** How long to wait for a PostgreSQL connection. Default 5000 ms. */
  connectTimeoutMs?: number;
  /** How long health() waits for an answer. Default 2000 ms. */
  healthTimeoutMs?: number;
  /** Migrations to apply. Default: the committed `shared/store/migrations`. */
  migrationsFolder?: string;
  /**
   * Embedded store: below this much free space on the data directory's disk, writes pause
   * (`store_unavailable`) until space is freed. Default 32 MiB; 0 turns the check off.
   */
  minFreeBytes?: number;
}

/** Result of Store.health(). */
export interface StoreHealth {
  ok: boolean;
  latencyMs: number;
  /** One line: the backend and, when not ok, what is wrong. Never a password. */
  detail?: string;
  /** When not ok: since when the store has been failing, as far as this process saw (ISO time). */
  since?: string;
}

/** Why a store is out of service and since when (ISO time). */
export interface StoreOutage {
  reason: string;
  since: string;
}

/** An open store: the typed drizzle db and one repository per record. */
export interface Store {
  readonly kind: 'postgres' | 'pglite';
  /** The typed drizzle database, for queries the repositories do not cover yet. */
  readonly db: StoreDb;
  readonly workspaces: WorkspaceRepository;
  readonly workProducts: WorkProductRepository;
  readonly feedback: FeedbackRepository;
  readonly goals: GoalRepository;
  readonly predictions: PredictionRepository;
  readonly resolutions: ResolutionRepository;
  readonly signals: SignalEventRepository;
  /** What the skills loop learned about each skill, explicit skill feedback, the loop's cursor. */
  readonly skills: SkillRepository;
  readonly jobs: JobRepository;
  /** Deep-Run sessions (docs/deep-run.md): long-horizon series of preparation steps. */
  readonly deepRuns: DeepRunRepository;
  /** The repository index (retrieval): files, contents, state. */
  readonly repositoryIndex: RepositoryIndexRepository;
  /** Chunk embeddings of the semantic stage of retrieval (optional; empty without a model backend). */
  readonly chunkEmbeddings: ChunkEmbeddingRepository;
  /** Prepared work's stored texts as a whole: re-redacted when the redaction changes. */
  readonly storedText: StoredTextRepository;
  /** Runs a trivial query. Never throws. */
  health(): Promise<StoreHealth>;
  /**
   * Why the store is out of service, since when, or null: the embedded store's disk is full or its
   * directory unwritable, or PostgreSQL stopped answering. Known without a query.
   */
  outage(): StoreOutage | null;
  /** Closes every connection (PGlite: flushes the data directory, then frees its lock). Idempotent. */
  close(): Promise<void>;
}

/**
 * Opens the store — PostgreSQL when `databaseUrl` is set, embedded PGlite in `dataDir` otherwise —
 * and applies pending migrations before returning. Rejects with a StoreError whose message says
 * what to check (`store_unreachable`, `store_rejected`, `store_locked`, `store_migration_failed`, …).
 */
export async function openStore(options: OpenStoreOptions): Promise<Store> {
  const schema = validSchema(options.schema);
  const migrationsFolder = options.migrationsFolder ?? MIGRATIONS_FOLDER;
  const databaseUrl = options.databaseUrl?.trim();
  let backend: Backend;
  if (databaseUrl) {
    backend = await openPostgres({
      url: validUrl(databaseUrl),
      schema,
      poolSize: positiveInt(options.poolSize, DEFAULT_POOL_SIZE, 'poolSize'),
      connectTimeoutMs: positiveInt(options.connectTimeoutMs, DEFAULT_CONNECT_TIMEOUT_MS, 'connectTimeoutMs'),
      migrationsFolder,
    });
  } else {
    if (!options.dataDir) {
      throw new StoreError('store_invalid_option', 'no database given: set DATABASE_URL for PostgreSQL or pass a data directory for the embedded store');
    }
    if (options.minFreeBytes !== undefined && !(Number.isInteger(options.minFreeBytes) && options.minFreeBytes >= 0)) {
      throw new StoreError('store_invalid_option', `minFreeBytes must be a whole number of bytes, 0 or more, got ${options.minFreeBytes}`);
    }
    backend = await openPglite({ dataDir: path.resolve(options.dataDir), schema, migrationsFolder, minFreeBytes: options.minFreeBytes });
  }
  return assemble(backend, positiveInt(options.healthTimeoutMs, DEFAULT_HEALTH_TIMEOUT_MS, 'healthTimeoutMs'));
}

function assemble(backend: Backend, healthTimeoutMs: number): Store {
  const { db } = backend;
  let closing: Promise<void> | undefined;
  return {
    kind: backend.kind,
    db,
    workspaces: createWorkspaceRepository(db),
    workProducts: createWorkProductRepository(db),
    feedback: createFeedbackRepository(db),
    goals: createGoalRepository(db),
    predictions: createPredictionRepository(db),
    resolutions: createResolutionRepository(db),
    signals: createSignalEventRepository(db),
    skills: createSkillRepository(db),
    jobs: createJobRepository(db),
    deepRuns: createDeepRunRepository(db),
    repositoryIndex: createRepositoryIndexRepository(db),
    chunkEmbeddings: createChunkEmbeddingRepository(db, backend.kind),
    outage: () => (closing ? null : backend.outage()),
    storedText: createStoredTextRepository(db),
    async health() {
      if (closing) return { ok: false, latencyMs: 0, detail: `${backend.describe}: store is closed` };
      const started = performance.now();
      const latency = () => Math.round((performance.now() - started) * 10) / 10;
      let timer: NodeJS.Timeout | undefined;
      try {
        const timeout = new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new Error(`no answer within ${healthTimeoutMs} ms`)), healthTimeoutMs);
        });
        await Promise.race([backend.ping(), timeout]);
        return { ok: true, latencyMs: latency(), detail: backend.describe };
      } catch (err) {
        const last = backend.lastError();
        const since = backend.outage()?.since;
        return { ok: false, latencyMs: latency(), detail: `${backend.describe}: ${firstLine(err)}${last ? ` (last error: ${last})` : ''}`, ...(since ? { since } : {}) };
      } finally {
        clearTimeout(timer);
      }
    },
    close() {
      closing ??= backend.shutdown();
      return closing;
    },
  };
}

function validSchema(schema: string | undefined): string | undefined {
  if (schema === undefined) return undefined;
  if (!SCHEMA_NAME_PATTERN.test(schema)) {
    throw new StoreError(
      'store_invalid_option',
      `schema '${schema}' is not a plain lower-case identifier: use letters a-z, digits and _ (at most 63, not starting with a digit)`,
    );
  }
  return schema;
}

function validUrl(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new StoreError('store_invalid_option', 'DATABASE_URL is not a URL: use postgres://user:password@host:5432/database');
  }
  if (parsed.protocol !== 'postgres:' && parsed.protocol !== 'postgresql:') {
    throw new StoreError('store_invalid_option', `DATABASE_URL has scheme '${parsed.protocol}': use postgres://user:password@host:5432/database`);
  }
  return url;
}

function positiveInt(value: number | undefined, fallback: number, name: string): number {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || value <= 0) {
    throw new StoreError('store_invalid_option', `${name} must be a positive integer, got ${value}`);
  }
  return value;
}
