/**
 * A daemon's view of Auto Focus: it wires its own workspace in the registry, reports what it sees
 * there (file changes, MCP/proxy requests), and decides, from the shared registry, the running AI
 * clients and every daemon's reports, whether it may read and prepare. It notices user actions
 * (focus.json changing) within a second and re-detects clients every few seconds.
 */
import * as fs from 'node:fs';
import { detectClients, type ClientDetection } from './detect';
import { SUPPORTED_CLIENTS } from './clients';
import type { FocusRegistry, WorkspaceActivity } from './registry';
import { decideFocus, type FocusDecision, type WorkspaceFocus } from './rules';
import type { FocusAction, FocusActionResult } from './state';

/** How often running clients are listed again. */
export const DEFAULT_DETECT_INTERVAL_MS = 10_000;
/** How often focus.json is checked for user actions. */
export const DEFAULT_STATE_POLL_MS = 1000;
/** A report is written at most this often per kind (a save storm writes one). */
const REPORT_THROTTLE_MS = 5000;

export interface FocusMonitorOptions {
  registry: FocusRegistry;
  /** The daemon's own workspace root. */
  root: string;
  /** Client detection (default: the process list of this machine). */
  detect?: () => Promise<ClientDetection>;
  detectIntervalMs?: number;
  statePollMs?: number;
  /** Told when the own workspace's class changes (paused ↔ not paused matters most). */
  onChange?(own: WorkspaceFocus, decision: FocusDecision): void;
  /** Told when the registry cannot be read; the last good decision holds meanwhile. */
  onProblem?(message: string): void;
}

export class FocusMonitor {
  readonly id: string;
  private clients: ClientDetection = { clients: [], checked_at: new Date(0).toISOString(), method: 'not yet checked' };
  private current: FocusDecision | undefined;
  private report: WorkspaceActivity;
  private lastWrite = { file_change: 0, integration: 0 };
  private timers: NodeJS.Timeout[] = [];
  private stamp = '';

  constructor(private readonly options: FocusMonitorOptions) {
    this.id = options.registry.register(options.root);
    this.report = { root: options.root, ...(options.registry.activity()[this.id] ?? {}) };
  }

  /** First detection and decision, then the timers. */
  async start(): Promise<FocusDecision> {
    await this.detect();
    const decision = this.refresh();
    // Timers keep the last good decision when the registry cannot be read (a hand-edited focus.json).
    const detectTimer = setInterval(() => void this.detect().then(() => this.safely(() => this.refresh())), this.options.detectIntervalMs ?? DEFAULT_DETECT_INTERVAL_MS);
    const stateTimer = setInterval(() => {
      if (this.options.registry.stamp() !== this.stamp) this.safely(() => this.refresh());
    }, this.options.statePollMs ?? DEFAULT_STATE_POLL_MS);
    for (const t of [detectTimer, stateTimer]) t.unref();
    this.timers.push(detectTimer, stateTimer);
    return decision;
  }

  /** Why the last refresh failed (the last good decision still holds), or undefined. */
  problem(): string | undefined {
    return this.lastProblem;
  }

  private lastProblem: string | undefined;

  private safely(fn: () => void): void {
    try {
      fn();
      this.lastProblem = undefined;
    } catch (err) {
      this.lastProblem = err instanceof Error ? err.message : String(err);
      this.options.onProblem?.(this.lastProblem);
    }
  }

  stop(): void {
    for (const t of this.timers) clearInterval(t);
    this.timers = [];
  }

  /** Lists the running clients again and decides (a status request wants the present, not 10 s ago). */
  async recheck(): Promise<FocusDecision> {
    await this.detect();
    return this.refresh();
  }

  /** The latest decision (computed on demand before `start`). */
  decision(): FocusDecision {
    return this.current ?? this.refresh();
  }

  /** Whether the user pinned this workspace (the shared registry; false when it cannot be read). */
  pinned(): boolean {
    try {
      return this.options.registry.read().workspaces[this.id]?.pinned === true;
    } catch {
      return false;
    }
  }

  /** The own workspace's row of the latest decision. */
  own(): WorkspaceFocus {
    const row = this.decision().workspaces.find((w) => w.id === this.id);
    return row ?? { id: this.id, root: this.options.root, class: 'unknown', reason: 'Unknown: this workspace is not wired.', action: 'Action: restart the daemon.' };
  }

  mayRead(): boolean {
    return this.decision().may_read(this.id);
  }

  mayPrepare(): boolean {
    return this.decision().may_prepare(this.id);
  }

  /** The clients found by the last detection. */
  detection(): ClientDetection {
    return this.clients;
  }

  /** A user action, from any surface; the decision follows at once. */
  apply(action: FocusAction): FocusActionResult {
    const result = this.options.registry.apply(action);
    if (result.ok) this.refresh();
    return result;
  }

  /** A file of the own workspace changed (a signal from the index). */
  noteFileChange(at = new Date()): void {
    this.note('file_change', at);
  }

  /** An MCP or proxy request named the own workspace. */
  noteIntegration(at = new Date()): void {
    this.note('integration', at);
  }

  /** Reads the registry and reports again and decides; tells `onChange` when the own class moved. */
  refresh(): FocusDecision {
    const registry = this.options.registry;
    this.stamp = registry.stamp();
    const state = registry.read();
    const activity = registry.activity();
    activity[this.id] = this.report;
    const integrations: Record<string, string> = {};
    const recentChanges: Record<string, string> = {};
    for (const [id, a] of Object.entries(activity)) {
      if (a.last_integration) integrations[id] = a.last_integration;
      if (a.last_file_change) recentChanges[id] = a.last_file_change;
    }
    const missingRoots = new Set(Object.values(state.workspaces).map((w) => w.root).filter((root) => !fs.existsSync(root)));
    const before = this.current?.workspaces.find((w) => w.id === this.id)?.class;
    this.current = decideFocus({
      state,
      clients: this.clients.clients.map((c) => ({ id: c.id, name: c.name })),
      integrations,
      recentChanges,
      now: new Date(),
      missingRoots,
      checkedClients: SUPPORTED_CLIENTS.map((c) => c.name),
    });
    const own = this.own();
    if (before !== own.class) this.options.onChange?.(own, this.current);
    return this.current;
  }

  private async detect(): Promise<void> {
    this.clients = await (this.options.detect ?? (() => detectClients()))();
  }

  private note(kind: 'file_change' | 'integration', at: Date): void {
    const field = kind === 'file_change' ? 'last_file_change' : 'last_integration';
    const first = this.report[field] === undefined;
    this.report = { ...this.report, [field]: at.toISOString() };
    if (at.getTime() - this.lastWrite[kind] < REPORT_THROTTLE_MS) return;
    this.lastWrite[kind] = at.getTime();
    // Reports never fail the caller (a save, a context request): trouble is kept for /focus.
    this.safely(() => {
      this.options.registry.recordActivity(this.id, this.report);
      // The first activity can change the decision (it may make this workspace the only active one).
      if (first || kind === 'integration') this.refresh();
    });
  }
}
