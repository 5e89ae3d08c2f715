/**
 * What the semantic stage has to do: compare the index (every file's content key) with what the
 * store holds (the key each file's chunks were cut from) and say which files to embed and which
 * files' vectors to drop. Pure: the runner (`SemanticIndex.update`) does the work.
 */
import { createHash } from 'node:crypto';
import { chunkingKey } from './chunk';

/** One indexed file as the planner sees it. */
export interface IndexedContent {
  path: string;
  contentKey: string;
}

/** One file with stored chunks. */
export interface StoredContent {
  path: string;
  contentKey: string;
}

export interface EmbeddingPlan {
  /** Files whose chunks are missing or were cut from other content, by path. */
  embed: string[];
  /** Files with stored chunks that are no longer indexed (deleted, ignored, out of scope), by path. */
  remove: string[];
  /** Files whose stored chunks still match. */
  unchanged: number;
}

/**
 * The key of what a file's chunks are cut from: the bytes on disk (sha256), how they were redacted
 * (the same bytes under other `privacy.redact_patterns` are another text) and how they are chunked.
 */
export function contentKey(sha256: string, redactPatterns: readonly RegExp[]): string {
  const redaction = redactPatterns.map((r) => `${r.source}/${r.flags}`);
  return createHash('sha256').update(JSON.stringify([sha256, redaction, chunkingKey()])).digest('hex');
}

/** Which files to embed and which to drop; files whose key matches are left alone. */
export function planEmbeddings(indexed: Iterable<IndexedContent>, stored: Iterable<StoredContent>): EmbeddingPlan {
  const have = new Map<string, string>();
  for (const s of stored) have.set(s.path, s.contentKey);
  const embed: string[] = [];
  const current = new Set<string>();
  let unchanged = 0;
  for (const file of indexed) {
    current.add(file.path);
    if (have.get(file.path) === file.contentKey) unchanged += 1;
    else embed.push(file.path);
  }
  const remove = [...have.keys()].filter((path) => !current.has(path));
  return { embed: embed.sort(), remove: remove.sort(), unchanged };
}
