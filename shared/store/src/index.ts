export { openStore } from './store';
export type { OpenStoreOptions, Store, StoreHealth, StoreOutage } from './store';
export type { StoreDb, StoreSchema } from './db';
export { storeSchema } from './db';
export { StoreError, outageReason, redactUrl } from './errors';
export { DEFAULT_MIN_FREE_BYTES } from './pglite-guard';
export { hasCluster as embeddedStoreExists } from './pglite-initdb';
export { SOUS_CACHE_DIR_ENV, sousCacheDir, templatePath } from './pglite-template';
export type { StoreErrorCode } from './errors';
export { newId } from './ids';
export { LOCK_FILE_NAME } from './lock';
export { DEFAULT_LIST_LIMIT, MAX_LIST_LIMIT, MIGRATIONS_FOLDER } from './defaults';

export { workspaces } from './schema/workspaces';
export type { WorkspaceRow } from './schema/workspaces';
export { indexBlobs, indexFiles, indexState, INDEX_STATES } from './schema/repository-index';
export type { IndexBlobRow, IndexFileRow, IndexStateRow, IndexState } from './schema/repository-index';
export { workProducts, evidence, WORK_PRODUCT_KINDS, WORK_PRODUCT_STATES } from './schema/work-products';
export type { WorkProductRow, EvidenceRow, WorkProductKind, WorkProductState } from './schema/work-products';
export { feedback, FEEDBACK_VALUES } from './schema/feedback';
export type { FeedbackRow, FeedbackValue } from './schema/feedback';
export { goals, GOAL_STATUSES } from './schema/goals';
export type { GoalRow, GoalStatus } from './schema/goals';
export { predictions, PREDICTION_SOURCES, PREDICTION_STATES, STALE_REASONS } from './schema/predictions';
export type { PredictionRow, PredictionSource, PredictionState, StaleReason } from './schema/predictions';
export { resolutions } from './schema/resolutions';
export type { ResolutionRow, EvidenceRef } from './schema/resolutions';
export { signalEvents, SIGNAL_KINDS } from './schema/signals';
export type { SignalEventRow, SignalKind } from './schema/signals';
export { jobs, JOB_RECORD_STATES } from './schema/jobs';
export { skillStates, skillFeedback, skillLoopEvents } from './schema/skills';
export type { SkillStateRow, SkillFeedbackRow } from './schema/skills';
export { chunkEmbeddings } from './schema/chunk-embeddings';
export type { ChunkEmbeddingRow } from './schema/chunk-embeddings';
export type { JobRow, JobRecordState } from './schema/jobs';
export { deepRunSessions, DEEP_RUN_PRESETS, DEEP_RUN_STATES, DEEP_RUN_STOP_REASONS } from './schema/deep-run';
export type { DeepRunRow, DeepRunPresetId, DeepRunState, DeepRunStopReason, DeepRunSettings } from './schema/deep-run';

export type { WorkspaceRepository, WorkspaceInput } from './repositories/workspaces';
export type {
  WorkProductRepository,
  WorkProductInput,
  WorkProductWithEvidence,
  WorkProductListOptions,
  WorkProductPatch,
  EvidenceInput,
} from './repositories/work-products';
export type { FeedbackRepository, FeedbackInput } from './repositories/feedback';
export type { GoalRepository, GoalInput, GoalPatch } from './repositories/goals';
export type { PredictionRepository, PredictionInput, PredictionPatch } from './repositories/predictions';
export { sha256Hex } from './repositories/resolutions';
export type { ResolutionRepository, ResolutionInput } from './repositories/resolutions';
export type { SignalEventRepository, SignalEventInput } from './repositories/signals';
export type { SkillRepository, SkillLoopEvent, ConsumeResult } from './repositories/skills';
export type { JobRepository, JobStateRecord } from './repositories/jobs';
export type { DeepRunRepository, DeepRunInput, DeepRunStepTally, DeepRunEnd } from './repositories/deep-run';
export type { RepositoryIndexRepository, IndexChanges, IndexFileInput, IndexBlobInput, IndexStateInput } from './repositories/repository-index';
export { VECTOR_PAGE_ROWS } from './repositories/chunk-embeddings';
export type { StoredTextRepository, RewriteResult } from './repositories/stored-text';
export type { ChunkEmbeddingRepository, ChunkFileInput, ChunkVectorInput, ChunkHit, EmbeddedFile, StoredChunkVector, VectorSupport } from './repositories/chunk-embeddings';
