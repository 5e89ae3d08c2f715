import { sql } from 'drizzle-orm';
import { boolean, check, doublePrecision, index, integer, jsonb, pgTable, text, uniqueIndex } from 'drizzle-orm/pg-core';
import { idColumn, oneOf, timestamps, tstz } from './columns';
import { workspaces } from './workspaces';

/** Deep-Run presets (spec 4.7), layered on the policy bundle's baseline at session start. */
export const DEEP_RUN_PRESETS = ['conservative', 'balanced', 'aggressive'] as const;
export type DeepRunPresetId = (typeof DEEP_RUN_PRESETS)[number];

/**
 * Session states: `running` until one stop condition ends it as `finished` (a limit: duration, cost
 * cap, `compute.max_session_minutes`, or the deadline passed while the daemon was down), `stopped`
 * (the user's stop), `paused` (Auto Focus paused the workspace) or `failed` (an error). Only
 * `running` ever changes.
 */
export const DEEP_RUN_STATES = ['running', 'paused', 'stopped', 'finished', 'failed'] as const;
export type DeepRunState = (typeof DEEP_RUN_STATES)[number];

/** Why a session ended. */
export const DEEP_RUN_STOP_REASONS = ['duration', 'max_session_minutes', 'cost_cap', 'pause', 'stop', 'daemon_restart', 'error'] as const;
export type DeepRunStopReason = (typeof DEEP_RUN_STOP_REASONS)[number];

/**
 * The effective settings of a session: the preset layered on the bundle's baseline at start, and the
 * model and price it was started with. Kept as started: a later `sous setup apply` does not move them.
 */
export interface DeepRunSettings {
  /** Model calls one step may make (shared by its passes). */
  model_calls_per_step: number;
  /** Calls per pass within a step (research brief, draft rewrite, rationale, angle). */
  pass_caps: { brief: number; draft: number; rationale: number; angle: number };
  /** Hops from a step's seeds (`exploration.max_exploration_depth` deepened by the preset). */
  exploration_depth: number;
  /** Most files on a step's frontier (`exploration.frontier_max_size` scaled by the bundle's exploration ratio). */
  frontier_max_size: number;
  /** `exploration.llm_gate` for the session (the aggressive preset asks about every candidate). */
  llm_gate: 'non_trivial' | 'always' | 'never';
  /** Goals and predictions one step explores. */
  targets_per_step: number;
  /** Pause between two steps, seconds (the machine breathes; other jobs get the queue). */
  step_gap_seconds: number;
  /** The model the session talks to (`exploration.*` over `backend.*`), without credentials. */
  model: { name: string; base_url: string; local: boolean };
  /** US dollars per million tokens the spend is estimated with ($0 on a local backend). */
  price_per_million_usd: { input: number; output: number };
}

/** One long-horizon Deep-Run session (spec 1 invariant 6, 4.6, 4.7): a series of queued steps. */
export const deepRunSessions = pgTable(
  'deep_run_sessions',
  {
    id: idColumn(),
    workspaceId: text('workspace_id')
      .notNull()
      .references(() => workspaces.id, { onDelete: 'cascade' }),
    preset: text('preset').$type<DeepRunPresetId>().notNull(),
    /** The policy bundle whose baseline the preset was layered on. */
    bundle: text('bundle').notNull(),
    settings: jsonb('settings').$type<DeepRunSettings>().notNull(),
    /** As asked for, whole minutes. */
    durationMinutes: integer('duration_minutes').notNull(),
    /** US dollars of estimated hosted-model spend. */
    costCapUsd: doublePrecision('cost_cap_usd').notNull(),
    startedAt: tstz('started_at').notNull(),
    /** started_at + min(duration, compute.max_session_minutes at start). */
    deadline: tstz('deadline').notNull(),
    state: text('state').$type<DeepRunState>().notNull().default('running'),
    stopReason: text('stop_reason').$type<DeepRunStopReason>(),
    /** One line saying what ended it. */
    stopDetail: text('stop_detail'),
    endedAt: tstz('ended_at'),
    /** The step number the next claim takes; each number is claimed once, so no step runs twice. */
    nextStep: integer('next_step').notNull().default(1),
    /** The step being run, with when and by whom (`hostname:pid`) it was claimed; null between steps. */
    runningStep: integer('running_step'),
    stepClaimedAt: tstz('step_claimed_at'),
    stepClaimedBy: text('step_claimed_by'),
    stepsDone: integer('steps_done').notNull().default(0),
    /** Steps whose process stopped mid-step: counted, never run again. */
    stepsInterrupted: integer('steps_interrupted').notNull().default(0),
    modelCalls: integer('model_calls').notNull().default(0),
    promptTokens: integer('prompt_tokens').notNull().default(0),
    completionTokens: integer('completion_tokens').notNull().default(0),
    /** Whether any call's tokens were estimated from characters (the backend sent no `usage`). */
    tokensEstimated: boolean('tokens_estimated').notNull().default(false),
    spendUsd: doublePrecision('spend_usd').notNull().default(0),
    /** Ids of the work products the steps made or changed, oldest first (drafts for adopt or discard). */
    produced: jsonb('produced').$type<string[]>().notNull().default([]),
    ...timestamps(),
  },
  (t) => [
    check('deep_run_sessions_preset_check', oneOf(t.preset, DEEP_RUN_PRESETS)),
    check('deep_run_sessions_state_check', oneOf(t.state, DEEP_RUN_STATES)),
    check('deep_run_sessions_stop_reason_check', sql`${t.stopReason} IS NULL OR ${oneOf(t.stopReason, DEEP_RUN_STOP_REASONS)}`),
    check('deep_run_sessions_limits_check', sql`${t.durationMinutes} >= 1 AND ${t.costCapUsd} >= 0`),
    // At most one running session per workspace, enforced where two starts could race.
    uniqueIndex('deep_run_sessions_one_running_idx').on(t.workspaceId).where(sql`state = 'running'`),
    index('deep_run_sessions_workspace_idx').on(t.workspaceId, t.createdAt),
  ],
);

export type DeepRunRow = typeof deepRunSessions.$inferSelect;
