/**
 * Freshness: a card is only as good as its evidence. When files change, every open card citing them
 * whose recorded content hash no longer matches goes stale at once (a virtual diff's export is then
 * refused until a cycle regenerates it). Called on each `file_change`/`commit` signal, before any
 * cycle runs, and checked again on export.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { ScopePolicy } from '@sous/retrieval';
import type { EvidenceRow, Store, WorkProductWithEvidence } from '@sous/store';
import type { EngineEvents } from '../events/engine-events';
import { sha256Of } from '../view/repository-view';

/** The current sha256 of an in-scope file on disk; null when it is gone or out of scope. */
export async function currentHash(root: string, policy: ScopePolicy, rel: string): Promise<string | null> {
  if (!policy.inScope(rel)) return null;
  try {
    return sha256Of(await fs.promises.readFile(path.join(root, rel)));
  } catch {
    return null;
  }
}

/** The first evidence item whose file no longer has the recorded hash, or undefined when all match. */
export async function changedEvidence(
  card: Pick<WorkProductWithEvidence, 'evidence' | 'details'>,
  hashOf: (path: string) => Promise<string | null>,
): Promise<{ path: string; reason: string } | undefined> {
  const diff = card.details['diff'] as { targets?: Array<{ path: string; sha256: string }> } | undefined;
  for (const target of diff?.targets ?? []) {
    if ((await hashOf(target.path)) !== target.sha256) return { path: target.path, reason: `${target.path} changed after the diff was made; export is blocked until the next cycle regenerates it` };
  }
  for (const e of card.evidence as EvidenceRow[]) {
    if (e.contentHash === null) continue;
    const now = await hashOf(e.path);
    if (now !== e.contentHash) return { path: e.path, reason: now === null ? `${e.path} was removed or left the scope` : `${e.path} changed since the evidence was read` };
  }
  return undefined;
}

/**
 * Marks open cards citing `paths` (every open card for `all`: HEAD moved) stale when their evidence no longer matches `hashOf`. Returns the
 * ids that went stale.
 */
export async function markStale(
  options: { store: Store; workspaceId: string; events?: EngineEvents },
  paths: readonly string[] | 'all',
  hashOf: (path: string) => Promise<string | null>,
): Promise<string[]> {
  const cards =
    paths === 'all'
      ? await options.store.workProducts.listWithEvidence({ workspaceId: options.workspaceId, states: ['ready', 'candidate'], limit: 500 })
      : await options.store.workProducts.citing(options.workspaceId, paths, ['ready', 'candidate']);
  // Virtual-diff targets are evidence too (the detectors cite them), so `citing` finds those cards.
  const out: string[] = [];
  for (const card of cards) {
    const changed = await changedEvidence(card, hashOf);
    if (changed === undefined) continue;
    await options.store.workProducts.update(card.id, { state: 'stale', stateReason: changed.reason });
    if (card.state === 'ready') options.events?.emit({ type: 'card.stale', id: card.id, kind: card.kind, reason: changed.reason });
    out.push(card.id);
  }
  return out;
}
