export { storeIndexFeed } from './feed';
export type { IndexFeed, StoredChanges } from './feed';
export { IndexWriter } from './writer';
export type { FlushResult } from './writer';
export { IndexReplica, DEFAULT_SYNC_INTERVAL_MS } from './replica';
export type { ReplicaStatus } from './replica';
export { LiveIndex, MAX_FILE_BATCH } from './live-index';
export type { IndexCoverage, LiveIndexOptions, LiveIndexStatus, IndexSignal } from './live-index';
