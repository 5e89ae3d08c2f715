/**
 * Reciprocal rank fusion of the lexical ranking and the semantic one (Cormack, Clarke & Büttcher,
 * SIGIR 2009): a file scores the sum over both lists of 1 / (k + its rank there). Only ranks count,
 * so the lexical score (signal weights) and the cosine similarity, which live on unrelated scales,
 * need no calibration against each other. k = 60 is the paper's value and the common default: it
 * keeps the first few ranks of either list from drowning the other list's evidence.
 */
import type { RankedFile, RationaleEntry } from '../ranking';
import type { SemanticFileHit } from './types';

/** The `k` of reciprocal rank fusion. */
export const RRF_K = 60;

export interface FuseOptions {
  /** Default `RRF_K`. */
  k?: number;
}

const round = (n: number): number => Math.round(n * 1e6) / 1e6;

/** The rationale entry a semantic hit adds: its similarity and where its best chunk is. */
export function semanticEntry(hit: SemanticFileHit): RationaleEntry {
  return {
    signal: 'semantic',
    detail: `embedding similarity ${hit.similarity.toFixed(2)}, chunk lines ${hit.startLine}-${hit.endLine}`,
    weight: round(hit.similarity),
  };
}

/**
 * The lexical ranking and the semantic file ranking fused: every file of either list, scored by
 * reciprocal rank fusion, best first. A file keeps its lexical rationale and gains a `semantic`
 * entry when it is in the semantic list; `score` is the fused score. Ties go to the better lexical
 * rank, then the higher similarity.
 */
export function fuseRankings(lexical: readonly RankedFile[], semantic: readonly SemanticFileHit[], options: FuseOptions = {}): RankedFile[] {
  const k = options.k ?? RRF_K;
  const lexicalRank = new Map(lexical.map((f, i) => [f.path, i + 1]));
  const semanticHit = new Map<string, { hit: SemanticFileHit; rank: number }>();
  semantic.forEach((hit, i) => {
    if (!semanticHit.has(hit.path)) semanticHit.set(hit.path, { hit, rank: i + 1 });
  });
  const fused = new Map<string, { file: RankedFile; score: number }>();
  const share = (rank: number | undefined): number => (rank === undefined ? 0 : 1 / (k + rank));
  for (const file of lexical) {
    if (fused.has(file.path)) continue;
    const s = semanticHit.get(file.path);
    const rationale = s === undefined ? file.rationale : [...file.rationale, semanticEntry(s.hit)];
    fused.set(file.path, { file: { path: file.path, score: 0, rationale }, score: share(lexicalRank.get(file.path)) + share(s?.rank) });
  }
  for (const [path, s] of semanticHit) {
    if (!fused.has(path)) fused.set(path, { file: { path, score: 0, rationale: [semanticEntry(s.hit)] }, score: share(s.rank) });
  }
  const order = (path: string): number => lexicalRank.get(path) ?? Number.POSITIVE_INFINITY;
  const similarity = (path: string): number => semanticHit.get(path)?.hit.similarity ?? Number.NEGATIVE_INFINITY;
  return [...fused.values()]
    .sort((a, b) => b.score - a.score || order(a.file.path) - order(b.file.path) || similarity(b.file.path) - similarity(a.file.path) || a.file.path.localeCompare(b.file.path))
    .map(({ file, score }) => ({ ...file, score: round(score) }));
}
