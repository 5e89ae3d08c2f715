import type { WorkStyle } from '@sous/config';
import { DRAFT_ENDING_STATES, type DraftIntentSnapshot } from '@sous/protocol';
import type { Store, StaleReason } from '@sous/store';
import { checkCapabilities } from './capabilities';
import { workStyleMultiplier } from './work-style';

/** What ingesting one composer snapshot did. */
export interface ComposerIntake {
  /** The stored SignalEvent's id (UUIDv7); adoptions attribute back to it. */
  composer_event_id: string;
  work_style: WorkStyle;
  multiplier: number;
  /** Predictions of this composer session marked stale (cleared or abandoned draft), else 0. */
  stale_predictions: number;
}

/**
 * Ingests one DraftIntentSnapshot (spec 4.3, 6): checks it against the adapter's declared
 * capabilities, appends it as a `composer_lifecycle` SignalEvent carrying the work-style multiplier
 * applied, and, when the draft was cleared or abandoned, marks the session's predictions stale.
 * The snapshot holds only `text_hash` and `length_chars`; the caller has already refused raw text.
 */
export async function ingestComposerSnapshot(
  store: Store,
  workspaceId: string,
  snapshot: DraftIntentSnapshot,
  workStyle: WorkStyle,
): Promise<ComposerIntake> {
  checkCapabilities(snapshot);
  const multiplier = workStyleMultiplier(workStyle);
  const event = await store.signals.append({
    kind: 'composer_lifecycle',
    workspaceId,
    // The snapshot as sent, plus what Sous applied to it.
    payload: { ...snapshot, work_style: workStyle, multiplier },
  });
  let stale = 0;
  if (DRAFT_ENDING_STATES.includes(snapshot.lifecycle_state)) {
    const reason: StaleReason = snapshot.lifecycle_state === 'cleared' ? 'draft_cleared' : 'draft_abandoned';
    stale = await store.predictions.markSessionStale(workspaceId, snapshot.session_id, reason);
  }
  return { composer_event_id: event.id, work_style: workStyle, multiplier, stale_predictions: stale };
}
