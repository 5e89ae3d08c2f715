/** Limits of a context request, shared by the HTTP API and the CLI so both refuse the same input. */

/** Largest prompt accepted (characters); a longer one is almost always a pasted file, not a request. */
export const MAX_PROMPT_CHARS = 32_000;
/** Most items one answer may hold. */
export const MAX_TOP_N = 50;
export const DEFAULT_TOP_N = 10;
/** Largest token budget accepted. */
export const MAX_BUDGET_TOKENS = 1_000_000;
