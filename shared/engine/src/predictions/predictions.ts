/**
 * The prediction registry (spec 2.4; docs/predictions.md): what the user is likely to ask next, each
 * with a prepared briefing, kept in the store across cycles and restarts. Sources implemented: `goal`
 * (one per active goal), `arc` (the area of the latest edits), `composer_intent` (one per composer
 * session with a draft in progress; composer-intent.ts), `pattern` (recurring kinds of change;
 * patterns.ts) and `history` (past requests and their feedback; history.ts). The policy bundle's goal
 * weighting and drafting dimensions set goal weights and how many inferred predictions are kept
 * (policy.ts); `category_shift` comes from resolve (category.ts). Invalidation signals demote the
 * weight, clear the briefing and mark a prediction stale when the content hash of one of its evidence
 * paths changed; there is no wall-clock decay. All writes run one after another on one chain.
 */
import type { GoalRow, PredictionRow, PredictionState, StaleReason, Store } from '@sous/store';
import { EngineError } from '../errors';
import { DRAFT_ENDING_STATES } from '@sous/protocol';
import { BASE_WEIGHT, arcArea, changedPaths, demote, type PathHashes } from './rules';
import { DRAFTING_STATES, composerContext, type ComposerSignal } from './composer-intent';
import { PATTERN_KEEP, reconcilePatterns, type CommitNames } from './patterns';
import { HISTORY_KEEP, HISTORY_WINDOW, historyEntries, reconcileHistory } from './history';
import type { CategoryShift } from './category';
import { byWeight, categoryOfRow, predictionView, type Adoption, type Briefing, type Details, type PredictionView } from './view';
import { DEFAULT_INTENT_POLICY, scaledKeep, type IntentPolicy } from './policy';

export { predictionView };
export type { Briefing, BriefingItem, PredictionView } from './view';

export interface PredictionsOptions {
  store: Store;
  workspaceId: string;
  hashOf(path: string): Promise<string | null>;
  /** Ranked evidence for a prompt from the live index, or null while it cannot answer (not ready, paused). */
  brief(prompt: string): Promise<Briefing | null>;
  /** Whether Sous may read the workspace now (Auto Focus); when not, signals and refreshes wait. Default: always. */
  mayRead?(): boolean;
  /**
   * `refinement.enabled` and `refinement.adoption_pending_confirm_seconds`, read on each adoption.
   * Default: off (an adoption is confirmed at once).
   */
  refinement?(): { enabled: boolean; confirmSeconds: number };
  /** The clock adoption windows are measured with. Default: the system clock. */
  now?(): Date;
  /** The newest commits (subjects and in-scope names) for the `pattern` source; without it, no patterns. */
  commits?(): Promise<CommitNames[]>;
  /** The active bundle's goal weighting and drafting (policy.ts), read on each use. Default: local_balanced's. */
  policy?(): IntentPolicy;
}

const LIVE: PredictionState[] = ['drafting', 'ready'];
const ARC_EVIDENCE = 20;
/** Arc predictions kept (most recently updated first); older ones go so the registry stays bounded. */
const ARC_KEEP = 20;

export class Predictions {
  private chain: Promise<unknown> = Promise.resolve();
  /** Whether a pending adoption may exist (unknown at start): when not, no call reads adopted rows to confirm them. */
  private pendingMayExist = true;
  /**
   * The last `candidates()` answers (ready, adopted): resolve's hit path then reads no table. Every
   * registry call that may write clears it when done; unused while an adoption is pending (time-bound).
   */
  private readonly cached = new Map<boolean, PredictionView[]>();
  /** Registry calls that may write, queued or running: while there are none, a cached answer needs no turn on the chain. */
  private writes = 0;

  constructor(private readonly options: PredictionsOptions) {}

  /** Ready or drafting predictions, most weight first. */
  active(): Promise<PredictionView[]> {
    return this.serial(async () => {
      await this.confirmDueNow();
      return byWeight(await this.options.store.predictions.list(this.options.workspaceId, { states: LIVE, limit: 500 }));
    }, 'read');
  }

  /**
   * What resolve may serve a prepared briefing from: the ready predictions (with `adopted`, the
   * adopted ones: context injection `adopted_package_only`) that hold one, most weight first. One
   * store read on the hot path (two only while an adoption is pending).
   */
  candidates(adopted = false): Promise<PredictionView[]> {
    const now = this.writes === 0 && !this.pendingMayExist ? this.cached.get(adopted) : undefined;
    if (now) return Promise.resolve(now);
    return this.serial(async () => {
      await this.confirmDueNow();
      const hit = this.pendingMayExist ? undefined : this.cached.get(adopted);
      if (hit) return hit;
      const rows = await this.options.store.predictions.list(this.options.workspaceId, { states: [adopted ? 'adopted' : 'ready'], limit: 500 });
      const views = byWeight(rows.filter((r) => (r.details as Details).briefing));
      this.cached.set(adopted, views);
      return views;
    }, 'read');
  }

  /** Every prediction with its weight, and counts by state and source (diagnostics). */
  async dashboard(): Promise<{ predictions: PredictionView[]; by_state: Record<string, number>; by_source: Record<string, number> }> {
    await this.serial(() => this.confirmDueNow(), 'read');
    const all = byWeight(await this.options.store.predictions.list(this.options.workspaceId, { limit: 500 }));
    const by_state: Record<string, number> = {};
    const by_source: Record<string, number> = {};
    for (const p of all) {
      by_state[p.state] = (by_state[p.state] ?? 0) + 1;
      by_source[p.source] = (by_source[p.source] ?? 0) + 1;
    }
    return { predictions: all, by_state, by_source };
  }

  /**
   * Uses a ready prediction as the current intent (spec 2.2 "adopt"): it becomes `adopted`, an
   * `adoption` signal is logged, and the other live predictions sharing an evidence path with it are
   * demoted and marked stale (`adoption`): the intent they anticipated has been taken up.
   */
  adopt(id: string): Promise<PredictionView> {
    return this.serial(async () => {
      await this.confirmDueNow();
      const row = await this.row(id);
      if (row.state !== 'ready') {
        throw new EngineError('conflict', `prediction ${JSON.stringify(id)} is ${row.state}; only a ready prediction can be adopted`, { state: row.state });
      }
      return predictionView(await this.adoptNow(row));
    });
  }

  /**
   * A composer snapshot (spec 6.4; docs/predictions.md): a draft in progress (`tentative`,
   * `stabilizing`, `actionable`) creates or re-weighs the session's one `composer_intent` prediction;
   * `submitted` adopts it when ready (recording the event as its `composer_event_id`) and drops it
   * when it never got a briefing; `cleared`/`abandoned` demote it and make it stale. Resolves to
   * the session's prediction (null when there is none) and how many went stale.
   */
  composer(signal: ComposerSignal): Promise<{ prediction: PredictionView | null; stale: number }> {
    return this.serial(async () => {
      const { store, workspaceId } = this.options;
      await this.confirmDueNow();
      const mine = (await this.all()).filter((p) => p.composerSessionId === signal.sessionId);
      const live = mine.filter((p) => LIVE.includes(p.state));
      if (DRAFT_ENDING_STATES.includes(signal.state)) {
        // A draft taken back inside an adoption's confirmation window contradicts that adoption.
        const contradicted = mine.filter((p) => p.state === 'adopted' && (p.details as Details).adoption?.status === 'pending');
        const reason = signal.state === 'cleared' ? 'draft_cleared' : 'draft_abandoned';
        for (const row of [...live, ...contradicted]) await this.invalidateRow(row, reason);
        return { prediction: null, stale: live.length + contradicted.length };
      }
      if (signal.state === 'submitted') {
        await store.predictions.delete(live.filter((p) => p.state === 'drafting').map((p) => p.id));
        const ready = live.find((p) => p.state === 'ready');
        if (ready === undefined) return { prediction: null, stale: 0 };
        const withEvent = { ...ready, details: { ...ready.details, composer_event_id: signal.eventId } };
        return { prediction: predictionView(await this.adoptNow(withEvent)), stale: 0 };
      }
      if (!DRAFTING_STATES.includes(signal.state) || !this.mayRead()) return { prediction: null, stale: 0 };
      const weight = Math.round(BASE_WEIGHT.composer_intent * signal.multiplier * 1e6) / 1e6;
      const current = live[0];
      if (current !== undefined) {
        const updated = current.weight === weight ? current : await store.predictions.update(current.id, { weight });
        return { prediction: predictionView(updated ?? current), stale: 0 };
      }
      // A new draft in this session: its stale predecessors give way, as a fresh arc replaces stale arcs.
      await store.predictions.delete(mine.filter((p) => p.state === 'stale').map((p) => p.id));
      const context = composerContext(await this.all(), signal.fieldRole);
      const row = await store.predictions.insert({
        workspaceId,
        source: 'composer_intent',
        composerSessionId: signal.sessionId,
        title: context.prompt,
        weight,
        pathHashes: (await this.hashes(context.paths)) as Record<string, string>,
        details: { context: context.context, query: context.query },
      });
      await this.prepare(row);
      return { prediction: predictionView((await store.predictions.get(row.id)) ?? row), stale: 0 };
    });
  }

  /**
   * Ready → adopted. With refinement on, the adoption is pending for the configured window and takes
   * effect when confirmed (confirmDueNow); otherwise it takes effect at once.
   */
  private async adoptNow(row: PredictionRow): Promise<PredictionRow> {
    const refinement = this.options.refinement?.();
    if (refinement?.enabled) {
      const confirmAt = new Date(this.now().getTime() + refinement.confirmSeconds * 1000).toISOString();
      const adoption: Adoption = { status: 'pending', confirm_at: confirmAt };
      this.pendingMayExist = true;
      return (await this.options.store.predictions.update(row.id, { state: 'adopted', details: { ...row.details, adoption } })) ?? row;
    }
    return this.confirmRow({ ...row, state: 'adopted' });
  }

  /** Pending adoptions whose window has passed uncontradicted are confirmed (no timer: every registry call checks). */
  private async confirmDueNow(): Promise<void> {
    if (!this.pendingMayExist) return;
    const adopted = await this.options.store.predictions.list(this.options.workspaceId, { states: ['adopted'], limit: 500 });
    const now = this.now().getTime();
    let pending = false;
    for (const row of adopted) {
      const adoption = (row.details as Details).adoption;
      if (adoption?.status !== 'pending') continue;
      if (Date.parse(adoption.confirm_at ?? '') <= now) await this.confirmRow(row);
      else pending = true;
    }
    this.pendingMayExist = pending;
  }

  /** An adoption takes effect: logs the `adoption` signal (ids only) and stales the live predictions that share an evidence path. */
  private async confirmRow(row: PredictionRow): Promise<PredictionRow> {
    const { store, workspaceId } = this.options;
    this.cached.clear();
    const pending = (row.details as Details).adoption !== undefined;
    const details = pending ? { ...row.details, adoption: { status: 'confirmed' } } : row.details;
    const adopted = await store.predictions.update(row.id, { state: 'adopted', details });
    const eventId = (row.details as Details).composer_event_id;
    await store.signals.append({ kind: 'adoption', workspaceId, payload: { prediction_id: row.id, source: row.source, ...(eventId ? { composer_event_id: eventId } : {}) } });
    const paths = new Set(Object.keys(row.pathHashes));
    const live = await store.predictions.list(workspaceId, { states: LIVE, limit: 500 });
    for (const other of live) {
      if (other.id !== row.id && Object.keys(other.pathHashes).some((p) => paths.has(p))) await this.invalidateRow(other, 'adoption');
    }
    return adopted ?? row;
  }

  /**
   * An invalidation signal: live predictions with an evidence path among `paths` (every one for
   * `all`) whose content hash changed are demoted, lose their briefing and go stale for `reason`.
   * Resolves to how many went stale.
   */
  invalidate(reason: StaleReason, paths: string[] | 'all'): Promise<number> {
    return this.serial(async () => (this.mayRead() ? this.invalidateNow(reason, paths) : 0));
  }

  /**
   * A file change or commit from the index: invalidate, then follow the arc of edits (file changes
   * only), then refresh the goal predictions.
   */
  signal(kind: 'file_change' | 'commit', paths: string[] | 'all'): Promise<void> {
    return this.serial(async () => {
      if (!this.mayRead()) return;
      await this.invalidateNow(kind, paths);
      if (kind === 'file_change' && paths !== 'all') await this.arcNow(paths);
      if (kind === 'commit') await this.patternsNow();
      await this.refreshNow();
    });
  }

  /** Re-reads the recurring kinds of change (the `pattern` source) from the newest commits; the daemon calls it at start. */
  patterns(): Promise<void> {
    return this.serial(async () => (this.mayRead() ? this.patternsNow() : undefined));
  }

  private async patternsNow(): Promise<void> {
    if (!this.options.commits) return;
    const deps = { store: this.options.store, workspaceId: this.options.workspaceId, all: () => this.all(), hashes: (p: string[]) => this.hashes(p), prepare: (r: PredictionRow) => this.prepare(r) };
    await reconcilePatterns(deps, await this.options.commits(), scaledKeep(PATTERN_KEEP, this.policy().drafting));
  }

  /**
   * Rebuilds the `history` source from the newest resolutions and their feedback (history.ts); the
   * daemon calls it at start, after feedback and after a composer event is attributed to a resolution.
   */
  history(): Promise<void> {
    return this.serial(async () => {
      if (!this.mayRead()) return;
      const { store, workspaceId } = this.options;
      const rows = await store.resolutions.recent(workspaceId, HISTORY_WINDOW);
      const feedback = await store.feedback.listForResolutions(rows.map((r) => r.id));
      const deps = { store, workspaceId, all: () => this.all(), hashes: (p: string[]) => this.hashes(p) };
      await reconcileHistory(deps, historyEntries(rows, feedback), scaledKeep(HISTORY_KEEP, this.policy().drafting));
    });
  }

  /**
   * A `category_shift` (category.ts): the requests moved from area `from` to area `to`. Live
   * inferred predictions (arc, pattern, history, composer_intent) prepared for `from` are demoted,
   * lose their briefing and go stale; goal predictions stay (a declared goal outranks what the
   * requests look like). The signal is logged (areas and counts only). Resolves to how many went stale.
   */
  categoryShift(shift: CategoryShift): Promise<number> {
    return this.serial(async () => {
      const { store, workspaceId } = this.options;
      const live = await store.predictions.list(workspaceId, { states: LIVE, limit: 500 });
      const affected = live.filter((p) => p.source !== 'goal' && categoryOfRow(p) === shift.from);
      for (const row of affected) await this.invalidateRow(row, 'category_shift');
      await store.signals.append({ kind: 'category_shift', workspaceId, payload: { from: shift.from, to: shift.to, stale: affected.length } });
      return affected.length;
    });
  }

  /** Seeds a prediction for each active goal that has none, drops those of goals no longer active, fills drafting briefings. */
  refresh(): Promise<void> {
    return this.serial(async () => (this.mayRead() ? this.refreshNow() : undefined));
  }

  /**
   * A goal was declared or its status changed (the user spoke): its stale predictions are replaced
   * by a fresh one while it is active, and all of its predictions go when it is not.
   */
  goalChanged(goalId: string): Promise<void> {
    return this.serial(async () => {
      const mine = (await this.all()).filter((p) => p.goalId === goalId && p.state !== 'adopted');
      await this.options.store.predictions.delete(mine.filter((p) => p.state === 'stale').map((p) => p.id));
      if (this.mayRead()) await this.refreshNow();
    });
  }

  private async refreshNow(): Promise<void> {
    const { store, workspaceId } = this.options;
    const goals = await store.goals.list(workspaceId);
    const active = new Map(goals.filter((g) => g.status === 'active').map((g) => [g.id, g]));
    const all = await this.all();
    const goalWeight = this.goalWeight();
    // A bundle switch re-weighs live goal predictions (stale ones keep their demoted weight).
    for (const p of all) if (p.source === 'goal' && LIVE.includes(p.state) && p.weight !== goalWeight) await store.predictions.update(p.id, { weight: goalWeight });
    // A goal paused, abandoned, achieved or deleted no longer seeds anything (adopted ones stay on record).
    await store.predictions.delete(all.filter((p) => p.source === 'goal' && p.state !== 'adopted' && (p.goalId === null || !active.has(p.goalId))).map((p) => p.id));
    for (const goal of active.values()) {
      if (!all.some((p) => p.goalId === goal.id)) await this.seedGoal(goal);
    }
    for (const p of all) {
      if (p.state === 'drafting' && (p.source !== 'goal' || (p.goalId !== null && active.has(p.goalId)))) await this.prepare(p);
    }
  }

  private async seedGoal(goal: GoalRow): Promise<void> {
    const row = await this.options.store.predictions.insert({
      workspaceId: this.options.workspaceId,
      source: 'goal',
      goalId: goal.id,
      title: `continue: ${goal.title}`,
      weight: this.goalWeight(),
      pathHashes: (await this.hashes(goal.relatedFiles)) as Record<string, string>,
    });
    await this.prepare(row);
  }

  /** The latest edits name an area: one live arc prediction per area, replacing its stale predecessors. */
  private async arcNow(paths: string[]): Promise<void> {
    const area = arcArea(paths);
    if (area === undefined) return;
    const arcs = (await this.all()).filter((p) => p.source === 'arc' && (p.details as Details).area === area);
    if (arcs.some((p) => LIVE.includes(p.state))) return;
    await this.options.store.predictions.delete(arcs.filter((p) => p.state === 'stale').map((p) => p.id));
    const inArea = paths.filter((p) => (area === '.' ? !p.includes('/') : p.startsWith(`${area}/`))).slice(0, ARC_EVIDENCE);
    const row = await this.options.store.predictions.insert({
      workspaceId: this.options.workspaceId,
      source: 'arc',
      title: `review and continue the changes in ${area === '.' ? 'the repository root' : area}`,
      weight: BASE_WEIGHT.arc,
      pathHashes: (await this.hashes(inArea)) as Record<string, string>,
      details: { area },
    });
    await this.prepare(row);
    const older = (await this.all()).filter((p) => p.source === 'arc' && p.state !== 'adopted').slice(scaledKeep(ARC_KEEP, this.policy().drafting));
    await this.options.store.predictions.delete(older.map((p) => p.id));
  }

  /** Drafting → ready once the index answers the anticipated prompt. */
  private async prepare(row: PredictionRow): Promise<void> {
    const briefing = await this.options.brief((row.details as Details).query ?? row.title);
    if (briefing === null) return;
    await this.options.store.predictions.update(row.id, { state: 'ready', details: { ...row.details, briefing } });
  }

  private async invalidateNow(reason: StaleReason, paths: string[] | 'all'): Promise<number> {
    const touched = paths === 'all' ? undefined : new Set(paths);
    const live = await this.options.store.predictions.list(this.options.workspaceId, { states: LIVE, limit: 500 });
    let n = 0;
    for (const row of live) {
      const evidence = row.pathHashes as PathHashes;
      const check = Object.keys(evidence).filter((p) => !touched || touched.has(p));
      if (check.length === 0) continue;
      const now = await this.hashes(check);
      const subset: PathHashes = Object.fromEntries(check.map((p) => [p, evidence[p] ?? null]));
      if (changedPaths(subset, now).length === 0) continue;
      await this.invalidateRow(row, reason);
      n += 1;
    }
    return n;
  }

  private async invalidateRow(row: PredictionRow, reason: StaleReason): Promise<void> {
    const adoption = (row.details as Details).adoption;
    await this.options.store.predictions.update(row.id, {
      state: 'stale',
      staleReason: reason,
      weight: demote(row.weight),
      summary: '',
      details: { ...row.details, briefing: null, ...(adoption ? { adoption: { status: 'withdrawn' } } : {}) },
    });
  }

  private policy(): IntentPolicy {
    return this.options.policy ? this.options.policy() : DEFAULT_INTENT_POLICY;
  }

  /** A goal prediction's weight under the active bundle's goal weighting. */
  private goalWeight(): number {
    return Math.round(BASE_WEIGHT.goal * this.policy().goalWeighting * 1e6) / 1e6;
  }

  private now(): Date {
    return this.options.now ? this.options.now() : new Date();
  }

  private async hashes(paths: string[]): Promise<PathHashes> {
    const out: PathHashes = {};
    for (const p of paths) out[p] = await this.options.hashOf(p);
    return out;
  }

  private all(): Promise<PredictionRow[]> {
    return this.options.store.predictions.list(this.options.workspaceId, { limit: 500 });
  }

  private async row(id: string): Promise<PredictionRow> {
    const row = await this.options.store.predictions.get(id);
    if (row === undefined || row.workspaceId !== this.options.workspaceId) {
      throw new EngineError('not_found', `no prediction ${JSON.stringify(id)} in this workspace; sous.predictions.active lists the current ones`);
    }
    return row;
  }

  private mayRead(): boolean {
    return this.options.mayRead ? this.options.mayRead() : true;
  }

  /** Deletes every prediction of the workspace (`sous forget`); active goals seed new ones on the next refresh. */
  clear(): Promise<number> {
    return this.serial(async () => {
      let gone = 0;
      for (;;) {
        const rows = await this.options.store.predictions.list(this.options.workspaceId, { limit: 500 });
        if (rows.length === 0) return gone;
        gone += await this.options.store.predictions.delete(rows.map((r) => r.id));
      }
    });
  }

  /** Runs `fn` after every earlier call; unless it only reads, the candidates cache is cleared when it ends. */
  private serial<T>(fn: () => Promise<T>, kind: 'read' | 'write' = 'write'): Promise<T> {
    if (kind === 'write') this.writes += 1;
    const next = this.chain.then(fn);
    const done = next.finally(() => {
      if (kind !== 'write') return;
      this.writes -= 1;
      this.cached.clear();
    });
    this.chain = done.catch(() => undefined);
    return next;
  }
}
