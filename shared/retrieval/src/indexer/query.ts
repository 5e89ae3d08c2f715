/**
 * Answering a prompt from the index: rank the indexed files, pick each one's best lines, and fit
 * them to a token budget.
 */
import {
  analyzePrompt,
  bestSnippet,
  estimateTokens,
  fitToBudget,
  rankFiles,
  type Bm25Index,
  type RankCandidate,
  type RankedFile,
} from '../ranking';
import { IndexError } from './errors';
import type { ContextItem, ContextResult, QueryOptions } from './types';

/** Default and largest `topN`. */
export const DEFAULT_TOP_N = 10;
export const MAX_TOP_N = 50;
/**
 * A graph lift that comes only from a co-change neighbour counts this fraction of an import
 * neighbour's: changing together is weaker evidence than importing.
 */
export const COCHANGE_FACTOR = 0.5;

/** An indexed file as the query sees it. */
export interface QueryableFile {
  path: string;
  /** Redacted text. */
  text: string;
  definitions: readonly string[];
  /** Resolved imports and importers. */
  importNeighbours: readonly string[];
  /** Files changed together with it in git history. */
  coChangeNeighbours: readonly string[];
  /** 0..1. */
  recency: number;
}

const round = (n: number): number => Math.round(n * 1e6) / 1e6;
const NEIGHBOUR_PREFIX = 'neighbour of ';

/** Scales graph lifts that come only from co-change neighbours, then re-sorts. */
function weakenCoChange(ranked: RankedFile[], byPath: ReadonlyMap<string, QueryableFile>): RankedFile[] {
  const out = ranked.map((file): RankedFile => {
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

/** Checks `topN`: an integer 1..MAX_TOP_N (else `IndexError` `invalid_query`). */
function checkTopN(topN: number): void {
  if (!Number.isInteger(topN) || topN < 1 || topN > MAX_TOP_N) {
    throw new IndexError('invalid_query', `topN must be an integer from 1 to ${MAX_TOP_N} (got ${String(topN)})`);
  }
}

/**
 * Ranks `files` for `prompt` with `rankFiles` (BM25 from the prebuilt `bm25` index keyed by path)
 * and returns the best `topN` with their best snippet; files ranked by recency alone are left out. With `budgetTokens`, items are fitted in rank
 * order (the last kept one may be clipped; see `fitToBudget`).
 */
export function runQuery(prompt: string, files: readonly QueryableFile[], bm25: Bm25Index, options: QueryOptions = {}): ContextResult {
  const started = process.hrtime.bigint();
  const topN = options.topN ?? DEFAULT_TOP_N;
  checkTopN(topN);
  if (options.budgetTokens !== undefined && !(Number.isInteger(options.budgetTokens) && options.budgetTokens >= 0)) {
    throw new IndexError('invalid_query', `budgetTokens must be a non-negative integer (got ${String(options.budgetTokens)})`);
  }

  const analysis = analyzePrompt(prompt);
  const byPath = new Map(files.map((f) => [f.path, f]));
  const candidates: RankCandidate[] = files.map((f) => ({
    path: f.path,
    definitions: f.definitions,
    neighbours: [...f.importNeighbours, ...f.coChangeNeighbours],
    recency: f.recency,
  }));
  const ranked = weakenCoChange(rankFiles(analysis, candidates, { index: bm25 }), byPath)
    .filter(relatesToPrompt)
    .slice(0, topN);

  let items: ContextItem[] = ranked.map((r) => {
    const snippet = bestSnippet(byPath.get(r.path)?.text ?? '', analysis.terms);
    return { path: r.path, score: r.score, rationale: r.rationale, snippet, tokens: estimateTokens(snippet.text) };
  });
  if (options.budgetTokens !== undefined) {
    const fit = fitToBudget(items.map((item) => ({ item, text: item.snippet.text })), options.budgetTokens);
    items = fit.items.map(({ item, text }) => {
      const lines = text.split(/\r?\n/).length;
      const snippet = { startLine: item.snippet.startLine, endLine: item.snippet.startLine + lines - 1, text };
      return { ...item, snippet, tokens: estimateTokens(text) };
    });
  }
  const tookMs = Number(process.hrtime.bigint() - started) / 1e6;
  return { items, stats: { files_indexed: files.length, took_ms: Math.round(tookMs * 1000) / 1000 } };
}
