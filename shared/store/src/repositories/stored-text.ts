import { and, asc, eq, gt, sql } from 'drizzle-orm';
import type { StoreDb } from '../db';
import { predictions } from '../schema/predictions';
import { resolutions } from '../schema/resolutions';
import { evidence, workProducts } from '../schema/work-products';
import { workspaces } from '../schema/workspaces';
import { attempt } from './attempt';

/** Rows read per page while rewriting. */
const PAGE_ROWS = 200;

/** What one `rewrite` changed. */
export interface RewriteResult {
  /** False when the workspace's texts were already written under `tag`: nothing was read. */
  ran: boolean;
  /** Cards whose text changed, with their kind and state before. */
  workProducts: Array<{ id: string; kind: string; state: string; detailsChanged: boolean }>;
  resolutions: number;
  predictions: number;
}

/**
 * The texts Sous keeps about prepared work, outside the repository index: cards (title, summary,
 * body, rationale, details, evidence notes), resolutions (briefing, draft, predicted response,
 * details) and predictions (title, summary, details). `rewrite` passes every string of them through
 * a function once per `tag`: when `privacy.redact_patterns` change, texts written under the old
 * patterns are redacted under the new ones (the tag is recorded in the workspace's details).
 */
export interface StoredTextRepository {
  /**
   * Rewrites every stored string of the workspace's prepared work with `rewrite`, unless the texts
   * were last rewritten under `tag`; records `tag`. Rows that do not change are not written.
   */
  rewrite(workspaceId: string, tag: string, rewrite: (text: string) => string): Promise<RewriteResult>;
}

/** Every string in a JSON value passed through `fn`; the same object when nothing changed. */
function rewriteJson<T>(value: T, fn: (text: string) => string): T {
  if (typeof value === 'string') return fn(value) as T;
  if (Array.isArray(value)) {
    const out = value.map((v) => rewriteJson(v, fn));
    return (out.some((v, i) => v !== value[i]) ? out : value) as T;
  }
  if (value !== null && typeof value === 'object') {
    let changed = false;
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      out[k] = rewriteJson(v, fn);
      if (out[k] !== v) changed = true;
    }
    return (changed ? out : value) as T;
  }
  return value;
}

/** The fields of `row` named in `fields` that `fn` changes, rewritten; empty when none did. */
function changedFields<R extends Record<string, unknown>>(row: R, fields: readonly (keyof R)[], fn: (text: string) => string): Partial<R> {
  const out: Partial<R> = {};
  for (const field of fields) {
    const before = row[field];
    if (before === null || before === undefined) continue;
    const after = rewriteJson(before, fn);
    if (after !== before) out[field] = after;
  }
  return out;
}

export function createStoredTextRepository(db: StoreDb): StoredTextRepository {
  return {
    rewrite: (workspaceId, tag, fn) =>
      attempt('rewriting stored texts', () =>
        db.transaction(async (tx) => {
          const result: RewriteResult = { ran: false, workProducts: [], resolutions: 0, predictions: 0 };
          // The row lock keeps two processes from rewriting at once.
          const [ws] = await tx.select({ details: workspaces.details }).from(workspaces).where(eq(workspaces.id, workspaceId)).for('update');
          if (ws === undefined || ws.details.redaction === tag) return result;
          result.ran = true;

          for (let after = ''; ; ) {
            const page = await tx.select().from(workProducts).where(and(eq(workProducts.workspaceId, workspaceId), gt(workProducts.id, after))).orderBy(asc(workProducts.id)).limit(PAGE_ROWS);
            for (const row of page) {
              const patch = changedFields(row, ['title', 'summary', 'body', 'rationale', 'details', 'stateReason'], fn);
              const notes = await tx.select({ id: evidence.id, note: evidence.note }).from(evidence).where(eq(evidence.workProductId, row.id));
              let notesChanged = false;
              for (const n of notes) {
                const note = fn(n.note);
                if (note === n.note) continue;
                notesChanged = true;
                await tx.update(evidence).set({ note }).where(eq(evidence.id, n.id));
              }
              if (Object.keys(patch).length === 0 && !notesChanged) continue;
              if (Object.keys(patch).length > 0) await tx.update(workProducts).set({ ...patch, updatedAt: sql`now()` }).where(eq(workProducts.id, row.id));
              result.workProducts.push({ id: row.id, kind: row.kind, state: row.state, detailsChanged: 'details' in patch });
            }
            if (page.length < PAGE_ROWS) break;
            after = page[page.length - 1]!.id;
          }

          for (let after = ''; ; ) {
            const page = await tx.select().from(resolutions).where(and(eq(resolutions.workspaceId, workspaceId), gt(resolutions.id, after))).orderBy(asc(resolutions.id)).limit(PAGE_ROWS);
            for (const row of page) {
              const patch = changedFields(row, ['briefing', 'draft', 'predictedResponse', 'evidence', 'alternativesConsidered', 'details'], fn);
              if (Object.keys(patch).length === 0) continue;
              await tx.update(resolutions).set(patch).where(eq(resolutions.id, row.id));
              result.resolutions++;
            }
            if (page.length < PAGE_ROWS) break;
            after = page[page.length - 1]!.id;
          }

          for (let after = ''; ; ) {
            const page = await tx.select().from(predictions).where(and(eq(predictions.workspaceId, workspaceId), gt(predictions.id, after))).orderBy(asc(predictions.id)).limit(PAGE_ROWS);
            for (const row of page) {
              const patch = changedFields(row, ['title', 'summary', 'details'], fn);
              if (Object.keys(patch).length === 0) continue;
              await tx.update(predictions).set({ ...patch, updatedAt: sql`now()` }).where(eq(predictions.id, row.id));
              result.predictions++;
            }
            if (page.length < PAGE_ROWS) break;
            after = page[page.length - 1]!.id;
          }

          await tx
            .update(workspaces)
            .set({ details: sql`${workspaces.details} || ${JSON.stringify({ redaction: tag })}::jsonb` })
            .where(eq(workspaces.id, workspaceId));
          return result;
        }),
      ),
  };
}
