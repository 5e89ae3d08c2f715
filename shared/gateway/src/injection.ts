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

/** Windows of the model names seen: a proxy sees a handful, so this stays small (cleared past 256). */
const windowByModel = new Map<string, number>();

/** The context window of `model` (tokens), from the table above or DEFAULT_CONTEXT_WINDOW. */
export function contextWindow(model: string): number {
  const known = windowByModel.get(model);
  if (known !== undefined) return known;
  const name = model.toLowerCase().replace(/^[a-z0-9_-]+\//, '');
  let best: readonly [string, number] | undefined;
  for (const entry of CONTEXT_WINDOWS) if (name.startsWith(entry[0]) && (best === undefined || entry[0].length > best[0].length)) best = entry;
  const window = best?.[1] ?? DEFAULT_CONTEXT_WINDOW;
  if (windowByModel.size >= 256) windowByModel.clear();
  windowByModel.set(model, window);
  return window;
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

/** A briefing as injected: its text, its size in tokens, the evidence paths it names. */
export interface Briefing {
  text: string;
  tokens: number;
  paths: string[];
}

/** What a policy renders from one entry: its lines, and the briefing for each number of lines that fit. */
interface Rendering {
  lines: readonly string[];
  byCount: Map<number, Briefing>;
}

/**
 * Renderings per entry (entries never change once made), by policy and similarity note: a request
 * only counts how many lines its budget allows; the text is built once per entry, policy and count.
 */
const renderings = new WeakMap<PreparedEntry, Map<string, Rendering>>();

/** The lines a policy renders for an entry, most important first (cut later by the budget). */
function policyLines(policy: ContextInjection, entry: PreparedEntry): string[] {
  const full = (i: PreparedItem) => `- ${i.path}:${i.lines.start}-${i.lines.end} — ${i.rationale.join('; ') || 'ranked by the index'}`;
  const digest = (i: PreparedItem) => `- ${i.path}:${i.lines.start}-${i.lines.end}`;
  const cards = entry.cards.map((c) => `- Ready card ${c.id} (${c.kind}): ${c.title}`);
  const anticipated = entry.anticipatedPrompt === null ? [] : [`Prepared for: ${entry.anticipatedPrompt}`];
  switch (policy) {
    case 'digest_only':
      return entry.items.map(digest);
    case 'policy_hybrid':
      return [...anticipated, ...entry.items.slice(0, HYBRID_FULL_ITEMS).map(full), ...entry.items.slice(HYBRID_FULL_ITEMS).map(digest), ...cards];
    case 'top_match_auto_include':
      return [...anticipated, ...entry.items.map(full), ...cards];
    case 'adopted_package_only':
      return [...anticipated.map((l) => `Adopted: ${l}`), ...entry.items.map(full), ...cards];
  }
}

/** The rendering of a match: the entry's lines, after a similarity note when a top match is only close. */
function renderingFor(policy: ContextInjection, match: PreparedMatch): Rendering {
  const note = policy === 'top_match_auto_include' && match.similarity < 0.6 ? `Closest prepared work (similarity ${match.similarity.toFixed(2)}):` : undefined;
  const key = note === undefined ? policy : `${policy} ${note}`;
  let byKey = renderings.get(match.entry);
  let rendering = byKey?.get(key);
  if (rendering === undefined) {
    const lines = policyLines(policy, match.entry);
    rendering = { lines: note === undefined ? lines : [note, ...lines], byCount: new Map() };
    if (byKey === undefined) renderings.set(match.entry, (byKey = new Map()));
    byKey.set(key, rendering);
  }
  return rendering;
}

/** The briefing text for a match under a policy, within `budget` tokens; undefined when not even one line fits. */
export function renderBriefing(policy: ContextInjection, match: PreparedMatch, budget: number): Briefing | undefined {
  const { lines, byCount } = renderingFor(policy, match);
  let used = tokensOf(HEADER) + 1;
  let count = 0;
  for (const line of lines) {
    const cost = tokensOf(line) + 1;
    if (used + cost > budget) break;
    used += cost;
    count += 1;
  }
  if (count === 0) return undefined;
  let briefing = byCount.get(count);
  if (briefing === undefined) {
    const text = [HEADER, ...lines.slice(0, count)].join('\n');
    const paths = [...new Set(match.entry.items.map((i) => i.path).filter((p) => text.includes(`- ${p}:`)))];
    briefing = { text, tokens: used, paths };
    byCount.set(count, briefing);
  }
  // The cached paths are shared: each caller gets its own array.
  return { text: briefing.text, tokens: briefing.tokens, paths: [...briefing.paths] };
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
