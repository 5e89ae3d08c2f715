/**
 * Deep-Run sessions (spec 1 invariant 6, 4.6, 4.7; docs/deep-run.md): start, stop, inspect, list,
 * defaults, and the runner that drives them as a series of queued steps (step.ts). A session stops
 * at its duration, at `compute.max_session_minutes`, at its cost cap, when Auto Focus pauses the
 * workspace, or on `stop`; a timer checks the first ones between steps, and every model call checks
 * them again. After a daemon restart `resume` picks up each session left running: a step that was
 * cut off is counted as interrupted and never run again, and the session goes on with the next
 * number while its deadline holds, or ends saying the daemon was down when it passed.
 */
import * as os from 'node:os';
import type { DeepRunPresetId, DeepRunRow, DeepRunSettings } from '@sous/store';
import { processAlive } from '@sous/protocol';
import { EngineError } from '../errors';
import { createModelAssist, type ModelAssistHandle } from '../model/model-assist';
import { limitReached, type SessionEnd } from './limits';
import { meteredChat, type MeterScope } from './metered-chat';
import { DEFAULT_TICK_MS, type DeepRunsOptions } from './options';
import { DEFAULT_COST_CAP_USD, PRESET_OVERRIDES, layerPreset } from './presets';
import { SPEND_METHOD, defaultPrice, type Price } from './spend';
import { runStep, runnerId, type DeepRunStepPayload, type DeepRunStepResult, type StepHost } from './step';
import { DEEP_RUN_UNITS, deepRunView, type DeepRunView } from './view';

/** What `start` accepts; absent values come from the bundle (docs/deep-run.md#defaults). */
export interface DeepRunRequest {
  preset?: DeepRunPresetId;
  duration_minutes?: number;
  cost_cap_usd?: number;
}

/** What `sous deep-run start` would use now, and every preset layered on the bundle. */
export interface DeepRunDefaults {
  bundle: string;
  preset: DeepRunPresetId;
  duration_minutes: number;
  cost_cap_usd: number;
  max_session_minutes: number;
  model: { name: string; base_url: string; local: boolean };
  /** Why a session could not start with this model now (a hosted backend under a local posture), or null. */
  refused: string | null;
  price_per_million_usd: Price;
  spend_method: string;
  units: typeof DEEP_RUN_UNITS;
  presets: Array<{ preset: DeepRunPresetId; description: string; default_duration_minutes: number; settings: DeepRunSettings }>;
}

/** Grace over `compute.max_cycle_seconds` before another host's claimed step counts as interrupted. */
const CLAIM_GRACE_MS = 60_000;

interface Driven {
  controller?: AbortController;
  timer?: NodeJS.Timeout;
  assist?: { key: string; assist: ModelAssistHandle; scope: { current: () => MeterScope } };
}

export class DeepRuns {
  /** Sessions this process drives: checked on every tick, their next step queued from here. */
  private readonly driven = new Map<string, Driven>();
  private readonly tick: NodeJS.Timeout;
  private ticking = false;
  private closed = false;
  private readonly host: StepHost;

  constructor(private readonly options: DeepRunsOptions) {
    this.tick = setInterval(() => void this.check(), options.tickMs ?? DEFAULT_TICK_MS);
    this.tick.unref();
    this.host = {
      store: options.store,
      options,
      now: () => this.now(),
      limit: (row) => this.limit(row),
      track: (id, controller) => {
        const d = this.drive(id);
        d.controller = controller;
        return () => {
          if (d.controller === controller) delete d.controller;
        };
      },
      assist: (row, scope) => this.assistFor(row, scope),
      end: (row, end) => this.end(row, end),
      schedule: (row) => this.schedule(row),
    };
  }

  /** The defaults a start would use now. */
  defaults(): DeepRunDefaults {
    const baseline = this.options.baseline();
    const config = this.options.config();
    const model = this.modelInfo();
    const price = this.priceOf(model);
    return {
      bundle: baseline.id,
      preset: baseline.deep_run,
      duration_minutes: PRESET_OVERRIDES[baseline.deep_run].default_duration_minutes,
      cost_cap_usd: DEFAULT_COST_CAP_USD[baseline.spend],
      max_session_minutes: config.compute.max_session_minutes,
      model,
      refused: this.refusal(model.local),
      price_per_million_usd: price,
      spend_method: SPEND_METHOD,
      units: DEEP_RUN_UNITS,
      presets: (Object.keys(PRESET_OVERRIDES) as DeepRunPresetId[]).map((preset) => ({
        preset,
        description: PRESET_OVERRIDES[preset].description,
        default_duration_minutes: PRESET_OVERRIDES[preset].default_duration_minutes,
        settings: layerPreset(preset, baseline, config.exploration, model, price),
      })),
    };
  }

  /** Starts a session and queues its first step. Conflict when one runs, the workspace is paused, or the model is refused. */
  async start(request: DeepRunRequest): Promise<DeepRunView> {
    const { store, workspaceId } = this.options;
    const paused = this.options.paused();
    if (paused !== null) throw new EngineError('conflict', `the workspace is paused (${paused}); resume it before starting a Deep-Run session`);
    const running = (await store.deepRuns.list(workspaceId, { states: ['running'], limit: 1 }))[0];
    if (running) throw alreadyRunning(running.id);
    const baseline = this.options.baseline();
    const config = this.options.config();
    const model = this.modelInfo();
    const refused = this.refusal(model.local);
    if (refused !== null) throw new EngineError('conflict', refused);
    const preset = request.preset ?? baseline.deep_run;
    const duration = request.duration_minutes ?? PRESET_OVERRIDES[preset].default_duration_minutes;
    const started = this.now();
    const minutes = Math.min(duration, config.compute.max_session_minutes);
    let row: DeepRunRow;
    try {
      row = await store.deepRuns.create({
        workspaceId,
        preset,
        bundle: baseline.id,
        settings: layerPreset(preset, baseline, config.exploration, model, this.priceOf(model)),
        durationMinutes: duration,
        costCapUsd: request.cost_cap_usd ?? DEFAULT_COST_CAP_USD[baseline.spend],
        startedAt: new Date(started),
        deadline: new Date(started + minutes * 60_000),
      });
    } catch (err) {
      // Two starts raced: the store's one-running-session index refused the second.
      if ((err as { code?: unknown }).code === 'store_duplicate') throw alreadyRunning('another start');
      throw err;
    }
    this.options.events?.emit({ type: 'deep_run.started', session: row.id, preset, deadline: row.deadline.toISOString() });
    this.drive(row.id);
    await this.options.enqueueStep({ session: row.id, step: row.nextStep });
    return this.view(row);
  }

  /** Stops the running session (or `id`, which must be running). */
  async stop(id?: string): Promise<DeepRunView> {
    const row = id === undefined ? (await this.options.store.deepRuns.list(this.options.workspaceId, { states: ['running'], limit: 1 }))[0] : await this.row(id);
    if (row === undefined) throw new EngineError('conflict', 'no Deep-Run session is running; start one with sous deep-run start');
    if (row.state !== 'running') throw new EngineError('conflict', `Deep-Run session ${row.id} already ended (${row.state}: ${row.stopDetail ?? row.stopReason ?? ''})`, { state: row.state });
    const ended = await this.end(row, { state: 'stopped', reason: 'stop', detail: 'stopped on request' });
    return this.view(ended ?? (await this.row(row.id)));
  }

  /** One session; without `id`, the running one, else the newest; null when there has been none. */
  async inspect(id?: string): Promise<DeepRunView | null> {
    if (id !== undefined) return this.view(await this.row(id));
    const { store, workspaceId } = this.options;
    const row = (await store.deepRuns.list(workspaceId, { states: ['running'], limit: 1 }))[0] ?? (await store.deepRuns.list(workspaceId, { limit: 1 }))[0];
    return row === undefined ? null : this.view(row);
  }

  /** Sessions, newest first. */
  async list(limit = 20): Promise<DeepRunView[]> {
    const rows = await this.options.store.deepRuns.list(this.options.workspaceId, { limit });
    return Promise.all(rows.map((r) => this.view(r)));
  }

  /** The body of a `deep_run.step` job. */
  runStep(payload: DeepRunStepPayload, signal: AbortSignal): Promise<DeepRunStepResult> {
    return runStep(this.host, payload, signal);
  }

  /**
   * After a (re)start of the daemon, before its queue starts (no step has been claimed by this
   * process yet): each session left running resumes with its next step, or ends. Resolves to the ids
   * resumed.
   */
  async resume(): Promise<string[]> {
    const { store, workspaceId } = this.options;
    const resumed: string[] = [];
    for (let row of await store.deepRuns.list(workspaceId, { states: ['running'], limit: 50 })) {
      if (row.runningStep !== null) {
        // Nothing is claimed here yet: a claim in this process's name is a previous process's with the same pid (a container).
        if (row.stepClaimedBy !== runnerId() && !this.claimLost(row)) {
          // Another live process runs the step and queues the next; the tick watches its claim.
          this.drive(row.id);
          continue;
        }
        row = (await store.deepRuns.interruptStep(row.id, row.runningStep)) ?? row;
      }
      if (this.now() >= row.deadline.getTime()) {
        await this.end(row, { state: 'finished', reason: 'daemon_restart', detail: `the daemon was down when its deadline (${row.deadline.toISOString()}) passed` });
        continue;
      }
      const limit = this.limit(row);
      if (limit !== null) {
        await this.end(row, limit);
        continue;
      }
      this.drive(row.id);
      await this.options.enqueueStep({ session: row.id, step: row.nextStep });
      resumed.push(row.id);
    }
    return resumed;
  }

  close(): void {
    this.closed = true;
    clearInterval(this.tick);
    for (const d of this.driven.values()) if (d.timer) clearTimeout(d.timer);
  }

  // ---- the runner's own parts ----

  private now(): number {
    return this.options.now ? this.options.now() : Date.now();
  }

  private limit(row: DeepRunRow): SessionEnd | null {
    return limitReached(row, this.now(), this.options.config().compute.max_session_minutes, this.options.paused());
  }

  private modelInfo(): { name: string; base_url: string; local: boolean } {
    const m = this.options.model();
    return { name: m.name, base_url: m.base_url, local: m.local };
  }

  private priceOf(model: { base_url: string; local: boolean }): Price {
    return this.options.price ? this.options.price(model) : defaultPrice(model);
  }

  /**
   * A hosted model is used only under a bundle whose posture allows the cloud (spec 1 invariant 4: an
   * explicit policy, never a silent fallback).
   */
  private refusal(local: boolean): string | null {
    const baseline = this.options.baseline();
    if (local || baseline.posture === 'hybrid' || baseline.posture === 'cloud_preferred') return null;
    const m = this.modelInfo();
    return `the model backend ${m.base_url} is hosted, and policy bundle ${baseline.id} (posture ${baseline.posture}) keeps work on this machine: point backend.base_url at a local runtime, or apply a hybrid bundle (sous setup apply hybrid_balanced)`;
  }

  private async row(id: string): Promise<DeepRunRow> {
    const row = await this.options.store.deepRuns.get(id);
    if (row === undefined || row.workspaceId !== this.options.workspaceId) {
      throw new EngineError('not_found', `no Deep-Run session ${JSON.stringify(id)} in this workspace; sous deep-run status lists the latest`);
    }
    return row;
  }

  private async view(row: DeepRunRow): Promise<DeepRunView> {
    const cards = await this.options.store.workProducts.byIds(this.options.workspaceId, row.produced);
    return deepRunView(row, cards, this.now());
  }

  private drive(id: string): Driven {
    let d = this.driven.get(id);
    if (d === undefined) this.driven.set(id, (d = {}));
    return d;
  }

  /** Stops driving a session here: its running step is aborted, its next step is not queued. */
  private forget(id: string): void {
    const d = this.driven.get(id);
    if (d === undefined) return;
    if (d.timer) clearTimeout(d.timer);
    d.controller?.abort(new Error('the Deep-Run session ended'));
    this.driven.delete(id);
  }

  private async end(row: DeepRunRow, end: SessionEnd): Promise<DeepRunRow | undefined> {
    const ended = await this.options.store.deepRuns.end(row.id, { ...end, at: new Date(this.now()) });
    if (ended) this.options.events?.emit({ type: 'deep_run.ended', session: row.id, state: end.state, reason: end.reason });
    this.forget(row.id);
    return ended;
  }

  private schedule(row: DeepRunRow): void {
    if (this.closed) return;
    const d = this.drive(row.id);
    if (d.timer) clearTimeout(d.timer);
    const gap = this.options.stepGapMs ?? row.settings.step_gap_seconds * 1000;
    d.timer = setTimeout(() => {
      delete d.timer;
      this.options.enqueueStep({ session: row.id, step: row.nextStep }).catch((err: unknown) => this.problem(`Deep-Run step ${row.nextStep} of ${row.id} not queued`, err));
    }, gap);
    d.timer.unref();
  }

  /** Ends driven sessions whose deadline passed or whose workspace was paused; forgets those ended elsewhere. */
  private async check(): Promise<void> {
    if (this.ticking || this.driven.size === 0) return;
    this.ticking = true;
    try {
      for (const id of [...this.driven.keys()]) {
        const row = await this.options.store.deepRuns.get(id);
        if (row === undefined || row.state !== 'running') {
          this.forget(id);
          continue;
        }
        const end = this.limit(row);
        if (end !== null) {
          await this.end(row, end);
          continue;
        }
        // A step claimed by a process that is gone: counted as interrupted, and the session goes on.
        const d = this.driven.get(id);
        if (row.runningStep !== null && d?.controller === undefined && row.stepClaimedBy !== runnerId() && this.claimLost(row)) {
          const after = await this.options.store.deepRuns.interruptStep(row.id, row.runningStep);
          if (after) this.schedule(after);
        }
      }
    } catch (err) {
      this.problem('checking Deep-Run sessions failed', err);
    } finally {
      this.ticking = false;
    }
  }

  /** Whether a claimed step's process is gone: this host's dead pid, or a claim older than any job may run. */
  private claimLost(row: DeepRunRow): boolean {
    const [host, pid] = (row.stepClaimedBy ?? '').split(/:(?=\d+$)/);
    if (host === os.hostname() && Number(pid) !== process.pid && !processAlive(Number(pid))) return true;
    const lease = this.options.config().compute.max_cycle_seconds * 1000 + CLAIM_GRACE_MS;
    return row.stepClaimedAt === null || this.now() - row.stepClaimedAt.getTime() > lease;
  }

  private assistFor(row: DeepRunRow, scope: () => MeterScope): { assist: ModelAssistHandle } | { reason: string } {
    const s = row.settings;
    if (s.llm_gate === 'never') return { reason: 'exploration.llm_gate is never' };
    const model = this.options.model();
    if (model.base_url !== s.model.base_url || model.name !== s.model.name) return { reason: 'the model backend changed since the session started' };
    const d = this.drive(row.id);
    const key = JSON.stringify([model.base_url, model.name]);
    if (d.assist?.key === key) {
      d.assist.scope.current = scope;
      return { assist: d.assist.assist };
    }
    try {
      const holder = { current: scope };
      const chat = meteredChat(model.chat(), () => holder.current());
      // One assist per session: it remembers which file versions it asked about, so steps go deeper, not round again.
      const assist = createModelAssist({ chat, gate: s.llm_gate, maxCalls: s.model_calls_per_step, model: model.name, passCaps: s.pass_caps });
      d.assist = { key, assist, scope: holder };
      return { assist };
    } catch (err) {
      return { reason: err instanceof Error ? err.message : String(err) };
    }
  }

  private problem(what: string, err: unknown): void {
    this.options.onProblem?.(`${what}: ${err instanceof Error ? err.message : String(err)}`);
  }
}

function alreadyRunning(id: string): EngineError {
  return new EngineError('conflict', `a Deep-Run session is already running (${id}); stop it first with sous deep-run stop`, { running: id });
}
