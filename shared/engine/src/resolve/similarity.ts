/**
 * Lexical similarity between a prompt and a prediction's anticipated prompt (docs/resolve.md): the
 * Jaccard index of their word-token sets. Cheap (no index, no model) so a cache hit stays within a
 * few milliseconds, and order-insensitive so "split the parser grammar" matches
 * "continue: Split the parser grammar".
 */
import { createHash } from 'node:crypto';

/** A prompt at or above this similarity to a ready prediction is served from its prepared briefing. */
export const HIT_THRESHOLD = 0.6;

/** Lower-cased word tokens of at least two characters (identifiers split on `_`, `-`, `.`, `/`). */
export function tokenSet(text: string): Set<string> {
  const out = new Set<string>();
  for (const t of text.toLowerCase().split(/[^a-z0-9]+/)) if (t.length >= 2) out.add(t);
  return out;
}

/** |A ∩ B| / |A ∪ B|; 0 when both are empty. */
export function jaccard(a: Set<string>, b: Set<string>): number {
  if (a.size === 0 && b.size === 0) return 0;
  let shared = 0;
  for (const t of a) if (b.has(t)) shared += 1;
  return shared / (a.size + b.size - shared);
}

/**
 * The sha256 of a prompt's sorted word tokens: the same request retyped in another order, case or
 * punctuation gives the same key. Stored on a resolution (never the prompt) so the `history` source
 * can recognise a request asked again.
 */
export function promptKey(text: string): string {
  return createHash('sha256').update([...tokenSet(text)].sort().join(' '), 'utf8').digest('hex');
}
