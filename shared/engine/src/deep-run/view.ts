/**
 * A Deep-Run session on the wire (HTTP, MCP, CLI `--json`; docs/deep-run.md): progress, spend with
 * the estimate's method, the limits and which one binds, and what the steps produced (the cards, with
 * their current state: candidates and ready drafts wait for adopt or dismiss).
 */
import type { DeepRunRow, DeepRunSettings, DeepRunState, DeepRunStopReason, WorkProductRow } from '@sous/store';
import { SPEND_METHOD } from './spend';

/** The units of the two flags, said wherever the numbers are shown. */
export const DEEP_RUN_UNITS = { duration: 'minutes', cost_cap: 'US dollars of estimated hosted-model spend' } as const;

/** Produced cards listed in a view (the rest are counted). */
export const PRODUCED_LISTED = 50;

export interface ProducedCard {
  id: string;
  kind: string;
  state: string;
  title: string;
}

export interface DeepRunView {
  id: string;
  state: DeepRunState;
  preset: string;
  bundle: string;
  started_at: string;
  ended_at: string | null;
  /** As asked for (minutes) and the cap (US dollars). */
  duration_minutes: number;
  cost_cap_usd: number;
  /** When the session stops at the latest, and which limit sets that time. */
  deadline: string;
  deadline_by: 'duration' | 'max_session_minutes';
  stop_reason: DeepRunStopReason | null;
  stop_detail: string | null;
  progress: {
    steps_done: number;
    steps_interrupted: number;
    /** The step being run now, or null between steps. */
    running_step: number | null;
    elapsed_minutes: number;
    remaining_minutes: number;
  };
  model: { name: string; base_url: string; local: boolean; calls: number; prompt_tokens: number; completion_tokens: number; tokens_estimated: boolean };
  spend: { estimated_usd: number; cap_usd: number; remaining_usd: number; price_per_million_usd: { input: number; output: number }; method: string };
  settings: DeepRunSettings;
  produced: { count: number; by_state: Record<string, number>; cards: ProducedCard[] };
  units: typeof DEEP_RUN_UNITS;
  /** Nothing ships, sends or commits: what was produced waits for adopt or dismiss (spec 1 invariant 6). */
  note: string;
}

/** Minutes, to a tenth. */
function minutes(ms: number): number {
  return Math.round(Math.max(0, ms) / 6_000) / 10;
}

function dollars(n: number): number {
  return Math.round(n * 1e6) / 1e6;
}

/** Which limit set the deadline: the duration asked for, or `compute.max_session_minutes` that cut it short. */
export function deadlineBy(row: Pick<DeepRunRow, 'startedAt' | 'deadline' | 'durationMinutes'>): 'duration' | 'max_session_minutes' {
  return row.deadline.getTime() - row.startedAt.getTime() < row.durationMinutes * 60_000 ? 'max_session_minutes' : 'duration';
}

/** `cards`: the produced work products as they are now (missing ones were deleted by `sous forget`). */
export function deepRunView(row: DeepRunRow, cards: readonly WorkProductRow[], nowMs: number): DeepRunView {
  const byId = new Map(cards.map((c) => [c.id, c]));
  const produced = row.produced.flatMap((id) => {
    const c = byId.get(id);
    return c ? [{ id, kind: c.kind, state: c.state, title: c.title }] : [];
  });
  const byState: Record<string, number> = {};
  for (const c of produced) byState[c.state] = (byState[c.state] ?? 0) + 1;
  const end = row.endedAt?.getTime() ?? nowMs;
  const s = row.settings;
  return {
    id: row.id,
    state: row.state,
    preset: row.preset,
    bundle: row.bundle,
    started_at: row.startedAt.toISOString(),
    ended_at: row.endedAt?.toISOString() ?? null,
    duration_minutes: row.durationMinutes,
    cost_cap_usd: row.costCapUsd,
    deadline: row.deadline.toISOString(),
    deadline_by: deadlineBy(row),
    stop_reason: row.stopReason ?? null,
    stop_detail: row.stopDetail ?? null,
    progress: {
      steps_done: row.stepsDone,
      steps_interrupted: row.stepsInterrupted,
      running_step: row.runningStep ?? null,
      elapsed_minutes: minutes(end - row.startedAt.getTime()),
      remaining_minutes: row.state === 'running' ? minutes(row.deadline.getTime() - nowMs) : 0,
    },
    model: { ...s.model, calls: row.modelCalls, prompt_tokens: row.promptTokens, completion_tokens: row.completionTokens, tokens_estimated: row.tokensEstimated },
    spend: {
      estimated_usd: dollars(row.spendUsd),
      cap_usd: row.costCapUsd,
      remaining_usd: dollars(Math.max(0, row.costCapUsd - row.spendUsd)),
      price_per_million_usd: { ...s.price_per_million_usd },
      method: SPEND_METHOD,
    },
    settings: s,
    // Newest first: the latest drafts are what a reader looks for.
    produced: { count: produced.length, by_state: byState, cards: produced.slice(-PRODUCED_LISTED).reverse() },
    units: DEEP_RUN_UNITS,
    note: 'Deep-Run prepares only: its drafts wait as cards for you to adopt or dismiss; nothing is applied, sent or committed.',
  };
}
