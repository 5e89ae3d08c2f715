/**
 * Estimated hosted-model spend (`--cost-cap`, US dollars). Tokens × a price per million tokens: the
 * tokens are those the backend reports in `usage`, or estimated from characters when it reports
 * none. A local backend (loopback or private network) costs $0. The spec names no price, so the
 * price is a documented constant (docs/deep-run.md), deliberately at the upper end of hosted code
 * models: the estimate errs towards stopping early, never towards spending more than the cap.
 *
 * The cap is checked before every call against that call's worst case: its prompt at
 * PRECHECK_CHARS_PER_TOKEN (denser than real text tokenises) plus its whole `max_tokens` answer. A
 * call that could take the spend past the cap is not made, and the session ends (`cost_cap`).
 */
import type { PromptMessage } from '../model/prompts';

export interface Price {
  /** US dollars per million prompt tokens. */
  input: number;
  /** US dollars per million completion tokens. */
  output: number;
}

/** The assumed price of a hosted backend (US dollars per million tokens). */
export const HOSTED_PRICE_PER_MILLION_USD: Readonly<Price> = Object.freeze({ input: 3, output: 15 });
/** A backend on this machine or the private network costs nothing. */
export const LOCAL_PRICE: Readonly<Price> = Object.freeze({ input: 0, output: 0 });
/** Characters per token when the backend reports no usage (a common rule of thumb for English and code). */
export const ESTIMATE_CHARS_PER_TOKEN = 4;
/** Characters per token of the pre-call worst case: fewer than real text needs, so the estimate is high. */
export const PRECHECK_CHARS_PER_TOKEN = 3;
/** Tokens a chat template adds per message (role markers). */
export const MESSAGE_OVERHEAD_TOKENS = 4;

/** How the spend is estimated, in one line (status and docs show it). */
export const SPEND_METHOD =
  `tokens × price per million tokens; tokens from the backend's usage, or characters ÷ ${ESTIMATE_CHARS_PER_TOKEN} when it reports none; ` +
  `before each call its worst case (prompt characters ÷ ${PRECHECK_CHARS_PER_TOKEN} + max_tokens) must fit under the cap; local backends cost $0`;

/** The price of a backend: $0 when it is local, the hosted assumption otherwise. */
export function defaultPrice(model: { local: boolean }): Price {
  return model.local ? { ...LOCAL_PRICE } : { ...HOSTED_PRICE_PER_MILLION_USD };
}

/** US dollars for these tokens. */
export function costUsd(promptTokens: number, completionTokens: number, price: Price): number {
  return (promptTokens * price.input + completionTokens * price.output) / 1_000_000;
}

function chars(messages: readonly PromptMessage[]): number {
  return messages.reduce((n, m) => n + m.content.length, 0);
}

/** Prompt tokens estimated from characters (no `usage` in the answer). */
export function estimatePromptTokens(messages: readonly PromptMessage[], charsPerToken = ESTIMATE_CHARS_PER_TOKEN): number {
  return Math.ceil(chars(messages) / charsPerToken) + MESSAGE_OVERHEAD_TOKENS * messages.length;
}

/** Completion tokens estimated from the answer's characters. */
export function estimateCompletionTokens(text: string): number {
  return Math.ceil(text.length / ESTIMATE_CHARS_PER_TOKEN);
}

/** What one step spent. */
export interface StepSpend {
  calls: number;
  promptTokens: number;
  completionTokens: number;
  estimated: boolean;
  spendUsd: number;
}

/**
 * The spend of one step against the session's cap. `allows` answers before a call, `record` after
 * it; `refused` says whether a call was held back by the cap (the session then ends).
 */
export class SpendMeter {
  private readonly spend: StepSpend = { calls: 0, promptTokens: 0, completionTokens: 0, estimated: false, spendUsd: 0 };
  private capRefused = false;

  /** `spentBefore`: what earlier steps of the session spent. */
  constructor(
    readonly price: Price,
    readonly capUsd: number,
    private readonly spentBefore: number,
  ) {}

  /** Whether a call with these messages and answer allowance fits under the cap, in the worst case. */
  allows(messages: readonly PromptMessage[], maxTokens: number): boolean {
    const worst = costUsd(estimatePromptTokens(messages, PRECHECK_CHARS_PER_TOKEN), maxTokens, this.price);
    const fits = this.spentBefore + this.spend.spendUsd + worst <= this.capUsd;
    if (!fits) this.capRefused = true;
    return fits;
  }

  /** Counts a request that got no answer (refused, failed, timed out): a call, but no tokens billed. */
  recordFailure(): void {
    this.spend.calls += 1;
  }

  /** Counts an answered call: the tokens the backend reported, or estimated from characters. */
  record(messages: readonly PromptMessage[], answer: { text: string; usage: { promptTokens: number; completionTokens: number } | null }): void {
    const prompt = answer.usage?.promptTokens ?? estimatePromptTokens(messages);
    const completion = answer.usage?.completionTokens ?? estimateCompletionTokens(answer.text);
    this.spend.calls += 1;
    this.spend.promptTokens += prompt;
    this.spend.completionTokens += completion;
    this.spend.estimated ||= answer.usage === null;
    this.spend.spendUsd += costUsd(prompt, completion, this.price);
  }

  /** Whether the cap held a call back. */
  refused(): boolean {
    return this.capRefused;
  }

  tally(): StepSpend {
    return { ...this.spend };
  }
}
