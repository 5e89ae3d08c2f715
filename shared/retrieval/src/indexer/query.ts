/**
 * Answering a prompt from the index: rank the indexed files, pick each one's best lines, and fit
 * them to a token budget.
 */
import { analyzePrompt, estimateTokens, fitToBudget } from '../ranking';
import { SnippetTerms } from '../ranking/snippet';
import { rankReachable, type QuerySource } from './candidates';
import { IndexError } from './errors';
import type { ContextItem, ContextResult, QueryOptions } from './types';

export { COCHANGE_FACTOR, LEXICAL_SEEDS } from './candidates';
export type { QueryableFile, QuerySource } from './candidates';

/** Default and largest `topN`. */
export const DEFAULT_TOP_N = 10;
export const MAX_TOP_N = 50;

/** Checks `topN`: an integer 1..MAX_TOP_N (else `IndexError` `invalid_query`). */
function checkTopN(topN: number): void {
  if (!Number.isInteger(topN) || topN < 1 || topN > MAX_TOP_N) {
    throw new IndexError('invalid_query', `topN must be an integer from 1 to ${MAX_TOP_N} (got ${String(topN)})`);
  }
}

/**
 * Ranks the indexed files of `source` for `prompt` (`rankFiles` signals, BM25 from the source's
 * index, co-change lifts weakened; see `rankReachable`) and returns the best `topN` with their
 * best snippet; files ranked by recency alone are left out. With `budgetTokens`, items are fitted
 * in rank order (the last kept one may be clipped; see `fitToBudget`).
 */
export function runQuery(prompt: string, source: QuerySource, options: QueryOptions = {}): ContextResult {
  const started = process.hrtime.bigint();
  const topN = options.topN ?? DEFAULT_TOP_N;
  checkTopN(topN);
  if (options.budgetTokens !== undefined && !(Number.isInteger(options.budgetTokens) && options.budgetTokens >= 0)) {
    throw new IndexError('invalid_query', `budgetTokens must be a non-negative integer (got ${String(options.budgetTokens)})`);
  }

  const analysis = analyzePrompt(prompt);
  const { ranked, files } = rankReachable(analysis, source, topN);
  // One preparation of the terms for every result (`bestSnippet` for each file).
  const snippetTerms = new SnippetTerms(analysis.terms);
  let items: ContextItem[] = ranked.slice(0, topN).map((r) => {
    const snippet = snippetTerms.best(files.get(r.path)?.text ?? '');
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
  return { items, stats: { files_indexed: source.size, took_ms: Math.round(tookMs * 1000) / 1000 } };
}
