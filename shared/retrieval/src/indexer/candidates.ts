/**
 * Which files a query ranks. Scoring every indexed file costs too much on a large repository, so
 * a query ranks only the files the prompt can reach: the best BM25 hits, files it names by path or
 * frame, files defining a name it mentions, and their graph neighbours (so a neighbour's lift still
 * works). A bound on what a left-out file could score proves the result equal to ranking all files;
 * when it does not, more BM25 hits are taken.
 */
import {
  GRAPH_MIN_SOURCE_SCORE,
  rankFiles,
  SIGNAL_WEIGHTS,
  type Bm25Index,
  type Bm25Scores,
  type PromptAnalysis,
  type RankCandidate,
  type RankedFile,
} from '../ranking';
import type { FileLookup } from './lookup';

/** An indexed file as the query sees it. */
export interface QueryableFile {
  path: string;
  /** Redacted text. */
  text: string;
  /** Normalized names of the symbols it defines (see `FileLookup.definedNames`). */
  definedNames: ReadonlySet<string>;
  /** Resolved imports and importers. */
  importNeighbours: readonly string[];
  /** Files changed together with it in git history (indexed ones only). */
  coChangeNeighbours: readonly string[];
  /** 0..1. */
  recency: number;
}

/** What a query reads from the index. */
export interface QuerySource {
  /** Files indexed. */
  readonly size: number;
  readonly bm25: Bm25Index;
  readonly lookup: FileLookup;
  /** One indexed file, built on demand; undefined when not indexed. */
  file(path: string): QueryableFile | undefined;
  /** Paths linked to `path` either way: imports, importers, co-change (`FileGraph.linkedTo`). */
  linked(path: string): Iterable<string>;
}

/** A ranking of the reachable files, with those files by path. */
export interface CandidateRanking {
  ranked: RankedFile[];
  files: ReadonlyMap<string, QueryableFile>;
}

/** BM25 hits taken as candidates at first; multiplied by LEXICAL_CANDIDATES_GROWTH while the result is not proven. */
export const LEXICAL_CANDIDATES = 300;
export const LEXICAL_CANDIDATES_GROWTH = 4;
/**
 * A graph lift that comes only from a co-change neighbour counts this fraction of an import
 * neighbour's: changing together is weaker evidence than importing.
 */
export const COCHANGE_FACTOR = 0.5;

// Scores are rounded to 1e-6 per rationale entry and in total; compare bounds with room for that.
const ROUNDING_MARGIN = 1e-5;
const round = (n: number): number => Math.round(n * 1e6) / 1e6;
const NEIGHBOUR_PREFIX = 'neighbour of ';

/** Scales graph lifts that come only from co-change neighbours, then re-sorts. */
function weakenCoChange(ranked: RankedFile[], byPath: ReadonlyMap<string, QueryableFile>): RankedFile[] {
  const out = ranked.map((file): RankedFile => {
    if (!file.rationale.some((entry) => entry.signal === 'graph_neighbour')) return file;
    const importers = new Set(byPath.get(file.path)?.importNeighbours ?? []);
    let changed = false;
    const rationale = file.rationale.map((entry) => {
      if (entry.signal !== 'graph_neighbour' || !entry.detail.startsWith(NEIGHBOUR_PREFIX)) return entry;
      const from = entry.detail.slice(NEIGHBOUR_PREFIX.length);
      if (importers.has(from) || byPath.get(from)?.importNeighbours.includes(file.path) === true) return entry;
      changed = true;
      return { ...entry, detail: `changed together with ${from}`, weight: round(entry.weight * COCHANGE_FACTOR) };
    });
    if (!changed) return file;
    return { ...file, rationale, score: round(rationale.reduce((s, e) => s + e.weight, 0)) };
  });
  return out.sort((a, b) => b.score - a.score || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

/**
 * Recency orders related files; alone it says nothing about the prompt (every file with history
 * has some), so a file whose only signal is `recently_changed` is not returned.
 */
function relatesToPrompt(file: RankedFile): boolean {
  return file.rationale.some((entry) => entry.signal !== 'recently_changed');
}

/**
 * Ranks the files reachable from the prompt with the `k` best BM25 hits as lexical seeds; null
 * when a file left out could be a graph source or could enter the best `topN`.
 *
 * Why the bound holds: a left-out file has no path, frame or symbol signal (those files are
 * seeds), BM25 at most the (k+1)-th hit's, recency at most 1, and no lift, since every file that
 * can pass one is a seed whose neighbours are all ranked. Ranked files see the same signals, the
 * same best BM25 score and the same edges among themselves as when ranking every file.
 */
function rankWithSeeds(analysis: PromptAnalysis, source: QuerySource, scores: Bm25Scores, direct: ReadonlySet<string>, k: number, topN: number): CandidateRanking | null {
  const hits = scores.top(k + 1);
  const seeds = new Set(direct);
  for (const hit of hits.slice(0, k)) seeds.add(hit.docId);
  const files = new Map<string, QueryableFile>();
  const include = (path: string): void => {
    if (files.has(path)) return;
    const file = source.file(path);
    if (file !== undefined) files.set(path, file);
  };
  for (const seed of seeds) {
    include(seed);
    for (const neighbour of source.linked(seed)) include(neighbour);
  }
  const candidates: RankCandidate[] = [...files.values()].map((f) => ({
    path: f.path,
    definedNames: f.definedNames,
    neighbours: [...f.importNeighbours, ...f.coChangeNeighbours],
    recency: f.recency,
  }));
  const ranked = weakenCoChange(rankFiles(analysis, candidates, { scores }), files).filter(relatesToPrompt);

  const next = hits[k];
  // Every file with a BM25 hit is ranked: a left-out file has recency alone and is never returned.
  if (next === undefined) return { ranked, files };
  const best = hits[0]?.score ?? 0;
  const leftOut = (SIGNAL_WEIGHTS.lexical * next.score) / best + SIGNAL_WEIGHTS.recently_changed;
  if (leftOut + ROUNDING_MARGIN >= GRAPH_MIN_SOURCE_SCORE) return null;
  const last = ranked[topN - 1];
  return last !== undefined && last.score > leftOut + ROUNDING_MARGIN ? { ranked, files } : null;
}

/**
 * The best files for an analyzed prompt, in the order ranking every indexed file with
 * `rankFiles` (co-change lifts weakened by COCHANGE_FACTOR, recency-only files dropped) gives
 * for its first `topN`; only files the prompt reaches are built and scored.
 */
export function rankReachable(analysis: PromptAnalysis, source: QuerySource, topN: number): CandidateRanking {
  const scores = source.bm25.scores(analysis.terms);
  const direct = source.lookup.directMatches(analysis);
  for (let k = LEXICAL_CANDIDATES; ; k *= LEXICAL_CANDIDATES_GROWTH) {
    const ranking = rankWithSeeds(analysis, source, scores, direct, k, topN);
    if (ranking !== null) return ranking;
  }
}
