import { and, asc, desc, eq, inArray, ne, sql } from 'drizzle-orm';
import type { StoreDb } from '../db';
import { clampLimit } from '../defaults';
import {
  evidence,
  workProducts,
  type EvidenceRow,
  type WorkProductKind,
  type WorkProductRow,
  type WorkProductState,
} from '../schema/work-products';
import { attempt } from './attempt';

/** One piece of evidence to attach to a card. */
export interface EvidenceInput {
  /** Workspace-relative file path. */
  path: string;
  /** First line (1-based) of the range, when the evidence is a range. */
  lineStart?: number;
  /** Last line (inclusive); needs `lineStart`. */
  lineEnd?: number;
  /** sha256 hex of the content read. */
  contentHash?: string;
  commit?: string;
  /** Short note on what it shows (never an excerpt). Default ''. */
  note?: string;
}

/** Input of `WorkProductRepository.insert`. */
export interface WorkProductInput {
  /** Default: a new sortable id. */
  id?: string;
  workspaceId: string;
  kind: WorkProductKind;
  /** Default `candidate`. */
  state?: WorkProductState;
  title: string;
  summary?: string;
  body?: string;
  rationale?: string;
  details?: Record<string, unknown>;
  /** The detector that found it. Default ''. */
  detector?: string;
  /** Detector + target + claim; see `findByClaim`. */
  claimKey?: string;
  score?: number;
  stateReason?: string;
  /** Attached in this order, in the same transaction. */
  evidence?: EvidenceInput[];
}

/** Fields `update` may change; `evidence`, when given, replaces the card's evidence. */
export type WorkProductPatch = Partial<Pick<WorkProductInput, 'state' | 'title' | 'summary' | 'body' | 'rationale' | 'details' | 'score' | 'evidence'>> & {
  /** `null` clears it. */
  stateReason?: string | null;
};

/** A card with its evidence, in position order. */
export interface WorkProductWithEvidence extends WorkProductRow {
  evidence: EvidenceRow[];
}

/** Options of `WorkProductRepository.list`. */
export interface WorkProductListOptions {
  workspaceId: string;
  /** Only these states. Default: all. */
  states?: WorkProductState[];
  /** Only these kinds. Default: all. */
  kinds?: WorkProductKind[];
  /** Most rows returned. Default 50, at most 500. */
  limit?: number;
}

/** Prepared Work cards and their evidence. */
export interface WorkProductRepository {
  /** Inserts a card and its evidence atomically. */
  insert(input: WorkProductInput): Promise<WorkProductWithEvidence>;
  get(id: string): Promise<WorkProductWithEvidence | undefined>;
  /** Cards of a workspace, most recently updated first (without evidence). */
  list(options: WorkProductListOptions): Promise<WorkProductRow[]>;
  /** Moves a card to `state`; undefined when no such card. */
  updateState(id: string, state: WorkProductState): Promise<WorkProductRow | undefined>;
  /** Changes a card (and replaces its evidence when `patch.evidence` is given) atomically; undefined when no such card. */
  update(id: string, patch: WorkProductPatch): Promise<WorkProductWithEvidence | undefined>;
  /** Cards with their evidence (one query for the evidence), same order and filters as `list`. */
  listWithEvidence(options: WorkProductListOptions): Promise<WorkProductWithEvidence[]>;
  /** The newest card with this claim key that is not superseded, with its evidence. */
  findByClaim(workspaceId: string, claimKey: string): Promise<WorkProductWithEvidence | undefined>;
  /** The cards of a workspace among `ids` (without evidence), in no particular order; unknown ids are skipped. */
  byIds(workspaceId: string, ids: readonly string[]): Promise<WorkProductRow[]>;
  /** Cards in `states` whose evidence cites any of `paths`, with their evidence. */
  citing(workspaceId: string, paths: readonly string[], states: readonly WorkProductState[]): Promise<WorkProductWithEvidence[]>;
}

export function createWorkProductRepository(db: StoreDb): WorkProductRepository {
  return {
    insert: (input) =>
      attempt('saving the work product', () =>
        db.transaction(async (tx) => {
          const { evidence: items = [], ...card } = input;
          const [row] = await tx.insert(workProducts).values(card).returning();
          const product = row!;
          const attached = items.length
            ? await tx
                .insert(evidence)
                .values(items.map((item, position) => ({ ...item, workProductId: product.id, position })))
                .returning()
            : [];
          return { ...product, evidence: attached.sort((a, b) => a.position - b.position) };
        }),
      ),
    get: (id) =>
      attempt('reading the work product', async () => {
        const [row] = await db.select().from(workProducts).where(eq(workProducts.id, id));
        if (!row) return undefined;
        const items = await db.select().from(evidence).where(eq(evidence.workProductId, id)).orderBy(asc(evidence.position));
        return { ...row, evidence: items };
      }),
    list: (options) => attempt('listing work products', () => listRows(db, options)),
    listWithEvidence: (options) =>
      attempt('listing work products', async () => withEvidence(db, await listRows(db, options))),
    findByClaim: (workspaceId, claimKey) =>
      attempt('reading the work product', async () => {
        const rows = await db
          .select()
          .from(workProducts)
          .where(and(eq(workProducts.workspaceId, workspaceId), eq(workProducts.claimKey, claimKey), ne(workProducts.state, 'superseded')))
          .orderBy(desc(workProducts.createdAt), desc(workProducts.id))
          .limit(1);
        return (await withEvidence(db, rows))[0];
      }),
    byIds: (workspaceId, ids) =>
      attempt('reading work products', async () => {
        if (ids.length === 0) return [];
        return db.select().from(workProducts).where(and(eq(workProducts.workspaceId, workspaceId), inArray(workProducts.id, [...ids])));
      }),
    citing: (workspaceId, paths, states) =>
      attempt('reading work products', async () => {
        if (paths.length === 0 || states.length === 0) return [];
        const ids = db
          .selectDistinct({ id: evidence.workProductId })
          .from(evidence)
          .where(inArray(evidence.path, [...paths]));
        const rows = await db
          .select()
          .from(workProducts)
          .where(and(eq(workProducts.workspaceId, workspaceId), inArray(workProducts.state, [...states]), inArray(workProducts.id, ids)));
        return withEvidence(db, rows);
      }),
    update: (id, patch) =>
      attempt('changing the work product', () =>
        db.transaction(async (tx) => {
          const { evidence: items, ...fields } = patch;
          const [row] = await tx
            .update(workProducts)
            .set({ ...fields, updatedAt: sql`now()` })
            .where(eq(workProducts.id, id))
            .returning();
          if (!row) return undefined;
          if (items !== undefined) {
            await tx.delete(evidence).where(eq(evidence.workProductId, id));
            if (items.length > 0) await tx.insert(evidence).values(items.map((item, position) => ({ ...item, workProductId: id, position })));
          }
          const attached = await tx.select().from(evidence).where(eq(evidence.workProductId, id)).orderBy(asc(evidence.position));
          return { ...row, evidence: attached };
        }),
      ),
    updateState: (id, state) =>
      attempt('changing the work product state', async () => {
        const [row] = await db
          .update(workProducts)
          .set({ state, updatedAt: sql`now()` })
          .where(eq(workProducts.id, id))
          .returning();
        return row;
      }),
  };
}

function listRows(db: StoreDb, options: WorkProductListOptions): Promise<WorkProductRow[]> {
  const conditions = [eq(workProducts.workspaceId, options.workspaceId)];
  if (options.states?.length) conditions.push(inArray(workProducts.state, options.states));
  if (options.kinds?.length) conditions.push(inArray(workProducts.kind, options.kinds));
  return db
    .select()
    .from(workProducts)
    .where(and(...conditions))
    .orderBy(desc(workProducts.updatedAt), desc(workProducts.id))
    .limit(clampLimit(options.limit));
}

/** Attaches each card's evidence (in position order) with one query. */
async function withEvidence(db: StoreDb, rows: WorkProductRow[]): Promise<WorkProductWithEvidence[]> {
  if (rows.length === 0) return [];
  const items = await db
    .select()
    .from(evidence)
    .where(inArray(evidence.workProductId, rows.map((r) => r.id)))
    .orderBy(asc(evidence.position));
  const byCard = new Map<string, EvidenceRow[]>();
  for (const item of items) byCard.set(item.workProductId, [...(byCard.get(item.workProductId) ?? []), item]);
  return rows.map((row) => ({ ...row, evidence: byCard.get(row.id) ?? [] }));
}
