/**
 * The daemon's side of preparation: the `prepare.cycle` job, the scheduler that turns index signals
 * into cycles, staleness on every signal, and the PreparedWork service the routes serve. The
 * engine itself lives in @sous/engine; this file only wires it to the daemon's index, store and queue.
 */
import Joi from 'joi';
import type { SousConfig } from '@sous/config';
import {
  CycleScheduler,
  EngineEvents,
  Goals,
  PreparedWork,
  Predictions,
  Resolver,
  Skills,
  createRepositoryView,
  currentHash,
  defaultDetectors,
  idleRefusal,
  sessionRefusal,
  markStale,
  readCommitNames,
  runCycle,
  createModelAssist,
  type CycleTrigger,
  type CycleTriggerKind,
  type ModelAssistHandle,
  type IntentPolicy,
  type SkillLoopReport,
} from '@sous/engine';
import { getBundle, isBundleId } from '@sous/setup';
import { backendTargetFromConfig, createChatClient, isLocalBackendUrl, isLoopbackBackendUrl, type BackendTarget } from '@sous/backend';
import { whenFinished, type JobInfo, type JobQueue } from '@sous/jobs';
import type { Logger } from '@sous/logging';
import type { IndexSignal } from '@sous/retrieval';
import type { Store } from '@sous/store';
import type { FocusMonitor } from '@sous/focus';
import type { BackendMonitor } from './backend-monitor';
import type { DaemonIndex } from './repository-index';

export const CYCLE_JOB = 'prepare.cycle';
const TRIGGERS: CycleTriggerKind[] = ['file_change', 'commit', 'uncommitted', 'goal', 'warm', 'start'];

const cyclePayload = Joi.object({
  trigger: Joi.string().valid(...TRIGGERS).required(),
  paths: Joi.array().items(Joi.string().max(4096)).max(500),
  /** Run even when the system is busy (an explicit warm request is not background work). */
  force: Joi.boolean().default(false),
  /** The enqueuer's last activity (ms since the epoch): the session limit of a cycle run by another process. */
  activity: Joi.number().integer().min(0),
});

interface CyclePayload {
  trigger: CycleTriggerKind;
  paths?: string[];
  force: boolean;
  activity?: number;
}

/** What a cycle job resolves with (the watcher reads it when another process ran the cycle). */
interface CycleJobResult {
  deferred?: string;
  /** Deferred for a reason that passes (load, Auto Focus, the index): ask again later. */
  retry?: boolean;
  cycle?: string;
  duration_ms?: number;
  frontier?: number;
  candidates?: number;
  ready?: number;
  landed?: number;
  /** The skills loop's run before this cycle (docs/skills.md#the-skills-loop). */
  skills_loop?: SkillLoopReport;
}

export interface Preparation {
  events: EngineEvents;
  work: PreparedWork;
  /** Workspace goals, reconciled on every signal. */
  goals: Goals;
  /** The prediction registry (spec 2.4), invalidated on every signal and refreshed after each cycle. */
  predictions: Predictions;
  /** `sous.resolve` (spec 2.5): prompt to briefing, served from a ready prediction when it matches. */
  resolver: Resolver;
  /** Skills (docs/skills.md): discovered before each cycle and on config changes, weighed by the skills loop. */
  skills: Skills;
  /** The configuration changed: what depends on it outside cycles (skill roots, zones) is read again. */
  configChanged(): void;
  /** An active goal names these files: a cycle around them comes first (trigger `goal`). */
  prioritise(paths: string[]): void;
  /** Called by the index after each recorded signal. */
  signal(signal: IndexSignal): void;
  /** What `/status` says about preparation. */
  status(): PreparationStatus;
  /** An explicit warm request: queues a cycle now, regardless of CPU load. */
  warm(paths?: string[]): Promise<{ id: string; state: string }>;
  close(): void;
}

export interface PreparationStatus {
  /** `frontier`: how many files the cycle's frontier held (exploration.frontier_max_size bounds it). */
  last_cycle: { id: string; trigger: string; finished_at: string; duration_ms: number; frontier: number; candidates: number; ready: number; landed: number } | null;
  /** Why the last background cycle did not run (CPU load), until one runs. */
  deferred: string | null;
  /** Whether the model takes part in cycles, and why not when it does not. */
  model: { mode: 'model' | 'heuristic'; reason: string };
}

/**
 * The active bundle's dimensions the intent engine reads (docs/predictions.md#policy-bundle): goal
 * weighting, drafting (prediction style) and the context-injection default. Read on every use, so
 * `sous setup apply` acts on the next call.
 */
export function intentPolicy(config: SousConfig): IntentPolicy {
  const bundle = getBundle(isBundleId(config.policy.bundle) ? config.policy.bundle : 'local_balanced');
  return { goalWeighting: bundle.goal_weighting, drafting: bundle.drafting, contextInjection: bundle.context_injection };
}

/** The model exploration uses: `backend.*`, with `exploration.endpoint` / `exploration.model` when set. */
export function explorationTarget(config: SousConfig): BackendTarget {
  const base = backendTargetFromConfig(config);
  return {
    ...base,
    ...(config.exploration.endpoint ? { baseUrl: config.exploration.endpoint } : {}),
    ...(config.exploration.model ? { model: config.exploration.model } : {}),
  };
}

export function startPreparation(options: {
  store: Store;
  queue: JobQueue;
  index: DaemonIndex;
  workspaceId: string;
  root: string;
  config: () => SousConfig;
  backend: BackendMonitor;
  focus: FocusMonitor;
  logger: Logger;
}): Preparation {
  const { store, queue, index, workspaceId, root, logger } = options;
  const events = new EngineEvents();
  // A background session lasts compute.max_session_minutes after the last activity (a save, a commit,
  // the daemon's start); past it, background cycles wait for the next change instead of retrying.
  let lastActivity = Date.now();
  const state: PreparationStatus = { last_cycle: null, deferred: null, model: { mode: 'heuristic', reason: 'no cycle has run yet' } };
  // One assist per backend target and gate, kept across cycles: it remembers which files it asked about.
  let assistFor: { key: string; assist: ModelAssistHandle } | undefined;
  /**
   * The model's part in a cycle, or why there is none: never with `exploration.llm_gate = never`, nor
   * while the backend probe says it is unreachable (heuristic cards only; nothing breaks).
   */
  const modelFor = (config: SousConfig): { assist?: ModelAssistHandle; reason: string; loopback?: boolean } => {
    if (config.exploration.llm_gate === 'never') return { reason: 'exploration.llm_gate is never: heuristic cards only' };
    const probe = options.backend.latest();
    if (probe !== undefined && !probe.reachable && !config.exploration.endpoint) {
      return { reason: `backend not reachable (${probe.error ?? 'no answer'}): heuristic cards only` };
    }
    try {
      const target = explorationTarget(config);
      if (!isLocalBackendUrl(target.baseUrl)) {
        return { reason: `backend ${target.baseUrl} is not on this machine or the private network; background preparation never runs in the cloud: heuristic cards only` };
      }
      const key = JSON.stringify([target.name, target.baseUrl, target.model, target.apiKeyEnv, config.exploration.llm_gate]);
      if (assistFor?.key !== key) {
        const chat = createChatClient(target);
        assistFor = { key, assist: createModelAssist({ chat, gate: config.exploration.llm_gate, model: target.model }) };
      }
      return { assist: assistFor.assist, reason: `model ${target.model} at ${target.baseUrl}`, loopback: isLoopbackBackendUrl(target.baseUrl) };
    } catch (err) {
      return { reason: `${err instanceof Error ? err.message : String(err)}: heuristic cards only` };
    }
  };
  const indexedHash = async (path: string): Promise<string | null> => index.live.reader().file(path)?.sha256 ?? null;
  const skills = new Skills({ store, workspaceId, root, config: () => options.config(), mayRead: () => options.focus.mayRead() });
  const work = new PreparedWork({
    store,
    workspaceId,
    policy: () => index.policy(),
    indexedHash,
    diskHash: (path) => currentHash(root, index.policy(), path),
    events,
    cap: () => options.config().exploration.max_ready_cards,
    skills: () => skills.current(),
  });
  const brief = async (prompt: string) => {
    if (!options.focus.mayRead() || index.live.status().state !== 'ready') return null;
    // Where and why only: the snippet text stays in the index, which serves it redacted on request.
    const items = index.live.query(prompt, { topN: 8 }).items.map((i) => ({
      path: i.path,
      score: i.score,
      rationale: i.rationale.map((r) => r.detail),
      lines: { start: i.snippet.startLine, end: i.snippet.endLine },
    }));
    return { items };
  };
  const goals = new Goals({ store, workspaceId, hashOf: (path) => currentHash(root, index.policy(), path), mayRead: () => options.focus.mayRead() });
  const predictions = new Predictions({
    store,
    workspaceId,
    hashOf: (path) => currentHash(root, index.policy(), path),
    mayRead: () => options.focus.mayRead(),
    commits: () => readCommitNames(root, (path) => index.policy().inScope(path)),
    refinement: () => ({ enabled: options.config().refinement.enabled, confirmSeconds: options.config().refinement.adoption_pending_confirm_seconds }),
    policy: () => intentPolicy(options.config()),
    brief,
  });
  const resolver = new Resolver({
    store,
    workspaceId,
    brief,
    predictions: () => predictions.active(),
    candidates: (adopted) => predictions.candidates(adopted),
    readyCards: async () => (await work.feed()).cards,
    policy: () => intentPolicy(options.config()),
    categoryShift: (shift) => predictions.categoryShift(shift),
    feedbackRecorded: () => predictions.history(),
    skills: () => skills.current(),
  });
  const logFailure = (what: string) => (err: unknown) => logger.warn({ error: err instanceof Error ? err.message : String(err) }, what);
  // Cycles this process ran, and the waits for cycles it queued (any process may run them: docs/jobs.md, "Scale-out").
  const ranHere = new Set<string>();
  const waits = new AbortController();
  /** A cycle this process queued ended, wherever it ran: the scheduler may queue the next one. */
  const ended = (info: JobInfo | undefined, trigger: CycleTrigger): void => {
    const result = (info?.state === 'completed' ? info.result : undefined) as CycleJobResult | undefined;
    if (waits.signal.aborted) return;
    if (result?.retry) scheduler.retryLater(trigger);
    else scheduler.cycleEnded();
    if (info === undefined || ranHere.delete(info.id) || result?.cycle === undefined) return;
    // Another process ran it: its outcome becomes this watcher's status, and its cards may feed predictions.
    state.deferred = null;
    state.last_cycle = { id: result.cycle, trigger: trigger.kind, finished_at: info.finishedAt ?? new Date().toISOString(), duration_ms: result.duration_ms ?? 0, frontier: result.frontier ?? 0, candidates: result.candidates ?? 0, ready: result.ready ?? 0, landed: result.landed ?? 0 };
    predictions.refresh().catch(logFailure('refreshing predictions failed'));
  };
  const enqueue = async (trigger: CycleTrigger, force = false): Promise<{ id: string; state: string }> => {
    const job = await queue.enqueue(CYCLE_JOB, { trigger: trigger.kind, ...(trigger.paths?.length ? { paths: trigger.paths } : {}), force, activity: lastActivity });
    void whenFinished(queue, job.id, { signal: waits.signal }).then((info) => ended(info, trigger));
    return { id: job.id, state: job.state };
  };
  const scheduler = new CycleScheduler({
    enqueue: async (trigger) => {
      await enqueue(trigger);
    },
    onError: (err) => logger.warn({ error: err.message }, 'preparation cycle not queued'),
  });

  queue.register<CyclePayload>(
    CYCLE_JOB,
    async (payload, job): Promise<CycleJobResult> => {
      const trigger: CycleTrigger = { kind: payload.trigger, ...(payload.paths ? { paths: payload.paths } : {}) };
      ranHere.add(job.jobId);
      // Jobs queued by other processes are never looked up here: keep only the newest.
      if (ranHere.size > 1000) ranHere.delete(ranHere.values().next().value as string);
      // Auto Focus before anything is read: a paused workspace gets no reasoning at all, and
      // background cycles run only for the selected workspace (an explicit warm request may run
      // on any workspace that is not paused).
      const own = options.focus.own();
      const focusRefusal = own.class === 'paused' || (!payload.force && !options.focus.mayPrepare()) ? `${own.reason} ${own.action}` : null;
      const config = options.config();
      // The watcher's live index, or the stored one in a process that does not watch.
      const source = focusRefusal === null ? await index.jobReader() : undefined;
      // The `background` preset means idle cycles only, whatever idle_only says.
      const idle = { ...config.compute, idle_only: config.compute.idle_only || config.compute.preset === 'background' };
      const sessionOver = payload.force ? null : sessionRefusal(payload.activity ?? lastActivity, Date.now(), config.compute.max_session_minutes);
      if (focusRefusal === null && sessionOver !== null) {
        const reason = sessionOver;
        state.deferred = reason;
        events.emit({ type: 'cycle.deferred', trigger: trigger.kind, reason });
        return { deferred: reason };
      }
      const refusal = focusRefusal ?? (source && 'refusal' in source ? source.refusal : null) ?? (payload.force ? null : await idleRefusal(idle));
      if (refusal !== null || source === undefined || 'refusal' in source) {
        const reason = refusal ?? 'the index is not readable';
        events.emit({ type: 'cycle.deferred', trigger: trigger.kind, reason });
        state.deferred = reason;
        // The process that queued it asks again later (ended() above).
        return { deferred: reason, retry: true };
      }
      const view = createRepositoryView(source.reader, index.policy());
      const model = modelFor(config);
      // Skills before the cycle: roots read again, then the loop's share of feedback (at most the per-cycle cap).
      const loop = await skills
        .refresh()
        .then(() => skills.learn())
        .catch((err: unknown) => {
          logFailure('the skills loop failed; this cycle ranks skills by their last weights')(err);
          return undefined;
        });
      const cycleSkills = { ranker: skills.current(), modelOnLoopback: model.loopback === true };
      const result = await runCycle({ store, workspaceId, view, trigger, config, detectors: defaultDetectors(), signal: job.signal, events, skills: cycleSkills, ...(model.assist ? { model: model.assist } : {}) });
      const modelError = model.assist?.lastError();
      state.model = model.assist && !modelError ? { mode: 'model', reason: model.reason } : { mode: 'heuristic', reason: modelError ? `the model failed (${modelError}): heuristic cards only` : model.reason };
      state.deferred = null;
      state.last_cycle = { id: result.id, trigger: result.trigger, finished_at: new Date().toISOString(), duration_ms: result.duration_ms, frontier: result.frontier, candidates: result.candidates, ready: result.ready.length, landed: result.landed };
      // The registry survives cycles: a cycle only fills briefings still drafting and seeds new goals.
      await predictions.refresh().catch(logFailure('refreshing predictions failed'));
      logger.info({ cycle: result.id, trigger: result.trigger, ms: result.duration_ms, candidates: result.candidates, ready: result.ready.length, landed: result.landed, stale: result.stale }, 'preparation cycle finished');
      return { cycle: result.id, duration_ms: result.duration_ms, frontier: result.frontier, candidates: result.candidates, ready: result.ready.length, landed: result.landed, held: result.held, superseded: result.superseded, stale: result.stale, detectors: result.detectors, ...(loop ? { skills_loop: loop } : {}) } as CycleJobResult;
    },
    { payload: cyclePayload },
  );

  // The first cycle after start: uncommitted work and the latest commits are the freshest activity.
  void index.ready.then(() => scheduler.request({ kind: 'start' }));
  // Files may have changed while the daemon was down: reconcile every active goal once at start.
  void index.ready.then(() => goals.reconcile('all')).catch((err: unknown) =>
    logger.warn({ error: err instanceof Error ? err.message : String(err) }, 'reconciling goals at start failed'),
  );

  // Files may have changed while the daemon was down: compare every live prediction's evidence once at start.
  void index.ready.then(() => predictions.signal('file_change', 'all')).catch(logFailure('checking predictions at start failed'));
  // Recurring kinds of change (the pattern source) from the newest commits; each commit signal re-reads them.
  void index.ready.then(() => predictions.patterns()).catch(logFailure('reading commit patterns failed'));
  // Past requests and their feedback (the history source), from the stored resolutions.
  void index.ready.then(() => predictions.history()).catch(logFailure('reading resolution history failed'));
  // Skills known before the first cycle, so that resolve can name them at once.
  void index.ready.then(() => skills.refresh()).catch(logFailure('discovering skills failed'));

  return {
    events,
    work,
    predictions,
    resolver,
    skills,
    configChanged() {
      skills.refresh().catch(logFailure('discovering skills failed'));
    },
    signal(signal) {
      lastActivity = Date.now();
      const paths = signal.kind === 'file_change' ? signal.paths : 'all';
      // Staleness first and at once: a changed target must block export within a second, before any cycle.
      markStale({ store, workspaceId, events }, paths, indexedHash).catch((err: unknown) =>
        logger.warn({ error: err instanceof Error ? err.message : String(err) }, 'marking stale cards failed'),
      );
      goals.reconcile(paths).catch((err: unknown) =>
        logger.warn({ error: err instanceof Error ? err.message : String(err) }, 'reconciling goals failed'),
      );
      predictions.signal(signal.kind, paths).catch(logFailure('invalidating predictions failed'));
      scheduler.request(signal.kind === 'file_change' ? { kind: 'file_change', paths: signal.paths } : { kind: 'commit' });
    },
    goals,
    prioritise(paths) {
      if (paths.length > 0) scheduler.request({ kind: 'goal', paths });
    },
    status: () => ({ ...state }),
    warm: (paths) => enqueue({ kind: 'warm', ...(paths?.length ? { paths } : {}) }, true),
    close: () => {
      waits.abort();
      scheduler.close();
    },
  };
}
