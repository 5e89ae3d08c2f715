/**
 * A query's order when the semantic stage has a ranking for its prompt: the lexical ranking (the
 * first FUSION_DEPTH files, exact) fused with the semantic one, and for a file only the semantic
 * side found, the lines of its best chunk as the snippet (no prompt word is in it to pick lines by).
 */
import type { RankedFile } from '../ranking';
import { DEFAULT_SNIPPET_LINES, type Snippet } from '../ranking/snippet';
import { fuseRankings } from './fuse';
import type { SemanticFileHit } from './types';

/** Lexical files taken into fusion (at least topN): deeper ranks add at most 1/(60+30) each. */
export const FUSION_DEPTH = 30;

/** One fused file with its text and, when only the semantic side found it, its best chunk. */
export interface FusedFile {
  r: RankedFile;
  text: string | undefined;
  chunk?: { startLine: number; endLine: number };
}

/**
 * The first `topN` files of the fusion of `lexical` and `semantic`. Semantic hits on files the
 * index no longer holds (a vector not yet dropped) are left out.
 */
export function fusedFiles(
  lexical: readonly RankedFile[],
  semantic: readonly SemanticFileHit[],
  file: (path: string) => { text: string } | undefined,
  topN: number,
): FusedFile[] {
  const known = semantic.filter((hit) => file(hit.path) !== undefined);
  const hits = new Map(known.map((hit) => [hit.path, hit]));
  return fuseRankings(lexical, known)
    .slice(0, topN)
    .map((r) => {
      const text = file(r.path)?.text;
      const hit = hits.get(r.path);
      const onlySemantic = hit !== undefined && r.rationale.every((e) => e.signal === 'semantic');
      return onlySemantic ? { r, text, chunk: { startLine: hit.startLine, endLine: hit.endLine } } : { r, text };
    });
}

/** The first DEFAULT_SNIPPET_LINES lines of a chunk, as a snippet of `text`. */
export function chunkSnippet(text: string, chunk: { startLine: number; endLine: number }): Snippet {
  const lines = text.split(/\r?\n/);
  const start = Math.min(Math.max(1, chunk.startLine), Math.max(1, lines.length));
  const end = Math.min(chunk.endLine, start + DEFAULT_SNIPPET_LINES - 1, lines.length);
  return { startLine: start, endLine: Math.max(start, end), text: lines.slice(start - 1, Math.max(start, end)).join('\n') };
}
