/**
 * Which files a query ranks. Scoring every indexed file costs too much on a large repository, so a
 * query ranks only files that can reach its first topN, chosen so that the result equals ranking
 * them all (`rankFiles`, recency-only files dropped):
 *
 * 1. The own signals of a file with a word match (a BM25 hit or a path term) are bounded by its
 *    BM25 share, its path-term share and its recency (O(1) each, no file built). A file without a
 *    word match, a named path, a frame or a defined name has recency alone and is never returned.
 * 2. Seeds (files named by a prompt path or frame, files defining a name the prompt mentions, the
 *    best BM25 hits, and every hit whose bound could pass a graph lift) are ranked without links:
 *    their own scores. Only seeds can pass a lift (GRAPH_MIN_SOURCE_SCORE); the topN-th own score
 *    is a bar the final topN-th score cannot fall below.
 * 3. A file's final score is at most its own plus the graph weight times its best neighbouring
 *    source's own score (or the counterpart weight times the score before the prior of a test
 *    named for it). Files whose bound reaches the bar are ranked again with every source next
 *    to them, which gives their exact scores; the others cannot enter the first topN.
 */
import {
  fileRole,
  GRAPH_MIN_SOURCE_SCORE,
  keepFrames,
  rankFiles,
  sizeValue,
  titlePathQuery,
  type ExtraSignal,
  SIGNAL_WEIGHTS,
  type Bm25Index,
  type Bm25Scores,
  type PathTermScores,
  type PromptAnalysis,
  type RankCandidate,
  type RankedFile,
  testedName,
} from '../ranking';
import { literalSignals } from './literal-signals';
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
  /** Estimated tokens of the text. */
  tokens: number;
  /** Generated or minified (content-kind.ts): ranked as generated whatever its path. */
  generated?: boolean;
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
  /** A file's estimated tokens (0 when not indexed). */
  tokens(path: string): number;
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

// Scores are rounded to 1e-6 per rationale entry and in total; bounds keep room for that.
const MARGIN = 1e-5;

/** A file that can pass a lift, with its links. */
interface Source {
  imports: readonly string[];
  coChanged: readonly string[];
}

/** Signals that order related files but say nothing about the prompt (every file has some). */
const PRIORS: ReadonlySet<string> = new Set(['recently_changed', 'file_size', 'role_prior']);

/** A file whose only signals are priors (recency, size) is not returned. */
function relatesToPrompt(file: RankedFile): boolean {
  return file.rationale.some((entry) => !PRIORS.has(entry.signal));
}

/** The BM25 views a query ranks with (see `rankFiles`). */
interface Views {
  all: Bm25Scores;
  code: Bm25Scores;
  title: Bm25Scores;
}

/** `rankFiles` over `files`; only `sources` bring links (every edge that can carry a lift). */
function rank(analysis: PromptAnalysis, views: Views, pathTerms: PathTermScores, titlePath: PathTermScores, lookup: FileLookup, files: Iterable<QueryableFile>, sources: ReadonlyMap<string, Source>, extra: ReadonlyMap<string, readonly ExtraSignal[]>): RankedFile[] {
  const candidates: RankCandidate[] = [];
  for (const f of files) {
    const links = sources.get(f.path);
    candidates.push({
      path: f.path,
      definedNames: f.definedNames,
      recency: f.recency,
      tokens: f.tokens,
      ...(f.generated === true ? { generated: true } : {}),
      ...(links === undefined ? {} : { neighbours: links.imports, coChanged: links.coChanged }),
    });
  }
  const options = { scores: views.all, codeScores: views.code, titleScores: views.title, pathTerms, titlePathTerms: titlePath, definitions: lookup, resolvePath: (p: string) => lookup.resolvePath(p), extra };
  return rankFiles(analysis, candidates, options).filter(relatesToPrompt);
}

/**
 * The best files for an analyzed prompt: the first `topN` of ranking every indexed file, in the
 * same order with the same rationale, while building and scoring only the files that can get
 * there (see the module comment).
 */
export function rankReachable(prompt: PromptAnalysis, source: QuerySource, topN: number): CandidateRanking {
  // Frames in the standard library or installed dependencies name no file here.
  const analysis: PromptAnalysis = { ...prompt, frames: keepFrames(prompt.frames, (f) => source.lookup.resolvePath(f.file).length > 0) };
  const extra = literalSignals(analysis, { size: source.size, bm25: source.bm25, lookup: source.lookup, text: (path) => source.file(path)?.text });
  const views: Views = {
    all: source.bm25.scores(analysis.terms),
    code: source.bm25.scores(analysis.terms, { codeOnly: true }),
    title: source.bm25.scores(analysis.titleTerms),
  };
  const scores = views.all;
  const pathTerms = source.lookup.pathTerms(analysis);
  const titlePath: PathTermScores = analysis.titleTerms.length === 0 ? new Map() : source.lookup.pathTerms(titlePathQuery(analysis));
  const bestHits = scores.top(Math.max(topN, LEXICAL_SEEDS));
  const bests = [bestHits[0], views.code.top(1)[0], views.title.top(1)[0]].flatMap((hit) => (hit === undefined ? [] : [hit]));
  const bestOf = (view: Bm25Scores): number => view.top(1)[0]?.score ?? 1;
  const top = { all: bestOf(views.all), code: bestOf(views.code), title: bestOf(views.title) };
  // Word signals (three BM25 shares, path terms of the prompt and of its title) and the priors (recency, size) bound the own score
  // of a file that no prompt path, frame or name points at; the role prior only lowers it.
  const words = (path: string, score: number): number =>
    (SIGNAL_WEIGHTS.lexical * score) / top.all +
    (SIGNAL_WEIGHTS.lexical_code * views.code.score(path)) / top.code +
    (SIGNAL_WEIGHTS.title_terms * views.title.score(path)) / top.title +
    SIGNAL_WEIGHTS.path_terms * (pathTerms.get(path)?.share ?? 0) +
    SIGNAL_WEIGHTS.title_path * (titlePath.get(path)?.share ?? 0);
  const priorBound = (path: string): number =>
    SIGNAL_WEIGHTS.recently_changed * Math.min(1, Math.max(0, source.recency(path))) + SIGNAL_WEIGHTS.file_size * (sizeValue(source.tokens(path))?.value ?? 0);
  const PRIOR_MAX = SIGNAL_WEIGHTS.recently_changed + SIGNAL_WEIGHTS.file_size;
  const wordBound = (path: string, score: number): number => words(path, score) + priorBound(path);
  // Every file with a word signal, once: BM25 hits, then title and path-term files without one.
  const forEachWordMatch = (fn: (path: string, score: number) => void): void => {
    scores.forEach(fn);
    views.title.forEach((path) => {
      if (scores.score(path) === 0) fn(path, 0);
    });
    for (const path of pathTerms.keys()) if (scores.score(path) === 0 && views.title.score(path) === 0) fn(path, 0);
    for (const path of titlePath.keys()) if (scores.score(path) === 0 && views.title.score(path) === 0 && !pathTerms.has(path)) fn(path, 0);
  };
  const files = new Map<string, QueryableFile>();
  const add = (path: string): void => {
    const file = files.has(path) ? undefined : source.file(path);
    if (file !== undefined) files.set(path, file);
  };

  // Step 2. Each view's best hit is always ranked: every file's share in that view is relative to it.
  const seeds = new Set(source.lookup.directMatches(analysis));
  for (const path of extra.keys()) seeds.add(path);
  for (const hit of [...bestHits, ...bests]) seeds.add(hit.docId);
  forEachWordMatch((path, score) => {
    // Priors are looked up only when the word signals alone leave them a chance.
    if (words(path, score) + PRIOR_MAX + MARGIN < GRAPH_MIN_SOURCE_SCORE) return;
    if (wordBound(path, score) + MARGIN >= GRAPH_MIN_SOURCE_SCORE) seeds.add(path);
  });
  seeds.forEach(add);
  const own = rank(analysis, views, pathTerms, titlePath, source.lookup, files.values(), new Map(), extra);
  const bar = own[topN - 1]?.score ?? Number.NEGATIVE_INFINITY;

  // Step 3. The best lift each file can get.
  const sources = new Map<string, Source>();
  const lifts = new Map<string, number>();
  // Tests pass a lift to the files they are named for, from their score before the role prior:
  // at most the own score over the role's factor (the prior is that factor or 1).
  const testedBy = new Map<string, readonly string[]>();
  for (const { path, score } of own) {
    const name = testedName(path);
    if (name === undefined) continue;
    const before = score / fileRole(path).factor;
    if (before + MARGIN < GRAPH_MIN_SOURCE_SCORE) continue;
    const tested = source.lookup.resolvePath(name).filter((p) => fileRole(p).role === 'source');
    testedBy.set(path, tested);
    for (const n of tested) lifts.set(n, Math.max(lifts.get(n) ?? 0, SIGNAL_WEIGHTS.test_counterpart * before));
  }
  for (const { path, score } of own) {
    if (score + MARGIN < GRAPH_MIN_SOURCE_SCORE) continue;
    const imports = source.importLinks(path);
    const coChanged = source.coChangeLinks(path);
    sources.set(path, { imports, coChanged });
    // An upper bound: a co-change lift is COCHANGE_FACTOR of this, and the role prior only lowers it.
    for (const n of [...imports, ...coChanged]) lifts.set(n, Math.max(lifts.get(n) ?? 0, SIGNAL_WEIGHTS.graph_neighbour * score));
  }
  const reaching = new Set<string>();
  const consider = (path: string, bound: number): void => {
    if (bound + (lifts.get(path) ?? 0) + MARGIN >= bar) reaching.add(path);
  };
  const ownScore = new Map(own.map((f) => [f.path, f.score]));
  for (const path of seeds) consider(path, ownScore.get(path) ?? priorBound(path));
  forEachWordMatch((path, score) => {
    if (seeds.has(path) || words(path, score) + PRIOR_MAX + (lifts.get(path) ?? 0) + MARGIN < bar) return;
    consider(path, wordBound(path, score));
  });
  for (const path of lifts.keys()) {
    if (!seeds.has(path) && scores.score(path) === 0 && views.title.score(path) === 0 && !pathTerms.has(path) && !titlePath.has(path)) consider(path, priorBound(path));
  }

  // Ranked again: those files, every source next to one of them, and each view's best hit.
  const ranked = new Set(reaching);
  for (const hit of bests) ranked.add(hit.docId);
  for (const [path, s] of sources) if (s.imports.some((n) => reaching.has(n)) || s.coChanged.some((n) => reaching.has(n))) ranked.add(path);
  for (const [test, tested] of testedBy) if (tested.some((n) => reaching.has(n))) ranked.add(test);
  ranked.forEach(add);
  const rankedSources = new Map([...sources].filter(([path]) => ranked.has(path)));
  const result = rank(analysis, views, pathTerms, titlePath, source.lookup, [...ranked].flatMap((p) => files.get(p) ?? []), rankedSources, extra);
  return { ranked: result, files };
}
