/** Token estimates and fitting ranked items into a token budget. */

/**
 * Characters per token for the estimate. About 4 for English and code with common BPE tokenizers;
 * an estimate, not a count — keep a margin when the budget is a hard model limit.
 */
export const CHARS_PER_TOKEN = 4;

/** Items are clipped rather than dropped only when at least this many tokens are left. */
export const MIN_CLIP_TOKENS = 16;

/** Estimated tokens of a text: ceil(characters / CHARS_PER_TOKEN). */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / CHARS_PER_TOKEN);
}

/** An item kept by `fitToBudget`. */
export type FittedItem<T extends { text: string }> = T & {
  /** True when the text was cut to fit. */
  clipped: boolean;
};

/** What `fitToBudget` kept. */
export interface BudgetFit<T extends { text: string }> {
  /** Kept items, in input (rank) order. */
  items: Array<FittedItem<T>>;
  /** Estimated tokens of the kept texts; never above the budget. */
  usedTokens: number;
  /** How many items were left out. */
  dropped: number;
}

/** Cuts text to at most maxChars, on a line boundary when one line or more fits. */
function clipText(text: string, maxChars: number): string {
  const cut = text.slice(0, maxChars);
  const lastNewline = cut.lastIndexOf('\n');
  return lastNewline > 0 && cut.length < text.length ? cut.slice(0, lastNewline) : cut;
}

/**
 * Keeps items in rank order while they fit the budget. The first item that does not fit is clipped
 * (whole lines when possible) if at least MIN_CLIP_TOKENS remain, and everything after it is
 * dropped: a lower-ranked item never displaces a higher-ranked one.
 */
export function fitToBudget<T extends { text: string }>(items: readonly T[], budgetTokens: number): BudgetFit<T> {
  const kept: Array<FittedItem<T>> = [];
  let used = 0;
  for (const item of items) {
    const cost = estimateTokens(item.text);
    if (used + cost <= budgetTokens) {
      kept.push({ ...item, clipped: false });
      used += cost;
      continue;
    }
    const left = budgetTokens - used;
    if (left >= MIN_CLIP_TOKENS) {
      const text = clipText(item.text, left * CHARS_PER_TOKEN);
      kept.push({ ...item, text, clipped: true });
      used += estimateTokens(text);
    }
    break;
  }
  return { items: kept, usedTokens: used, dropped: items.length - kept.length };
}
