/**
 * The composer-adapter contract (spec 2.7, 6): the DraftIntentSnapshot an adapter POSTs to
 * `/signals/composer`, and what each capability level may honestly emit. The joi schema that
 * validates it lives in `@sous/http` (composer-snapshot.ts) and the committed JSON Schema
 * (`shared/protocol/schemas/draft-intent-snapshot.schema.json`) is generated from that joi schema.
 */

/** The seven composer lifecycle states (spec 3.5). */
export const LIFECYCLE_STATES = ['observing', 'tentative', 'stabilizing', 'actionable', 'submitted', 'cleared', 'abandoned'] as const;
export type LifecycleState = (typeof LIFECYCLE_STATES)[number];

/** Adapter capability levels (spec 6.2). */
export const CAPABILITY_LEVELS = ['L0', 'L1', 'L2', 'L3'] as const;
export type CapabilityLevel = (typeof CAPABILITY_LEVELS)[number];

/**
 * What an adapter of each level may declare in `capabilities.emits` (spec 6.2): L0 sees submit time
 * only, so it may emit `submitted` and nothing else; L1–L3 may emit all seven states.
 */
export const HONEST_EMITS: Readonly<Record<CapabilityLevel, readonly LifecycleState[]>> = {
  L0: ['submitted'],
  L1: LIFECYCLE_STATES,
  L2: LIFECYCLE_STATES,
  L3: LIFECYCLE_STATES,
};

/** Lifecycle states after which the draft is gone: predictions derived from it become stale (spec 3.5). */
export const DRAFT_ENDING_STATES: readonly LifecycleState[] = ['cleared', 'abandoned'];

/**
 * Body keys that would carry the draft's raw text or a preview of it. Never accepted (spec 6.8):
 * an adapter sends `text_hash` (sha256 hex) and `length_chars` instead.
 */
export const RAW_DRAFT_TEXT_KEYS: readonly string[] = ['text', 'raw_text', 'draft_text', 'draft', 'prompt', 'preview', 'content'];

/** One composer lifecycle snapshot (spec 2.7). Field names are the wire names. */
export interface DraftIntentSnapshot {
  session_id: string;
  /** Sortable id (a ULID or UUIDv7, for instance). */
  snapshot_id: string;
  /** ISO 8601 UTC. */
  timestamp: string;
  lifecycle_state: LifecycleState;
  /** sha256 hex digest of the draft text; never the text. */
  text_hash: string;
  length_chars: number;
  capabilities: {
    level: CapabilityLevel;
    emits: LifecycleState[];
    host_app?: string;
    host_kind?: string;
  };
  workspace_id?: string;
  field_role?: string;
}
