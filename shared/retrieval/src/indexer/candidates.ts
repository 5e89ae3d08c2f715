/**
 * Which files a query ranks. Scoring every indexed file costs too much on a large repository, so a
 * query ranks only files that can reach its first topN, chosen so that the result equals ranking
 * them all (`rankFiles`, co-change lifts weakened, recency-only files dropped):
 *
 * 1. The own signals of a file with a word match (a BM25 hit or a path term) are bounded by its
 *    BM25 share, its path-term share and its recency (O(1) each, no file built). A file without a
 *    word match, a named path, a frame or a defined name has recency alone and is never returned.
 * 2. Seeds (files named by a prompt path or frame, files defining a name the prompt mentions, the
 *    best BM25 hits, and every hit whose bound could pass a graph lift) are ranked without links:
 *    their own scores. Only seeds can pass a lift (GRAPH_MIN_SOURCE_SCORE); the topN-th own score
 *    is a bar the final topN-th score cannot fall below.
 * 3. A file's final score is at most its own plus the graph weight times its best neighbouring
 *    source's own score. Files whose bound reaches the bar are ranked again with every source next
 *    to them, which gives their exact scores; the others cannot enter the first topN.
 */
import {
  GRAPH_MIN_SOURCE_SCORE,
  rankFiles,
  SIGNAL_WEIGHTS,
  type Bm25Index,
  type Bm25Scores,
  type PathTermScores,
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
  /** A file's recency, 0..1 (0 without history or when not indexed). */
  recency(path: string): number;
  /** Resolved imports and importers (`FileGraph.importLinks`). */
  importLinks(path: string): readonly string[];
  /** Co-change neighbours either way; may name files not indexed (`FileGraph.coChangeLinks`). */
  coChangeLinks(path: string): readonly string[];
}

/** A ranking of the files that can reach the first topN, with those files by path. */
export interface CandidateRanking {
  ranked: RankedFile[];
  files: ReadonlyMap<string, QueryableFile>;
}

/** Best BM25 hits taken as seeds (at least topN): their own scores set the bar of step 2. */
export const LEXICAL_SEEDS = 20;
/**
 * A graph lift that comes only from a co-change neighbour counts this fraction of an import
 * neighbour's: changing together is weaker evidence than importing.
 */
export const COCHANGE_FACTOR = 0.5;

// Scores are rounded to 1e-6 per rationale entry and in total; bounds keep room for that.
const MARGIN = 1e-5;
const round = (n: number): number => Math.round(n * 1e6) / 1e6;
const NEIGHBOUR_PREFIX = 'neighbour of ';

/** A file that can pass a lift, with its links. */
interface Source {
  imports: readonly string[];
  neighbours: readonly string[];
}

/** Scales graph lifts that come only from co-change neighbours, then re-sorts. */
function weakenCoChange(ranked: RankedFile[], sources: ReadonlyMap<string, Source>): RankedFile[] {
  const out = ranked.map((file): RankedFile => {
    if (!file.rationale.some((entry) => entry.signal === 'graph_neighbour')) return file;
    let changed = false;
    const rationale = file.rationale.map((entry) => {
      if (entry.signal !== 'graph_neighbour' || !entry.detail.startsWith(NEIGHBOUR_PREFIX)) return entry;
      const from = entry.detail.slice(NEIGHBOUR_PREFIX.length);
      // Import links are symmetric and a lift always comes from a source: its side is enough.
      if (sources.get(from)?.imports.includes(file.path) === true) return entry;
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

/** `rankFiles` over `files`; only `sources` bring links (every edge that can carry a lift). */
function rank(analysis: PromptAnalysis, scores: Bm25Scores, pathTerms: PathTermScores, lookup: FileLookup, files: Iterable<QueryableFile>, sources: ReadonlyMap<string, Source>): RankedFile[] {
  const candidates: RankCandidate[] = [];
  for (const f of files) {
    const neighbours = sources.get(f.path)?.neighbours;
    candidates.push({ path: f.path, definedNames: f.definedNames, recency: f.recency, ...(neighbours === undefined ? {} : { neighbours }) });
  }
  return weakenCoChange(rankFiles(analysis, candidates, { scores, pathTerms, definitions: lookup }), sources).filter(relatesToPrompt);
}

const recencyWeight = (recency: number): number => SIGNAL_WEIGHTS.recently_changed * Math.min(1, Math.max(0, recency));

/**
 * The best files for an analyzed prompt: the first `topN` of ranking every indexed file, in the
 * same order with the same rationale, while building and scoring only the files that can get
 * there (see the module comment).
 */
export function rankReachable(analysis: PromptAnalysis, source: QuerySource, topN: number): CandidateRanking {
  const scores = source.bm25.scores(analysis.terms);
  const pathTerms = source.lookup.pathTerms(analysis);
  const bestHits = scores.top(Math.max(topN, LEXICAL_SEEDS));
  const best = bestHits[0];
  // Word signals (BM25 share, path terms) and recency bound the own score of a file that no prompt
  // path, frame or name points at.
  const words = (path: string, score: number): number =>
    (SIGNAL_WEIGHTS.lexical * score) / (best?.score ?? 1) + SIGNAL_WEIGHTS.path_terms * (pathTerms.get(path)?.share ?? 0);
  const wordBound = (path: string, score: number): number => words(path, score) + recencyWeight(source.recency(path));
  // Every file with a word signal, once: BM25 hits, then path-term files without a hit.
  const forEachWordMatch = (fn: (path: string, score: number) => void): void => {
    scores.forEach(fn);
    for (const path of pathTerms.keys()) if (scores.score(path) === 0) fn(path, 0);
  };
  const files = new Map<string, QueryableFile>();
  const add = (path: string): void => {
    const file = files.has(path) ? undefined : source.file(path);
    if (file !== undefined) files.set(path, file);
  };

  // Step 2. The best hit is always ranked: every file's BM25 share is relative to it.
  const seeds = new Set(source.lookup.directMatches(analysis));
  for (const hit of bestHits) seeds.add(hit.docId);
  forEachWordMatch((path, score) => {
    // Recency is looked up only when the word signals alone leave it a chance.
    if (words(path, score) + SIGNAL_WEIGHTS.recently_changed + MARGIN < GRAPH_MIN_SOURCE_SCORE) return;
    if (wordBound(path, score) + MARGIN >= GRAPH_MIN_SOURCE_SCORE) seeds.add(path);
  });
  seeds.forEach(add);
  const own = rank(analysis, scores, pathTerms, source.lookup, files.values(), new Map());
  const bar = own[topN - 1]?.score ?? Number.NEGATIVE_INFINITY;

  // Step 3. The best lift each file can get.
  const sources = new Map<string, Source>();
  const lifts = new Map<string, number>();
  for (const { path, score } of own) {
    if (score + MARGIN < GRAPH_MIN_SOURCE_SCORE) continue;
    const imports = source.importLinks(path);
    const neighbours = [...imports, ...source.coChangeLinks(path)];
    sources.set(path, { imports, neighbours });
    for (const n of neighbours) lifts.set(n, Math.max(lifts.get(n) ?? 0, SIGNAL_WEIGHTS.graph_neighbour * score));
  }
  const reaching = new Set<string>();
  const consider = (path: string, bound: number): void => {
    if (bound + (lifts.get(path) ?? 0) + MARGIN >= bar) reaching.add(path);
  };
  const ownScore = new Map(own.map((f) => [f.path, f.score]));
  for (const path of seeds) consider(path, ownScore.get(path) ?? recencyWeight(source.recency(path)));
  forEachWordMatch((path, score) => {
    if (seeds.has(path) || words(path, score) + SIGNAL_WEIGHTS.recently_changed + (lifts.get(path) ?? 0) + MARGIN < bar) return;
    consider(path, wordBound(path, score));
  });
  for (const path of lifts.keys()) {
    if (!seeds.has(path) && scores.score(path) === 0 && !pathTerms.has(path)) consider(path, recencyWeight(source.recency(path)));
  }

  // Ranked again: those files, every source next to one of them, and the best hit.
  const ranked = new Set(reaching);
  if (best !== undefined) ranked.add(best.docId);
  for (const [path, s] of sources) if (s.neighbours.some((n) => reaching.has(n))) ranked.add(path);
  ranked.forEach(add);
  const rankedSources = new Map([...sources].filter(([path]) => ranked.has(path)));
  const result = rank(analysis, scores, pathTerms, source.lookup, [...ranked].flatMap((p) => files.get(p) ?? []), rankedSources);
  return { ranked: result, files };
}
