/**
 * Signal combination: scores candidate files for an analyzed prompt and says why, one rationale
 * entry per signal that fired. Weights live in `weights.ts`.
 */
import { Bm25Index, type Bm25Hit, type Bm25Scores } from './bm25';
import type { TracebackFrame } from './frames';
import { pathBase, pathMatches, type MentionedPath } from './paths';
import { PathTermIndex, type PathTermScores } from './path-terms';
import type { PromptAnalysis } from './prompt';
import { identifierTokens } from './tokens';
import {
  GRAPH_MIN_SOURCE_SCORE,
  SIGNAL_WEIGHTS,
  SYMBOL_EXTRA_WEIGHT,
  SYMBOL_MAX_MATCHES,
  type Signal,
  type SignalWeights,
} from './weights';

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
  /** 0..1, 1 = changed just now; 0 or absent = no recency signal. */
  recency?: number;
}

/** One reason a file ranks where it does; its weight is its share of the score. */
export interface RationaleEntry {
  signal: Signal;
  /** Human-readable, names what matched (never file content). */
  detail: string;
  weight: number;
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
  /**
   * Path-term matches of `analysis.terms` over the whole repository (`PathTermIndex.scores`); by
   * default computed over the candidates' paths.
   */
  pathTerms?: PathTermScores;
  /**
   * How many files define a normalized name, out of how many, over the whole repository
   * (`FileLookup`); by default counted over the candidates.
   */
  definitions?: DefinitionCounts;
}

/** Definition counts by normalized name (see `RankOptions.definitions`). */
export interface DefinitionCounts {
  readonly files: number;
  count(name: string): number;
}

const round = (n: number): number => Math.round(n * 1e6) / 1e6;

/** A prompt path or frame file with its last segment, compared before the full `pathMatches`. */
interface PromptPath<T> {
  base: string;
  path: string;
  value: T;
}

function promptPaths<T>(values: readonly T[], pathOf: (value: T) => string): Array<PromptPath<T>> {
  return values.map((value) => ({ base: pathBase(pathOf(value)), path: pathOf(value), value }));
}

function pathSignal(named: ReadonlyArray<PromptPath<MentionedPath>>, path: string, base: string, w: SignalWeights): RationaleEntry | null {
  const found = named.find((p) => p.base === base && pathMatches(p.path, path))?.value;
  if (found === undefined) return null;
  const shown = found.line === undefined ? found.path : `${found.path}:${found.line}`;
  return { signal: 'path_named', detail: `prompt names ${shown}`, weight: w.path_named };
}

function frameSignal(frames: ReadonlyArray<PromptPath<TracebackFrame>>, path: string, base: string, w: SignalWeights): RationaleEntry | null {
  let frame: TracebackFrame | undefined;
  for (const candidate of frames) {
    if (candidate.base !== base || !pathMatches(candidate.path, path)) continue;
    if (frame === undefined || candidate.value.relevance > frame.relevance) frame = candidate.value;
  }
  if (frame === undefined) return null;
  const where = `${frame.file}${frame.line === undefined ? '' : `:${frame.line}`}${frame.function === undefined ? '' : ` in ${frame.function}`}`;
  return { signal: 'traceback_frame', detail: `${frame.language} frame ${where}`, weight: w.traceback_frame * frame.relevance };
}

/**
 * Prompt identifiers and frame functions, normalized like a whole identifier token
 * (`identifierTokens(name).whole`), each mapped to its first spelling in the prompt.
 */
export function promptNames(analysis: PromptAnalysis): Map<string, string> {
  const names = new Map<string, string>();
  const add = (name: string): void => {
    const { whole } = identifierTokens(name);
    if (whole !== null && !names.has(whole)) names.set(whole, name);
  };
  analysis.identifiers.forEach(add);
  for (const frame of analysis.frames) if (frame.function !== undefined) add(frame.function);
  return names;
}

function candidateDefinitions(candidates: readonly RankCandidate[]): DefinitionCounts {
  const counts = new Map<string, number>();
  for (const c of candidates) {
    const names = c.definedNames ?? new Set((c.definitions ?? []).flatMap((d) => identifierTokens(d).whole ?? []));
    for (const name of names) counts.set(name, (counts.get(name) ?? 0) + 1);
  }
  return { files: candidates.length, count: (name) => counts.get(name) ?? 0 };
}

/**
 * How telling it is that a file defines `name`: 1 for a name one file defines, less the more files
 * define it (`parse`, `init`, `get` are defined everywhere): BM25's idf over definitions, relative
 * to the largest possible. Never above 1, so it only lowers a score.
 */
function definitionRarity(name: string, counts: DefinitionCounts): number {
  const n = Math.max(1, counts.files);
  const df = Math.max(1, counts.count(name));
  const idf = (d: number): number => Math.log(1 + (n - d + 0.5) / (d + 0.5));
  return Math.min(1, idf(df) / idf(1));
}

function symbolSignal(names: Map<string, string>, candidate: RankCandidate, counts: DefinitionCounts, kind: { kind: string; factor: number } | null, w: SignalWeights): RationaleEntry | null {
  const defined = new Map<string, string>();
  if (candidate.definedNames !== undefined) {
    for (const [whole, shown] of names) if (candidate.definedNames.has(whole)) defined.set(shown, whole);
  } else {
    for (const definition of candidate.definitions ?? []) {
      const { whole } = identifierTokens(definition);
      const shown = whole === null ? undefined : names.get(whole);
      if (shown !== undefined && whole !== null) defined.set(shown, whole);
    }
  }
  if (defined.size === 0) return null;
  // The rarest names count: the first at full symbol weight, the others as extras.
  const matches = [...defined]
    .map(([shown, whole]) => ({ shown, files: counts.count(whole), rarity: definitionRarity(whole, counts) }))
    .sort((a, b) => b.rarity - a.rarity || (a.shown < b.shown ? -1 : 1))
    .slice(0, SYMBOL_MAX_MATCHES);
  // Declarations and tests define names too, but a fix lives in the implementation.
  const factor = kind?.factor ?? 1;
  const weight = factor * matches.reduce((total, m, i) => total + m.rarity * (i === 0 ? w.symbol_defined : SYMBOL_EXTRA_WEIGHT), 0);
  const shown = matches.map((m) => (m.files > 1 ? `${m.shown} (${m.files} files define it)` : m.shown));
  const note = factor < 1 && kind !== null ? `; ${kind.kind} x${kind.factor}` : '';
  return { signal: 'symbol_defined', detail: `defines ${shown.join(', ')}${note}`, weight };
}

/**
 * How much a word match counts by the kind of file, for prompts that do not ask for that kind: a bug
 * report's words also fill docs, release notes and type declarations, but the fix lives in code.
 * Factors only lower a score, so every upper bound the candidate pre-filter uses stays valid.
 */
const KIND_FACTORS: Array<{ kind: string; factor: number; test: RegExp; askedFor: RegExp }> = [
  { kind: 'docs', factor: 0.5, test: /\.(md|markdown|mdx|rst|txt|adoc)$/i, askedFor: /^(readme|doc|docs|documentation|guide|changelog|markdown|manual|tutorial)$/ },
  { kind: 'type declarations', factor: 0.7, test: /\.d\.[cm]?ts$/i, askedFor: /^(type|types|typing|typings|declaration|declarations|dts)$/ },
  { kind: 'tests', factor: 0.7, test: /(^|\/)(tests?|__tests__|spec)\/|\.(test|spec)\.[a-z]+$/i, askedFor: /^(test|tests|spec|specs|jest|mocha|unit|e2e|fixture|fixtures)$/ },
];

function kindFactor(path: string, analysis: PromptAnalysis): { kind: string; factor: number } | null {
  for (const k of KIND_FACTORS) {
    if (!k.test.test(path)) continue;
    if (analysis.words.some((w) => k.askedFor.test(w)) || analysis.paths.length > 0) return null;
    return { kind: k.kind, factor: k.factor };
  }
  return null;
}

function pathTermSignals(analysis: PromptAnalysis, candidates: readonly RankCandidate[], w: SignalWeights, options: RankOptions): Map<string, RationaleEntry> {
  let scores = options.pathTerms;
  if (scores === undefined) {
    const index = new PathTermIndex();
    for (const c of candidates) index.add(c.path);
    scores = index.scores(analysis);
  }
  const out = new Map<string, RationaleEntry>();
  for (const c of candidates) {
    const hit = scores.get(c.path);
    if (hit === undefined) continue;
    const kind = kindFactor(c.path, analysis);
    const note = kind === null ? '' : `; ${kind.kind} x${kind.factor}`;
    out.set(c.path, { signal: 'path_terms', detail: `path has ${hit.matched.slice(0, 4).join(', ')}${note}`, weight: w.path_terms * hit.share * (kind?.factor ?? 1) });
  }
  return out;
}

function lexicalSignals(analysis: PromptAnalysis, candidates: readonly RankCandidate[], w: SignalWeights, options: RankOptions): Map<string, RationaleEntry> {
  let scores = options.scores;
  if (scores === undefined) {
    let index = options.index;
    if (index === undefined) {
      index = new Bm25Index();
      for (const c of candidates) if (c.text !== undefined) index.add(c.path, c.text);
    }
    scores = index.scores(analysis.terms);
  }
  const hits: Bm25Hit[] = [];
  for (const c of candidates) {
    const hit = scores.hit(c.path);
    if (hit !== undefined) hits.push(hit);
  }
  const top = hits.reduce((best, hit) => Math.max(best, hit.score), 0);
  const out = new Map<string, RationaleEntry>();
  for (const hit of hits) {
    const share = hit.score / top;
    const terms = hit.matched.slice(0, 6).join(', ');
    const kind = kindFactor(hit.docId, analysis);
    const note = kind === null ? '' : `; ${kind.kind} x${kind.factor}`;
    out.set(hit.docId, { signal: 'lexical', detail: `bm25 ${share.toFixed(2)} of best (${terms})${note}`, weight: w.lexical * share * (kind?.factor ?? 1) });
  }
  return out;
}

/** Undirected adjacency among candidates, from both sides' `neighbours`. */
function adjacency(candidates: readonly RankCandidate[]): Map<string, Set<string>> {
  const known = new Set(candidates.map((c) => c.path));
  const graph = new Map<string, Set<string>>();
  const link = (a: string, b: string): void => {
    if (a === b || !known.has(a) || !known.has(b)) return;
    if (!graph.has(a)) graph.set(a, new Set());
    graph.get(a)?.add(b);
  };
  for (const c of candidates) for (const n of c.neighbours ?? []) { link(c.path, n); link(n, c.path); }
  return graph;
}

const sum = (entries: readonly RationaleEntry[]): number => entries.reduce((total, e) => total + e.weight, 0);

/**
 * Scores candidates for an analyzed prompt. Direct signals (named path, traceback frame, defined
 * symbol, BM25, recency) add up; then, one hop, each file whose direct score reaches
 * GRAPH_MIN_SOURCE_SCORE passes a fraction of it to its neighbours (a file takes the largest such
 * share, not the sum, so hubs are not inflated). Sorted by score, ties by path; zero scores dropped.
 */
export function rankFiles(analysis: PromptAnalysis, candidates: readonly RankCandidate[], options: RankOptions = {}): RankedFile[] {
  const w: SignalWeights = { ...SIGNAL_WEIGHTS, ...options.weights };
  const names = promptNames(analysis);
  const counts = options.definitions ?? candidateDefinitions(candidates);
  const named = promptPaths(analysis.paths, (p) => p.path);
  const frames = promptPaths(analysis.frames, (f) => f.file);
  const lexical = lexicalSignals(analysis, candidates, w, options);
  const pathTerms = pathTermSignals(analysis, candidates, w, options);
  const direct = new Map<string, RationaleEntry[]>();
  for (const c of candidates) {
    const base = pathBase(c.path);
    const entries = [pathSignal(named, c.path, base, w), frameSignal(frames, c.path, base, w), symbolSignal(names, c, counts, kindFactor(c.path, analysis), w), pathTerms.get(c.path) ?? null, lexical.get(c.path) ?? null];
    const recency = Math.min(1, Math.max(0, c.recency ?? 0));
    if (recency > 0) entries.push({ signal: 'recently_changed', detail: `recency ${recency.toFixed(2)}`, weight: w.recently_changed * recency });
    direct.set(c.path, entries.filter((e): e is RationaleEntry => e !== null && e.weight > 0));
  }

  const graph = adjacency(candidates);
  const ranked: RankedFile[] = [];
  for (const [path, entries] of direct) {
    let lift: { from: string; weight: number } | null = null;
    for (const neighbour of graph.get(path) ?? []) {
      const source = sum(direct.get(neighbour) ?? []);
      const weight = w.graph_neighbour * source;
      if (source >= GRAPH_MIN_SOURCE_SCORE && weight > 0 && (lift === null || weight > lift.weight || (weight === lift.weight && neighbour < lift.from))) {
        lift = { from: neighbour, weight };
      }
    }
    const rationale = lift === null ? entries : [...entries, { signal: 'graph_neighbour' as const, detail: `neighbour of ${lift.from}`, weight: lift.weight }];
    const rounded = rationale.map((e) => ({ ...e, weight: round(e.weight) }));
    const score = round(sum(rounded));
    if (score > 0) ranked.push({ path, score, rationale: rounded });
  }
  ranked.sort((a, b) => b.score - a.score || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return options.limit === undefined ? ranked : ranked.slice(0, options.limit);
}
