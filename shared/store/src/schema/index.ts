/** The one drizzle schema: every table, one file per record area. drizzle-kit reads this file. */
export { workspaces } from './workspaces';
export { workProducts, evidence } from './work-products';
export { resolutions } from './resolutions';
export { feedback } from './feedback';
export { goals } from './goals';
export { predictions } from './predictions';
export { signalEvents } from './signals';
export { jobs } from './jobs';
export { indexBlobs, indexFiles, indexState } from './repository-index';
export { chunkEmbeddings } from './chunk-embeddings';
export { skillStates, skillFeedback, skillLoopEvents } from './skills';
export { deepRunSessions } from './deep-run';
