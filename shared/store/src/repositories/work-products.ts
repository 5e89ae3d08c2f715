import { and, asc, desc, eq, inArray, sql } from 'drizzle-orm';
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
  /** Attached in this order, in the same transaction. */
  evidence?: EvidenceInput[];
}

/** A card with its evidence, in position order. */
export interface WorkProductWithEvidence extends WorkProductRow {
  evidence: EvidenceRow[];
}

/** Options of `WorkProductRepository.list`. */
export interface WorkProductListOptions {
  workspaceId: string;
  /** Only these states. Default: all. */
  states?: WorkProductState[];
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
    list: (options) =>
      attempt('listing work products', () => {
        const where = options.states?.length
          ? and(eq(workProducts.workspaceId, options.workspaceId), inArray(workProducts.state, options.states))
          : eq(workProducts.workspaceId, options.workspaceId);
        return db
          .select()
          .from(workProducts)
          .where(where)
          .orderBy(desc(workProducts.updatedAt), desc(workProducts.id))
          .limit(clampLimit(options.limit));
      }),
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
