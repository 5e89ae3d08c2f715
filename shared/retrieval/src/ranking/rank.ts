/**
 * Signal combination: scores candidate files for an analyzed prompt and says why, one rationale
 * entry per signal that fired. Every signal has a value (about 0..1, see direct.ts and
 * indexer/literal-signals.ts); a file's own score is the role prior times Σ weight × value; then one
 * graph hop. Weights live in `weights.ts`.
 */
import { Bm25Index, type Bm25Hit, type Bm25Scores } from './bm25';
import {
  frameValue,
  pathValue,
  promptNames,
  resolveFrames,
  resolveNamed,
  resolverOver,
  symbolValue,
  type DefinitionCounts,
  type PathResolver,
  type SignalValue,
} from './direct';
import { PathTermIndex, type PathTermScores } from './path-terms';
import type { PromptAnalysis } from './prompt';
import { testedName } from './counterparts';
import { pathBase } from './paths';
import { rolePrior } from './roles';
import { identifierTokens } from './tokens';
import { COCHANGE_FACTOR, FILE_SIZE_REFERENCE, GRAPH_MIN_SOURCE_SCORE, SIGNAL_WEIGHTS, type Signal, type SignalWeights } from './weights';

export type { DefinitionCounts, PathResolver } from './direct';

/** A file that may be ranked: plain data the index can produce. */
export interface RankCandidate {
  /** Repository-relative path with `/` separators; also the candidate's id. */
  path: string;
  /** Text used for the lexical signal (content or a summary); absent = no lexical signal. */
  text?: string;
  /** Names of symbols the file defines (functions, classes, methods…). */
  definitions?: readonly string[];
  /**
   * The same names normalized (`identifierTokens(name).whole`), when the caller keeps them per
   * file; then `definitions` is not read (and not tokenized on every call).
   */
  definedNames?: ReadonlySet<string>;
  /** Paths of files it imports or that import it; either direction is enough. */
  neighbours?: readonly string[];
  /** Paths of files that change in the same commits (weaker than imports: COCHANGE_FACTOR). */
  coChanged?: readonly string[];
  /** 0..1, 1 = changed just now; 0 or absent = no recency signal. */
  recency?: number;
  /** Estimated tokens of the file (the `file_size` prior); absent = no size signal. */
  tokens?: number;
  /** Program code (not docs, data or a changelog): also scored among code files (`lexical_code`). */
  code?: boolean;
  /** The file's header says a tool generated it (or it is minified): the role prior treats it as generated. */
  generated?: boolean;
}

/** One reason a file ranks where it does; its weight is its share of the score. */
export interface RationaleEntry {
  signal: Signal;
  /** Human-readable, names what matched (never file content). */
  detail: string;
  weight: number;
}

/** A signal computed outside `rankFiles` (indexer/literal-signals.ts): its value before weight and prior. */
export interface ExtraSignal {
  signal: Signal;
  value: number;
  detail: string;
}

/** A scored file. */
export interface RankedFile {
  path: string;
  /** Sum of the rationale weights. */
  score: number;
  rationale: RationaleEntry[];
}

/** Options of `rankFiles`. */
export interface RankOptions {
  /** Keep only the best files; default: all files with a score above 0. */
  limit?: number;
  /** Overrides of SIGNAL_WEIGHTS (e.g. for a benchmark sweep). */
  weights?: Partial<SignalWeights>;
  /**
   * A prebuilt code-mode index keyed by path, used for the lexical signal instead of indexing the
   * candidates' `text` on every call (default). Hits outside the candidates are ignored.
   */
  index?: Bm25Index;
  /** Scores of `analysis.terms` already computed with `index.scores`; used instead of `index`. */
  scores?: Bm25Scores;
  /** Scores of `analysis.terms` among code files (`index.scores(terms, { codeOnly: true })`). */
  codeScores?: Bm25Scores;
  /** Scores of `analysis.titleTerms` (`index.scores(titleTerms)`). */
  titleScores?: Bm25Scores;
  /**
   * Path-term matches of `analysis.terms` over the whole repository (`PathTermIndex.scores`); by
   * default computed over the candidates' paths.
   */
  pathTerms?: PathTermScores;
  /** Path-term matches of the title's words (`titlePathQuery`) over the whole repository; by default over the candidates' paths. */
  titlePathTerms?: PathTermScores;
  /**
   * How many files define a normalized name, out of how many, over the whole repository
   * (`FileLookup`); by default counted over the candidates.
   */
  definitions?: DefinitionCounts;
  /**
   * The files a prompt path or frame names, over the whole repository (`FileLookup.resolvePath`);
   * by default resolved among the candidates. A name many files share (`conf.py`) says less.
   */
  resolvePath?: PathResolver;
  /** Signals computed where the texts are (`module_named`, `text_quoted`, `literal_defined`), by path. */
  extra?: ReadonlyMap<string, readonly ExtraSignal[]>;
}

const round = (n: number): number => Math.round(n * 1e6) / 1e6;

function candidateDefinitions(candidates: readonly RankCandidate[]): DefinitionCounts {
  const counts = new Map<string, number>();
  for (const c of candidates) {
    const names = c.definedNames ?? new Set((c.definitions ?? []).flatMap((d) => identifierTokens(d).whole ?? []));
    for (const name of names) counts.set(name, (counts.get(name) ?? 0) + 1);
  }
  return { files: candidates.length, count: (name) => counts.get(name) ?? 0 };
}

function definedNamesOf(c: RankCandidate): ReadonlySet<string> {
  return c.definedNames ?? new Set((c.definitions ?? []).flatMap((d) => identifierTokens(d).whole ?? []));
}

/**
 * The title's words as path terms: every word counts, prose included (path_terms reads only names and
 * paths from the whole prompt, where prose is too common to say anything about folders).
 */
export function titlePathQuery(analysis: Pick<PromptAnalysis, 'titleTerms'>): Pick<PromptAnalysis, 'labels' | 'terms'> {
  return { labels: [], terms: analysis.titleTerms.map((t) => ({ ...t, kind: 'identifier' as const })) };
}

function pathTermValues(query: Pick<PromptAnalysis, 'labels' | 'terms'>, candidates: readonly RankCandidate[], given: PathTermScores | undefined, what: string): Map<string, SignalValue> {
  let scores = given;
  if (scores === undefined) {
    const index = new PathTermIndex();
    for (const c of candidates) index.add(c.path);
    scores = index.scores(query);
  }
  const out = new Map<string, SignalValue>();
  for (const c of candidates) {
    const hit = scores.get(c.path);
    if (hit !== undefined) out.set(c.path, { value: hit.share, detail: `path has ${what}${hit.matched.slice(0, 4).join(', ')}` });
  }
  return out;
}

/** The three BM25 views of a prompt: all files, code files among themselves, the title alone. */
interface LexicalScores {
  all: Bm25Scores;
  code: Bm25Scores;
  title: Bm25Scores;
}

function lexicalScores(analysis: PromptAnalysis, candidates: readonly RankCandidate[], options: RankOptions): LexicalScores {
  let index = options.index;
  const build = (): Bm25Index => {
    if (index === undefined) {
      index = new Bm25Index();
      for (const c of candidates) if (c.text !== undefined) index.add(c.path, c.text, { code: c.code === true });
    }
    return index;
  };
  return {
    all: options.scores ?? build().scores(analysis.terms),
    code: options.codeScores ?? build().scores(analysis.terms, { codeOnly: true }),
    title: options.titleScores ?? build().scores(analysis.titleTerms),
  };
}

/** Each candidate's BM25 share of the best candidate's score (0..1), under one view. */
function shares(scores: Bm25Scores, candidates: readonly RankCandidate[], describe: (share: number, terms: string) => string): Map<string, SignalValue> {
  const hits: Bm25Hit[] = [];
  for (const c of candidates) {
    const hit = scores.hit(c.path);
    if (hit !== undefined) hits.push(hit);
  }
  const top = hits.reduce((best, hit) => Math.max(best, hit.score), 0);
  const out = new Map<string, SignalValue>();
  for (const hit of hits) {
    const share = hit.score / top;
    out.set(hit.docId, { value: share, detail: describe(share, hit.matched.slice(0, 6).join(', ')) });
  }
  return out;
}

/** The `file_size` prior: log size relative to FILE_SIZE_REFERENCE, at most 1. */
export function sizeValue(tokens: number | undefined): SignalValue | null {
  if (tokens === undefined || tokens <= 0) return null;
  return { value: Math.min(1, Math.log1p(tokens) / Math.log1p(FILE_SIZE_REFERENCE)), detail: `${tokens} tokens` };
}

/** The one lift a file takes: from its best neighbour, or from a test named for it. */
interface Lift {
  signal: 'graph_neighbour' | 'test_counterpart';
  from: string;
  weight: number;
  detail: string;
}

/** Candidate test files by the bare file name they are named for (counterparts.ts). */
function testsByName(candidates: readonly RankCandidate[]): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const c of candidates) {
    const name = testedName(c.path);
    if (name !== undefined) out.set(name, [...(out.get(name) ?? []), c.path]);
  }
  return out;
}

const sum = (entries: readonly RationaleEntry[]): number => entries.reduce((total, e) => total + e.weight, 0);

/** Undirected links among candidates, each with the factor its lift carries (imports 1, co-change COCHANGE_FACTOR). */
function adjacency(candidates: readonly RankCandidate[]): Map<string, Map<string, number>> {
  const known = new Set(candidates.map((c) => c.path));
  const graph = new Map<string, Map<string, number>>();
  const link = (a: string, b: string, factor: number): void => {
    if (a === b || !known.has(a) || !known.has(b)) return;
    let links = graph.get(a);
    if (links === undefined) graph.set(a, (links = new Map()));
    links.set(b, Math.max(links.get(b) ?? 0, factor));
  };
  for (const c of candidates) {
    for (const n of c.neighbours ?? []) { link(c.path, n, 1); link(n, c.path, 1); }
    for (const n of c.coChanged ?? []) { link(c.path, n, COCHANGE_FACTOR); link(n, c.path, COCHANGE_FACTOR); }
  }
  return graph;
}

/**
 * Scores candidates for an analyzed prompt. Direct signals (named path, traceback frame, defined
 * symbol, literal signals, path terms, title words in paths, three BM25 views, recency, size) add up, each weight × value, all times the
 * file's role prior; then, one hop, each file whose direct score reaches GRAPH_MIN_SOURCE_SCORE
 * passes a fraction of it to its neighbours (a file takes the largest such share, not the sum, so
 * hubs are not inflated; a co-change link passes COCHANGE_FACTOR of an import's). Sorted by score,
 * ties by path; zero scores dropped.
 */
export function rankFiles(analysis: PromptAnalysis, candidates: readonly RankCandidate[], options: RankOptions = {}): RankedFile[] {
  const w: SignalWeights = { ...SIGNAL_WEIGHTS, ...options.weights };
  const names = promptNames(analysis);
  const counts = options.definitions ?? candidateDefinitions(candidates);
  const resolve = options.resolvePath ?? resolverOver(candidates.map((c) => c.path));
  const named = resolveNamed(analysis, resolve);
  const framed = resolveFrames(analysis.frames, resolve);
  const scores = lexicalScores(analysis, candidates, options);
  const lexical = shares(scores.all, candidates, (share, terms) => `bm25 ${share.toFixed(2)} of best (${terms})`);
  const lexicalCode = shares(scores.code, candidates, (share, terms) => `bm25 among code files ${share.toFixed(2)} of best (${terms})`);
  const title = shares(scores.title, candidates, (share, terms) => `title words: bm25 ${share.toFixed(2)} of best (${terms})`);
  const pathTerms = pathTermValues(analysis, candidates, options.pathTerms, '');
  const titlePath = analysis.titleTerms.length === 0 ? new Map<string, SignalValue>() : pathTermValues(titlePathQuery(analysis), candidates, options.titlePathTerms, 'title words ');
  const direct = new Map<string, RationaleEntry[]>();
  const priors = new Map<string, { role: string; factor: number }>();
  for (const c of candidates) {
    const hit = named.get(c.path);
    const values: Array<[Signal, SignalValue | null]> = [
      ['path_named', pathValue(hit)],
      ['traceback_frame', frameValue(framed.get(c.path))],
      ['symbol_defined', symbolValue(names, definedNamesOf(c), counts)],
      ...(options.extra?.get(c.path) ?? []).map((e): [Signal, SignalValue] => [e.signal, e]),
      ['path_terms', pathTerms.get(c.path) ?? null],
      ['lexical', lexical.get(c.path) ?? null],
      ['lexical_code', lexicalCode.get(c.path) ?? null],
      ['title_terms', title.get(c.path) ?? null],
      ['title_path', titlePath.get(c.path) ?? null],
      ['file_size', sizeValue(c.tokens)],
    ];
    const recency = Math.min(1, Math.max(0, c.recency ?? 0));
    if (recency > 0) values.push(['recently_changed', { value: recency, detail: `recency ${recency.toFixed(2)}` }]);
    // A file the prompt singles out by path or by a frame is taken as asked for, whatever its role.
    const prior = rolePrior(c.path, analysis, hit?.count === 1 || framed.has(c.path), c.generated === true);
    priors.set(c.path, prior);
    const entries: RationaleEntry[] = [];
    for (const [signal, v] of values) {
      const weight = v === null ? 0 : w[signal] * v.value * prior.factor;
      if (v !== null && weight > 0) entries.push({ signal, detail: v.detail, weight });
    }
    direct.set(c.path, entries);
  }

  const graph = adjacency(candidates);
  const tests = testsByName(candidates);
  const ranked: RankedFile[] = [];
  for (const [path, entries] of direct) {
    const prior = priors.get(path) ?? { role: 'source', factor: 1 };
    let lift: Lift | null = null;
    const offer = (candidate: Lift): void => {
      if (candidate.weight > 0 && (lift === null || candidate.weight > lift.weight || (candidate.weight === lift.weight && candidate.from < lift.from))) lift = candidate;
    };
    for (const [neighbour, factor] of graph.get(path) ?? []) {
      const source = sum(direct.get(neighbour) ?? []);
      if (source < GRAPH_MIN_SOURCE_SCORE) continue;
      offer({ signal: 'graph_neighbour', from: neighbour, weight: w.graph_neighbour * source * factor * prior.factor, detail: factor < 1 ? `changed together with ${neighbour}` : `neighbour of ${neighbour}` });
    }
    // A test's evidence before its role prior: the prior says "not the test", not "not this scenario".
    if (prior.role === 'source') {
      for (const test of tests.get(pathBase(path)) ?? []) {
        const own = sum(direct.get(test) ?? []) / (priors.get(test)?.factor ?? 1);
        if (own < GRAPH_MIN_SOURCE_SCORE) continue;
        offer({ signal: 'test_counterpart', from: test, weight: w.test_counterpart * own, detail: `its test ${test} matches the prompt` });
      }
    }
    const chosen = lift as Lift | null;
    const rationale: RationaleEntry[] = chosen === null ? entries : [...entries, { signal: chosen.signal, detail: chosen.detail, weight: chosen.weight }];
    const rounded = rationale.map((e) => ({ ...e, weight: round(e.weight) }));
    const score = round(sum(rounded));
    if (score <= 0) continue;
    // Says why a match counted less; weighs nothing itself (the entries above are already scaled).
    if (prior.factor < 1) rounded.push({ signal: 'role_prior', detail: `${prior.role} x${prior.factor} (the prompt does not ask for ${prior.role})`, weight: 0 });
    ranked.push({ path, score, rationale: rounded });
  }
  ranked.sort((a, b) => b.score - a.score || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return options.limit === undefined ? ranked : ranked.slice(0, options.limit);
}
