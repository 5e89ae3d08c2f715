/**
 * Workspace goals (spec 2.3, 3.3): declare, list, get, change status, delete, and reconcile them
 * against the repository when it changes. Goals are user-authoritative: Sous never changes their
 * title, files or status, only the reconciliation state it maintains beside them. Any status may
 * follow any other (spec 3.3); moving a goal to `active` (again) records fresh evidence, which is how
 * a user confirms a stale goal against the repository as it now is.
 */
import type { GoalRow, GoalStatus, Store } from '@sous/store';
import { EngineError } from '../errors';
import { canonicalRelatedPath, reconcile, type GoalEvidence, type ReconciliationState } from './evidence';

/** A goal on the wire (HTTP, MCP, CLI `--json`). */
export interface GoalView {
  id: string;
  title: string;
  description: string;
  status: GoalStatus;
  related_files: string[];
  reconciliation_state: ReconciliationState;
  /** Why the state is what it is (e.g. `src/x.py was deleted`); empty when nothing moved. */
  reconciliation_reasons: string[];
  created_at: string;
  updated_at: string;
}

export interface GoalDeclaration {
  title: string;
  /** Default ''. */
  description?: string;
  /** Default `active`. */
  status?: GoalStatus;
  /** Workspace-relative paths, validated with canonicalRelatedPath at the edge; stored canonical, without duplicates. */
  related_files?: string[];
}

export interface GoalsOptions {
  store: Store;
  workspaceId: string;
  /** The file's sha256 now, or null when it is missing or outside the privacy scope. */
  hashOf(path: string): Promise<string | null>;
  /** Whether Sous may read the workspace now (Auto Focus); when not, evidence waits for a later signal. Default: always. */
  mayRead?(): boolean;
}

/** What Sous keeps in a goal's `details`. */
type GoalDetails = {
  evidence: GoalEvidence;
  reasons: string[];
};

function detailsOf(row: GoalRow): GoalDetails {
  const d = row.details as Partial<GoalDetails>;
  return { evidence: d.evidence ?? {}, reasons: Array.isArray(d.reasons) ? d.reasons : [] };
}

export function goalView(row: GoalRow): GoalView {
  return {
    id: row.id,
    title: row.title,
    description: row.description,
    status: row.status,
    related_files: row.relatedFiles,
    reconciliation_state: row.reconciliationState as ReconciliationState,
    reconciliation_reasons: detailsOf(row).reasons,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}

export class Goals {
  /** Reconciliations run one after another, so two signals never write the same goal at once. */
  private chain: Promise<unknown> = Promise.resolve();

  constructor(private readonly options: GoalsOptions) {}

  async declare(input: GoalDeclaration): Promise<GoalView> {
    const relatedFiles = [...new Set((input.related_files ?? []).map((p) => canonicalRelatedPath(p) ?? p))];
    const baseline = await this.baseline(relatedFiles);
    const row = await this.options.store.goals.create({
      workspaceId: this.options.workspaceId,
      title: input.title,
      description: input.description ?? '',
      status: input.status ?? 'active',
      relatedFiles,
      ...baseline,
    });
    return goalView(row);
  }

  /** Goals of the workspace, oldest first; only `statuses` when given. */
  async list(statuses?: GoalStatus[]): Promise<GoalView[]> {
    const rows = await this.options.store.goals.list(this.options.workspaceId, statuses?.length ? { statuses } : {});
    return rows.map(goalView);
  }

  async get(id: string): Promise<GoalView> {
    return goalView(await this.row(id));
  }

  /** Any status may follow any other; to `active` records fresh evidence (state `current`). */
  async updateStatus(id: string, status: GoalStatus): Promise<GoalView> {
    const row = await this.row(id);
    const patch = status === 'active' ? { status, ...(await this.baseline(row.relatedFiles)) } : { status };
    const updated = await this.options.store.goals.update(id, patch);
    if (updated === undefined) throw notFound(id);
    return goalView(updated);
  }

  async delete(id: string): Promise<void> {
    await this.row(id);
    if (!(await this.options.store.goals.delete(id))) throw notFound(id);
  }

  /**
   * Re-checks the active goals whose related files are among `paths` (all active goals for `all`, as
   * after a commit). Resolves to the goals whose state changed. Never throws for one goal's sake:
   * a store failure rejects, and the caller logs it.
   */
  reconcile(paths: string[] | 'all'): Promise<GoalView[]> {
    const next = this.chain.then(() => this.reconcileNow(paths));
    this.chain = next.catch(() => undefined);
    return next;
  }

  private async reconcileNow(paths: string[] | 'all'): Promise<GoalView[]> {
    if (this.options.mayRead && !this.options.mayRead()) return [];
    const touched = paths === 'all' ? undefined : new Set(paths);
    const active = await this.options.store.goals.list(this.options.workspaceId, { statuses: ['active'] });
    const changed: GoalView[] = [];
    for (const row of active) {
      if (touched && !row.relatedFiles.some((p) => touched.has(p))) continue;
      const details = detailsOf(row);
      const now: GoalEvidence = {};
      for (const path of row.relatedFiles) now[path] = await this.options.hashOf(path);
      // A file whose evidence was never recorded (declared while Sous could not read) gets its baseline now.
      const evidence: GoalEvidence = { ...details.evidence };
      for (const path of row.relatedFiles) if (!(path in evidence)) evidence[path] = now[path] ?? null;
      const result = reconcile(evidence, now);
      const same = result.state === row.reconciliationState && JSON.stringify(result.reasons) === JSON.stringify(details.reasons) && Object.keys(evidence).length === Object.keys(details.evidence).length;
      if (same) continue;
      const updated = await this.options.store.goals.update(row.id, { reconciliationState: result.state, details: { ...row.details, evidence, reasons: result.reasons } });
      if (updated) changed.push(goalView(updated));
    }
    return changed;
  }

  /** Fresh evidence and the `current` state, or `unreconciled` with no evidence while Sous may not read. */
  private async baseline(relatedFiles: string[]): Promise<{ reconciliationState: ReconciliationState; details: GoalDetails }> {
    if (this.options.mayRead && !this.options.mayRead()) return { reconciliationState: 'unreconciled', details: { evidence: {}, reasons: [] } };
    const evidence: GoalEvidence = {};
    for (const path of relatedFiles) evidence[path] = await this.options.hashOf(path);
    return { reconciliationState: 'current', details: { evidence, reasons: [] } };
  }

  private async row(id: string): Promise<GoalRow> {
    const row = await this.options.store.goals.get(id);
    if (row === undefined || row.workspaceId !== this.options.workspaceId) throw notFound(id);
    return row;
  }
}

function notFound(id: string): EngineError {
  return new EngineError('not_found', `no goal ${JSON.stringify(id)} in this workspace; sous goals list shows the current ones`);
}
