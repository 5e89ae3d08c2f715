import type { WorkStyle } from '@sous/config';
import { DRAFT_ENDING_STATES, type DraftIntentSnapshot } from '@sous/protocol';
import type { Store, StaleReason } from '@sous/store';
import { checkCapabilities } from './capabilities';
import { workStyleMultiplier } from './work-style';
import type { Predictions } from '../predictions/predictions';

/** What ingesting one composer snapshot did. */
export interface ComposerIntake {
  /** The stored SignalEvent's id (UUIDv7); adoptions attribute back to it. */
  composer_event_id: string;
  work_style: WorkStyle;
  multiplier: number;
  /** Predictions of this composer session marked stale (cleared or abandoned draft), else 0. */
  stale_predictions: number;
  /** The session's `composer_intent` prediction this event created, re-weighed or adopted, else null. */
  prediction_id: string | null;
  /**
   * On `submitted`: the resolutions this event was attributed to (their `composer_event_id`): those
   * resolved for this composer session, and those served from the prediction it adopted. Else [].
   */
  resolution_ids: string[];
}

/**
 * Ingests one DraftIntentSnapshot (spec 4.3, 6): checks it against the adapter's declared
 * capabilities, appends it as a `composer_lifecycle` SignalEvent carrying the work-style multiplier
 * applied, and hands it to the prediction registry (a `composer_intent` prediction per session;
 * docs/predictions.md). Without a registry, a cleared or abandoned draft still marks the session's
 * predictions stale in the store.
 * The snapshot holds only `text_hash` and `length_chars`; the caller has already refused raw text.
 */
export async function ingestComposerSnapshot(
  store: Store,
  workspaceId: string,
  snapshot: DraftIntentSnapshot,
  workStyle: WorkStyle,
  predictions?: Predictions,
): Promise<ComposerIntake> {
  checkCapabilities(snapshot);
  const multiplier = workStyleMultiplier(workStyle);
  const event = await store.signals.append({
    kind: 'composer_lifecycle',
    workspaceId,
    // The snapshot as sent, plus what Sous applied to it.
    payload: { ...snapshot, work_style: workStyle, multiplier },
  });
  const intake = { composer_event_id: event.id, work_style: workStyle, multiplier };
  if (predictions !== undefined) {
    const { prediction, stale } = await predictions.composer({
      sessionId: snapshot.session_id,
      state: snapshot.lifecycle_state,
      eventId: event.id,
      multiplier,
      ...(snapshot.field_role ? { fieldRole: snapshot.field_role } : {}),
    });
    const adopted = prediction?.state === 'adopted' ? prediction.id : undefined;
    const resolutionIds = await attribute(store, workspaceId, snapshot, event.id, adopted);
    // An adoption is positive evidence for the history source.
    if (resolutionIds.length > 0) await predictions.history();
    return { ...intake, stale_predictions: stale, prediction_id: prediction?.id ?? null, resolution_ids: resolutionIds };
  }
  let stale = 0;
  if (DRAFT_ENDING_STATES.includes(snapshot.lifecycle_state)) {
    const reason: StaleReason = snapshot.lifecycle_state === 'cleared' ? 'draft_cleared' : 'draft_abandoned';
    stale = await store.predictions.markSessionStale(workspaceId, snapshot.session_id, reason);
  }
  return { ...intake, stale_predictions: stale, prediction_id: null, resolution_ids: await attribute(store, workspaceId, snapshot, event.id) };
}

/**
 * Spec 2.5: `composer_event_id` is set on adoption, so hit/miss telemetry attributes to the composer
 * event. A `submitted` draft adopts the resolutions made for its session (`composer_session_id` of
 * resolve) and those served from the prediction it adopted; earlier attributions are kept.
 */
async function attribute(store: Store, workspaceId: string, snapshot: DraftIntentSnapshot, eventId: string, predictionId?: string): Promise<string[]> {
  if (snapshot.lifecycle_state !== 'submitted') return [];
  const rows = await store.resolutions.linkComposerEvent(workspaceId, { sessionId: snapshot.session_id, ...(predictionId ? { predictionId } : {}) }, eventId);
  return rows.map((r) => r.id);
}
