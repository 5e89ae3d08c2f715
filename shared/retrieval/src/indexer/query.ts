/**
 * Answering a prompt from the index: rank the indexed files, pick each one's best lines, and fit
 * them to a token budget.
 */
import { analyzePrompt, estimateTokens, fitToBudget, withBoilerplate, type PromptAnalysis } from '../ranking';
import type { RankedFile } from '../ranking/rank';
import { SnippetTerms } from '../ranking/snippet';
import { chunkSnippet, fusedFiles, FUSION_DEPTH } from '../semantic/fused-query';
import { rankReachable, type QuerySource } from './candidates';
import { IndexError } from './errors';
import type { ContextItem, ContextResult, QueryOptions } from './types';

export { LEXICAL_SEEDS } from './candidates';
export { COCHANGE_FACTOR } from '../ranking';
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
 * Fewer files than asked for matched the prompt's own words: files that match the words dropped as
 * trace boilerplate (error, line, object…) fill the rest, after them and scored no higher than the
 * last of them ("windows has \\r\\n line separator" has little else to go on). The first ranking
 * is never reordered.
 */
function boilerplateMatches(analysis: PromptAnalysis, source: QuerySource, found: readonly ContextItem[], room: number): Array<{ r: RankedFile; terms: SnippetTerms; text: string | undefined }> {
  const wider = withBoilerplate(analysis);
  if (wider === undefined) return [];
  const { ranked, files } = rankReachable(wider, source, found.length + room);
  const seen = new Set(found.map((i) => i.path));
  const floor = found.at(-1)?.score ?? Number.POSITIVE_INFINITY;
  const terms = new SnippetTerms(wider.terms);
  return ranked
    .filter((r) => !seen.has(r.path))
    .slice(0, room)
    .map((r) => ({ r: { ...r, score: Math.min(r.score, floor) }, terms, text: files.get(r.path)?.text }));
}

/**
 * Ranks the indexed files of `source` for `prompt` (`rankFiles` signals, BM25 from the source's
 * index, co-change lifts weakened; see `rankReachable`) and returns the best `topN` with their
 * best snippet; files ranked by recency alone are left out. With `options.semantic`, the order is
 * that ranking fused with the semantic one (`fusedFiles`). With `budgetTokens`, items are fitted
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
  const semantic = options.semantic !== undefined && options.semantic.length > 0 ? options.semantic : undefined;
  const depth = semantic === undefined ? topN : Math.max(topN, FUSION_DEPTH);
  const { ranked, files } = rankReachable(analysis, source, depth);
  // One preparation of the terms for every result (`bestSnippet` for each file).
  const snippetTerms = new SnippetTerms(analysis.terms);
  const item = (r: RankedFile, terms: SnippetTerms, text: string | undefined): ContextItem => {
    const snippet = terms.best(text ?? '');
    return { path: r.path, score: r.score, rationale: r.rationale, snippet, tokens: estimateTokens(snippet.text) };
  };
  let items: ContextItem[] =
    semantic === undefined
      ? ranked.slice(0, topN).map((r) => item(r, snippetTerms, files.get(r.path)?.text))
      : fusedFiles(ranked.slice(0, depth), semantic, (path) => files.get(path) ?? source.file(path), topN).map(({ r, text, chunk }) => {
          if (chunk === undefined || text === undefined) return item(r, snippetTerms, text);
          const snippet = chunkSnippet(text, chunk);
          return { path: r.path, score: r.score, rationale: r.rationale, snippet, tokens: estimateTokens(snippet.text) };
        });
  if (items.length < topN) items = [...items, ...boilerplateMatches(analysis, source, items, topN - items.length).map(({ r, terms, text }) => item(r, terms, text))];
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
