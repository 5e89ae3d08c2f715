export { IndexError } from './errors';
export type { IndexErrorCode } from './errors';
export { buildRepositoryIndex, RepositoryIndex } from './repository';
export type { FileChange } from './repository';
export { runQuery, DEFAULT_TOP_N, MAX_TOP_N, COCHANGE_FACTOR } from './query';
export type { QueryableFile } from './query';
export { BlobCache, blobKey, redactionTag, DEFAULT_ORPHAN_BLOBS } from './blobs';
export type { Blob } from './blobs';
export { FileGraph } from './graph';
export { recencyByRank, coChangeNeighbours, MIN_COCHANGE_COUNT, MAX_COCHANGE_NEIGHBOURS } from './signals';
export { mapLimit, DEFAULT_READ_CONCURRENCY } from './pool';
export type {
  BuildIndexOptions,
  ContextItem,
  ContextResult,
  IndexedFileRecord,
  IndexedFileView,
  IndexReader,
  IndexStats,
  QueryOptions,
  RefreshResult,
  SkipReason,
} from './types';
export { fingerprintMtime } from './stored';
export type { StoredFile, StoredSignals, IndexDelta } from './stored';
