/**
 * Prepared work written under earlier `privacy.redact_patterns` is redacted again under the current
 * ones: cards, resolutions and predictions hold text drawn from the repository, and a pattern added
 * today must cover what was stored yesterday (spec 1 rule 8: nothing served unredacted). Runs once
 * per redaction (the store records the tag); a virtual diff whose patch changed is marked stale, as
 * a patch holding `[redacted]` would not apply.
 */
import { redactText } from '@sous/protocol';
import { redactionTag } from '@sous/retrieval';
import type { RewriteResult, Store } from '@sous/store';

/** Why a virtual diff went stale when its patch was redacted again. */
export const REDACTED_PATCH_REASON = 'privacy.redact_patterns changed and the patch now holds redacted text; the next cycle regenerates it';

/** Redacts the workspace's stored prepared work under `patterns`, once per set of patterns. */
export async function reRedactStoredWork(store: Pick<Store, 'storedText' | 'workProducts'>, workspaceId: string, patterns: readonly RegExp[]): Promise<RewriteResult> {
  const result = await store.storedText.rewrite(workspaceId, redactionTag(patterns), (text) => redactText(text, patterns));
  for (const card of result.workProducts) {
    if (card.kind !== 'virtual_diff' || !card.detailsChanged || (card.state !== 'ready' && card.state !== 'candidate')) continue;
    await store.workProducts.update(card.id, { state: 'stale', stateReason: REDACTED_PATCH_REASON });
  }
  return result;
}
