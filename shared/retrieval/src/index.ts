// Scope: what Sous may read, read-only.
export {
  ScopeError,
  listCandidateFiles,
  headCommit,
  createScopePolicy,
  scopePolicyFromConfig,
  detectLanguage,
  isCodePath,
  readScopedFile,
  DEFAULT_MAX_FILE_BYTES,
  scopeCoverage,
  gitSignals,
  coChangedWith,
  readOnlyGitEnv,
} from './scope';
export type { ScopePolicy, ScopeDecision, Language, ScopedFile, ScopedReadResult, ReadRefusal, ScopeCoverage, GitSignals, FileGitSignal, CoChangePair } from './scope';
// Symbols: definitions, references, imports.
export { extractSymbols, splitIdentifier, resolveImport, isSymbolLanguage, MAX_TREE_SITTER_BYTES } from './symbols';
export type { FileSymbols, SymbolDefinition, SymbolImport, SymbolKind, SymbolLanguage, SymbolReference } from './symbols';
// Ranking: prompt analysis, BM25, signal combination, budgets, snippets.
export { analyzePrompt, codeTokens, plainTokens, Bm25Index, rankFiles, SIGNAL_WEIGHTS, estimateTokens, fitToBudget, bestSnippet } from './ranking';
export type { PromptAnalysis, QueryTerm, TracebackFrame, RankCandidate, RankedFile, RationaleEntry, WeightedTerm, Snippet } from './ranking';
// Index: the building blocks composed, in memory (store persistence comes next).
export { buildRepositoryIndex, RepositoryIndex, IndexError, DEFAULT_TOP_N, MAX_TOP_N } from './indexer';
export type { BuildIndexOptions, ContextItem, ContextResult, IndexedFileRecord, IndexStats, QueryOptions, RefreshResult } from './indexer';
