/** Plain data shared by the repository index modules. */
import type { DegradeReason, Language, ReadRefusalReason } from '../scope';
import type { RationaleEntry } from '../ranking';
import type { SymbolDefinition } from '../symbols';
import type { SemanticFileHit } from '../semantic/types';

/**
 * One indexed file as plain JSON-serialisable data (the store persists these later).
 * `imports` are resolved repository paths, not import sources as written.
 */
export interface IndexedFileRecord {
  /** Repository-relative POSIX path. */
  path: string;
  /** sha256 (hex) of the bytes on disk: the content address. */
  sha256: string;
  language: Language;
  /** Size on disk in bytes. */
  bytes: number;
  /** Estimated tokens of the (redacted) text, `estimateTokens`. */
  tokens: number;
  definitions: SymbolDefinition[];
  /** Paths of indexed files this file imports, sorted. */
  imports: string[];
}

/**
 * Why a listed file is not in the index: a read refusal, or `unreadable` for an unexpected I/O error
 * (permissions, say) that should not stop the whole build.
 */
export type SkipReason = ReadRefusalReason | 'unreadable';

/** Options of `buildRepositoryIndex`. */
export interface BuildIndexOptions {
  /** Called after each candidate file is handled (read, refused or skipped). */
  onProgress?(done: number, total: number): void;
  /** Files read and parsed at once. Default `DEFAULT_READ_CONCURRENCY` (8). */
  concurrency?: number;
  /** Largest file read, in bytes. Default `DEFAULT_MAX_FILE_BYTES` (1 MiB). */
  maxFileBytes?: number;
}

/** Options of `RepositoryIndex.query`. */
export interface QueryOptions {
  /** Most items returned, 1..50. Default 10. */
  topN?: number;
  /** Estimated-token budget for all snippets together; default: no budget. */
  budgetTokens?: number;
  /**
   * The semantic file ranking of this prompt (the optional semantic stage,
   * docs/retrieval-semantic.md). When given and not empty, the order is the reciprocal rank fusion
   * of the lexical ranking and this one; absent or empty, the answer is the lexical one, unchanged.
   */
  semantic?: readonly SemanticFileHit[];
}

/** One selected file with why it was selected and the most relevant lines. */
export interface ContextItem {
  path: string;
  score: number;
  rationale: RationaleEntry[];
  /** 1-based inclusive lines of the (redacted) file text. */
  snippet: { startLine: number; endLine: number; text: string };
  /** Estimated tokens of `snippet.text`. */
  tokens: number;
}

/** What `RepositoryIndex.query` returns. */
export interface ContextResult {
  items: ContextItem[];
  stats: { files_indexed: number; took_ms: number };
}

/** What `RepositoryIndex.refresh` changed, in files. */
export interface RefreshResult {
  added: number;
  changed: number;
  removed: number;
  unchanged: number;
}

/** Counters of the index, for status output and tests. */
export interface IndexStats {
  files_indexed: number;
  /** Distinct contents (sha256 + language) whose symbols are cached. */
  blobs: number;
  /** `extractSymbols` calls since the index was created (one per new content). */
  parses: number;
  /** Files read from disk since the index was created. */
  reads: number;
  /** Listed files not indexed, by reason. */
  skipped: Partial<Record<SkipReason, number>>;
  /** Indexed files held in a degraded form (text cleaned, symbols by regex, ranked lower), by reason. */
  degraded: Partial<Record<DegradeReason, number>>;
  /** HEAD when git signals were last read, or null without commits. */
  head: string | null;
}

/** One indexed file as the preparation engine reads it (no text; see `IndexReader.text`). */
export interface IndexedFileView {
  path: string;
  /** sha256 (hex) of the bytes on disk when indexed. */
  sha256: string;
  language: Language;
  bytes: number;
  definitions: readonly SymbolDefinition[];
  /** Paths of indexed files this file imports. */
  imports: readonly string[];
}

/**
 * Read access to an index for the preparation engine: what is indexed now, each file's facts and
 * its text (redacted, in scope: the index holds nothing else).
 */
export interface IndexReader {
  readonly root: string;
  /** HEAD when git signals were last read; null without commits. */
  head(): string | null;
  paths(): string[];
  file(path: string): IndexedFileView | undefined;
  /** The redacted text as indexed; undefined when not indexed. Never log it. */
  text(path: string): string | undefined;
  /** Indexed files that import `path`. */
  importersOf(path: string): string[];
  /** Files that historically change in the same commits as `path`, most often first. */
  coChangedWith(path: string): readonly string[];
}
