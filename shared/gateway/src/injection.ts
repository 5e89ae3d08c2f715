/**
 * Context injection (docs/proxy.md#injection): what of a prepared match goes into a chat request,
 * under which policy, within which budget. Pure functions: the routes decide when, the prepared
 * context decides what matched.
 *
 * The briefing is added as one extra `system` message placed after the client's leading system
 * messages; no message the client sent is changed, removed or reordered.
 */
import type { ContextInjection } from '@sous/setup';
import type { PreparedEntry, PreparedItem, PreparedMatch } from './prepared-context';

/** Share of the target model's context window an injected briefing may take. */
export const INJECTION_WINDOW_SHARE = 0.05;
/** Hard ceiling of an injected briefing, whatever the window. */
export const MAX_INJECTION_TOKENS = 4000;
/** Below this budget nothing is injected: a briefing cut that short would mislead more than help. */
export const MIN_INJECTION_TOKENS = 48;
/** Context window assumed for a model the table below does not know. */
export const DEFAULT_CONTEXT_WINDOW = 8192;
/** `policy_hybrid`: evidence items given in full (with rationale) before the rest go as digest lines. */
export const HYBRID_FULL_ITEMS = 3;
/** Similarity a match needs under each policy (resolve's cache threshold is 0.6; docs/resolve.md). */
export const POLICY_THRESHOLD: Readonly<Record<ContextInjection, number>> = Object.freeze({
  digest_only: 0.6,
  policy_hybrid: 0.6,
  top_match_auto_include: 0.4,
  adopted_package_only: 0.6,
});

/**
 * Context windows (tokens) by model-name prefix, longest prefix first wins. Conservative published
 * figures; a provider prefix (`openai/`, `ollama/`) is ignored when matching.
 */
const CONTEXT_WINDOWS: ReadonlyArray<readonly [string, number]> = [
  ['gpt-4.1', 1_000_000],
  ['gpt-4o', 128_000],
  ['gpt-4-turbo', 128_000],
  ['gpt-4', 8_192],
  ['gpt-3.5', 16_385],
  ['gpt-5', 400_000],
  ['o1', 128_000],
  ['o3', 200_000],
  ['o4', 200_000],
  ['claude', 200_000],
  ['gemini', 1_000_000],
  ['qwen2.5-coder', 32_768],
  ['qwen', 32_768],
  ['llama3', 8_192],
  ['llama-3', 8_192],
  ['mistral', 32_768],
  ['deepseek', 64_000],
  ['codestral', 32_768],
];

/** The context window of `model` (tokens), from the table above or DEFAULT_CONTEXT_WINDOW. */
export function contextWindow(model: string): number {
  const name = model.toLowerCase().replace(/^[a-z0-9_-]+\//, '');
  let best: readonly [string, number] | undefined;
  for (const entry of CONTEXT_WINDOWS) if (name.startsWith(entry[0]) && (best === undefined || entry[0].length > best[0].length)) best = entry;
  return best?.[1] ?? DEFAULT_CONTEXT_WINDOW;
}

/** A rough token count, as resolve counts (4 characters a token): budgets are advisory, counting must be cheap. */
export function tokensOf(text: string): number {
  return Math.ceil(text.length / 4);
}

/** One chat message as the proxy sees it: role and content; every other field is carried untouched. */
export interface ChatMessage {
  role: string;
  content?: unknown;
  [field: string]: unknown;
}

/** The text of a message's content: a string, or the `text` parts of an array of content parts. */
export function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  const parts: string[] = [];
  for (const part of content) if (typeof part === 'object' && part !== null && (part as { type?: unknown }).type === 'text' && typeof (part as { text?: unknown }).text === 'string') parts.push((part as { text: string }).text);
  return parts.join('\n');
}

/** The prompt a request asks: the text of its last `user` message ('' when there is none). */
export function promptOf(messages: readonly ChatMessage[]): string {
  for (let i = messages.length - 1; i >= 0; i--) if (messages[i]?.role === 'user') return contentText(messages[i]?.content);
  return '';
}

/**
 * The budget (tokens) for a request to `model`: INJECTION_WINDOW_SHARE of its window, at most
 * MAX_INJECTION_TOKENS, and never more than what the window has left after the request's own
 * messages and the answer it reserves (`max_tokens` / `max_completion_tokens`). 0 = inject nothing.
 */
export function injectionBudget(model: string, requestChars: number, reservedForAnswer: number): number {
  const window = contextWindow(model);
  const left = window - Math.ceil(requestChars / 4) - reservedForAnswer;
  const budget = Math.min(Math.floor(window * INJECTION_WINDOW_SHARE), MAX_INJECTION_TOKENS, left);
  return budget >= MIN_INJECTION_TOKENS ? budget : 0;
}

/** True when the policy may inject this match at all. */
export function policyAccepts(policy: ContextInjection, match: PreparedMatch): boolean {
  if (match.similarity < POLICY_THRESHOLD[policy]) return false;
  if (policy === 'adopted_package_only') return match.entry.adopted;
  return true;
}

const HEADER = 'Repository context prepared by Sous for this request (read-only notes; paths are relative to the repository root):';

/** A policy's lines for an entry that do not depend on the request: built once per entry and policy. */
const linesCache = new WeakMap<PreparedEntry, Map<ContextInjection, readonly string[]>>();

/** The lines a policy renders for an entry, most important first (cut later by the budget). */
function entryLines(policy: ContextInjection, entry: PreparedEntry): readonly string[] {
  let byPolicy = linesCache.get(entry);
  const cached = byPolicy?.get(policy);
  if (cached !== undefined) return cached;
  const full = (i: PreparedItem) => `- ${i.path}:${i.lines.start}-${i.lines.end} — ${i.rationale.join('; ') || 'ranked by the index'}`;
  const digest = (i: PreparedItem) => `- ${i.path}:${i.lines.start}-${i.lines.end}`;
  const cards = entry.cards.map((c) => `- Ready card ${c.id} (${c.kind}): ${c.title}`);
  const anticipated = entry.anticipatedPrompt === null ? [] : [`Prepared for: ${entry.anticipatedPrompt}`];
  let lines: string[];
  switch (policy) {
    case 'digest_only':
      lines = entry.items.map(digest);
      break;
    case 'policy_hybrid':
      lines = [...anticipated, ...entry.items.slice(0, HYBRID_FULL_ITEMS).map(full), ...entry.items.slice(HYBRID_FULL_ITEMS).map(digest), ...cards];
      break;
    case 'top_match_auto_include':
      lines = [...anticipated, ...entry.items.map(full), ...cards];
      break;
    case 'adopted_package_only':
      lines = [...anticipated.map((l) => `Adopted: ${l}`), ...entry.items.map(full), ...cards];
      break;
  }
  if (byPolicy === undefined) linesCache.set(entry, (byPolicy = new Map()));
  byPolicy.set(policy, lines);
  return lines;
}

/** The lines a policy renders for a match: the entry's, after the similarity note when the match is only close. */
function linesFor(policy: ContextInjection, match: PreparedMatch): readonly string[] {
  const lines = entryLines(policy, match.entry);
  if (policy === 'top_match_auto_include' && match.similarity < 0.6) return [`Closest prepared work (similarity ${match.similarity.toFixed(2)}):`, ...lines];
  return lines;
}

/** The briefing text for a match under a policy, within `budget` tokens; undefined when not even one line fits. */
export function renderBriefing(policy: ContextInjection, match: PreparedMatch, budget: number): { text: string; tokens: number; paths: string[] } | undefined {
  const out = [HEADER];
  let used = tokensOf(HEADER) + 1;
  let body = 0;
  for (const line of linesFor(policy, match)) {
    const cost = tokensOf(line) + 1;
    if (used + cost > budget) break;
    out.push(line);
    used += cost;
    body += 1;
  }
  if (body === 0) return undefined;
  const text = out.join('\n');
  const paths = [...new Set(match.entry.items.map((i) => i.path).filter((p) => text.includes(`- ${p}:`)))];
  return { text, tokens: used, paths };
}

/** Where the briefing goes: after the leading system (and developer) messages. */
export function briefingIndex(messages: readonly ChatMessage[]): number {
  let at = 0;
  while (at < messages.length && (messages[at]?.role === 'system' || messages[at]?.role === 'developer')) at += 1;
  return at;
}

/** The messages with the briefing added as a system message after the leading system messages. */
export function withBriefing(messages: readonly ChatMessage[], briefing: string): ChatMessage[] {
  const at = briefingIndex(messages);
  return [...messages.slice(0, at), { role: 'system', content: briefing }, ...messages.slice(at)];
}
