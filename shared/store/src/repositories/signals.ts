import { and, desc, eq, gte, type SQL } from 'drizzle-orm';
import { RAW_DRAFT_TEXT_KEYS } from '@sous/protocol';
import type { StoreDb } from '../db';
import { clampLimit } from '../defaults';
import { StoreError } from '../errors';
import { signalEvents, type SignalEventRow, type SignalKind } from '../schema/signals';
import { attempt } from './attempt';

/** Payload keys that would carry raw draft or prompt text; refused at any depth (spec 6.8). The one list of @sous/protocol. */
const RAW_TEXT_KEYS = new Set(RAW_DRAFT_TEXT_KEYS);
const MAX_PAYLOAD_DEPTH = 8;

/** Input of `SignalEventRepository.append`. */
export interface SignalEventInput {
  kind: SignalKind;
  /** Identifiers and hashes only, e.g. a DraftIntentSnapshot (which carries `text_hash`, never text). */
  payload: Record<string, unknown>;
  workspaceId?: string;
  /** Default: now. */
  occurredAt?: Date;
}

/** The append-only signal log. */
export interface SignalEventRepository {
  /** Appends one event. Rejects with `store_raw_text_refused` when the payload has a raw-text key. */
  append(input: SignalEventInput): Promise<SignalEventRow>;
  /** Events of one kind, newest first. Default limit 50, at most 500. */
  listRecent(kind: SignalKind, options?: { workspaceId?: string; since?: Date; limit?: number }): Promise<SignalEventRow[]>;
}

/** The dotted path of the first raw-text key in a payload, if any. */
export function findRawTextKey(value: unknown, at = 'payload', depth = 0): string | undefined {
  if (depth > MAX_PAYLOAD_DEPTH || typeof value !== 'object' || value === null) return undefined;
  for (const [key, inner] of Object.entries(value)) {
    const where = Array.isArray(value) ? `${at}[${key}]` : `${at}.${key}`;
    if (!Array.isArray(value) && RAW_TEXT_KEYS.has(key)) return where;
    const found = findRawTextKey(inner, where, depth + 1);
    if (found) return found;
  }
  return undefined;
}

export function createSignalEventRepository(db: StoreDb): SignalEventRepository {
  return {
    append: (input) =>
      attempt('appending the signal event', async () => {
        const rawKey = findRawTextKey(input.payload);
        if (rawKey) {
          throw new StoreError(
            'store_raw_text_refused',
            `signal payload field ${rawKey} would store raw text: send its sha256 (text_hash) and length instead`,
          );
        }
        const [row] = await db.insert(signalEvents).values(input).returning();
        return row!;
      }),
    listRecent: (kind, options = {}) =>
      attempt('listing signal events', () => {
        const conditions: SQL[] = [eq(signalEvents.kind, kind)];
        if (options.workspaceId) conditions.push(eq(signalEvents.workspaceId, options.workspaceId));
        if (options.since) conditions.push(gte(signalEvents.occurredAt, options.since));
        return db
          .select()
          .from(signalEvents)
          .where(and(...conditions))
          .orderBy(desc(signalEvents.occurredAt), desc(signalEvents.id))
          .limit(clampLimit(options.limit));
      }),
  };
}
