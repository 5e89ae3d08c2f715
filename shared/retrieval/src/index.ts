// Scope: what Sous may read, read-only.
export {
  ScopeError,
  listCandidateFiles,
  headCommit,
  createScopePolicy,
  scopeKey,
  scopePolicyFromConfig,
  detectLanguage,
  isCodePath,
  readScopedFile,
  DEFAULT_MAX_FILE_BYTES,
  scopeCoverage,
  gitSignals,
  coChangedWith,
  READ_ONLY_GIT_FLAGS,
  readOnlyGitEnv,
  worktreeReadConfig,
  runGit,
  tryGit,
  streamGitLines,
} from './scope';
export type { ScopePolicy, ScopeDecision, Language, ScopedFile, ScopedReadResult, ReadRefusal, ScopeCoverage, GitCallOptions, GitSignals, FileGitSignal, CoChangePair, DegradeReason } from './scope';
// Symbols: definitions, references, imports.
export { extractSymbols, splitIdentifier, resolveImport, isSymbolLanguage, MAX_TREE_SITTER_BYTES } from './symbols';
export type { FileSymbols, SymbolDefinition, SymbolImport, SymbolKind, SymbolLanguage, SymbolReference } from './symbols';
// Ranking: prompt analysis, BM25, signal combination, budgets, snippets.
export { analyzePrompt, codeTokens, plainTokens, Bm25Index, rankFiles, SIGNAL_WEIGHTS, estimateTokens, fitToBudget, bestSnippet } from './ranking';
export type { PromptAnalysis, QueryTerm, TracebackFrame, RankCandidate, RankedFile, RationaleEntry, WeightedTerm, Snippet } from './ranking';
// Index: the building blocks composed, in memory (store persistence comes next).
export { buildRepositoryIndex, RepositoryIndex, IndexError, DEFAULT_TOP_N, MAX_TOP_N } from './indexer';
export type { BuildIndexOptions, ContextItem, ContextResult, IndexedFileRecord, IndexedFileView, IndexReader, IndexStats, QueryOptions, RefreshResult } from './indexer';
export { fingerprintMtime, redactionTag } from './indexer';
export type { StoredFile, StoredSignals, IndexDelta } from './indexer';
// Persistence: the daemon's live index in the store, and read-only replicas for other processes.
export { storeIndexFeed, IndexWriter, IndexReplica, LiveIndex, DEFAULT_SYNC_INTERVAL_MS, MAX_FILE_BATCH, SAVE_RETRY_FIRST_MS, SAVE_RETRY_MAX_MS } from './persist';
export type { IndexCoverage, IndexFeed, StoredChanges, FlushResult, ReplicaStatus, LiveIndexOptions, LiveIndexStatus, IndexSignal, UnsavedChanges } from './persist';
// Watching: saves and HEAD moves.
export { RepositoryWatcher } from './watch';
export type { WatchMode } from './watch';
// Semantic stage (optional): chunk embeddings from a model backend, fused with the lexical ranking.
export {
  chunkText,
  embeddingInput,
  contentKey,
  planEmbeddings,
  fileRanking,
  cosineSimilarity,
  fuseRankings,
  SemanticIndex,
  PromptRanker,
  RRF_K,
  CHUNK_MAX_LINES,
  CHUNK_MAX_CHARS,
  CHUNK_OVERLAP_LINES,
  FUSION_DEPTH,
  SEMANTIC_MIN_SIMILARITY,
  SEMANTIC_TOP_FILES,
  DEFAULT_MAX_CHUNKS_PER_UPDATE,
  PROMPT_EMBED_TIMEOUT_MS,
  PROMPT_RETRY_MS,
} from './semantic';
export type { Embedder, SemanticFileHit, SemanticIndexSummary, SemanticSource, UpdateResult, PromptRankerStatus, TextChunk, EmbeddingPlan } from './semantic';
