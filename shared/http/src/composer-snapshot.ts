import Joi from 'joi';
import {
  ApiError,
  CAPABILITY_LEVELS,
  LIFECYCLE_STATES,
  RAW_DRAFT_TEXT_KEYS,
  type DraftIntentSnapshot,
} from '@sous/protocol';
import { validate } from './errors';

/** Longest identifier or host name accepted in a snapshot. */
const MAX_ID_CHARS = 200;
/** Largest draft length accepted (10 million characters: far beyond any composer). */
const MAX_LENGTH_CHARS = 10_000_000;

const id = (description: string): Joi.StringSchema => Joi.string().min(1).max(MAX_ID_CHARS).description(description);

/**
 * The DraftIntentSnapshot (spec 2.7) as joi: the one source of truth. `POST /signals/composer`
 * validates with it and `npm run schema:generate` converts it to the committed JSON Schema
 * (`shared/protocol/schemas/draft-intent-snapshot.schema.json`) for adapters in other languages.
 * Unknown fields are refused, so a raw-text field can never slip through.
 */
export const draftIntentSnapshotSchema = Joi.object<DraftIntentSnapshot>({
  session_id: id('composer session identifier').required(),
  snapshot_id: id('snapshot identifier (sortable id form, e.g. a ULID or UUIDv7)').required(),
  timestamp: Joi.string()
    .isoDate()
    .pattern(/(Z|[+-]00:?00)$/, 'UTC offset')
    .description('ISO 8601 UTC time of the snapshot')
    .required(),
  lifecycle_state: Joi.string()
    .valid(...LIFECYCLE_STATES)
    .description('composer lifecycle state')
    .required(),
  text_hash: Joi.string()
    .pattern(/^[0-9a-f]{64}$/, 'sha256 hex digest')
    .description('sha256 hex digest (lower case) of the draft text; the text itself is never sent')
    .required(),
  length_chars: Joi.number().integer().min(0).max(MAX_LENGTH_CHARS).description('draft length in characters').required(),
  capabilities: Joi.object({
    level: Joi.string()
      .valid(...CAPABILITY_LEVELS)
      .description('capability level the adapter honestly declares')
      .required(),
    emits: Joi.array()
      .items(Joi.string().valid(...LIFECYCLE_STATES))
      .min(1)
      .unique()
      .description('lifecycle states this adapter emits; an L0 adapter emits only submitted')
      .required(),
    host_app: id('host application'),
    host_kind: id('kind of host (cli, ide, desktop, ...)'),
  })
    .description("the adapter's declared capabilities")
    .required(),
  workspace_id: Joi.string().min(1).max(4096).description('workspace path identifier'),
  field_role: id('role of the input field'),
})
  .description('One composer lifecycle snapshot (Sous composer-adapter contract, spec 2.7)');

/**
 * Validates a `POST /signals/composer` body. A field that would carry the draft's raw text (or a
 * preview) is refused first, with a message that says why; anything else wrong is the usual
 * `invalid_body` naming the field.
 */
export function validateDraftIntentSnapshot(body: unknown): DraftIntentSnapshot {
  if (typeof body === 'object' && body !== null && !Array.isArray(body)) {
    const top = body as Record<string, unknown>;
    const caps = typeof top.capabilities === 'object' && top.capabilities !== null ? Object.keys(top.capabilities) : [];
    const raw =
      Object.keys(top).find((k) => RAW_DRAFT_TEXT_KEYS.includes(k)) ??
      caps.filter((k) => RAW_DRAFT_TEXT_KEYS.includes(k)).map((k) => `capabilities.${k}`)[0];
    if (raw !== undefined) {
      throw new ApiError(
        'invalid_body',
        `raw draft text is never accepted (field ${raw}): send text_hash (sha256 hex of the text) and length_chars instead`,
        `body.${raw}`,
      );
    }
  }
  return validate(draftIntentSnapshotSchema, body, 'body');
}
