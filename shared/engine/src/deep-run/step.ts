/**
 * One Deep-Run step, the body of a `deep_run.step` job: check the session may go on, claim the step
 * number (a number is claimed once, so a step never runs twice, also when a job is delivered again
 * after a restart), run one preparation cycle around the step's goals and predictions with the
 * model at the preset's depth behind the metered client, record what it spent and produced, then
 * end the session (cost cap, deadline, pause) or queue the next step after the preset's pause.
 * Cards land as every cycle's do: ready or candidate, for the user to adopt or dismiss; nothing is
 * applied, sent or written to the repository.
 */
import * as os from 'node:os';
import type { DeepRunRow, DeepRunStepTally, Store } from '@sous/store';
import { runCycle } from '../cycle/run-cycle';
import { defaultDetectors } from '../detectors';
import type { ModelAssistHandle } from '../model/model-assist';
import type { SessionEnd } from './limits';
import { CallHeld, type MeterScope } from './metered-chat';
import type { DeepRunsOptions } from './options';
import { SpendMeter } from './spend';
import { stepTargets } from './targets';

/** The payload of a `deep_run.step` job. */
export interface DeepRunStepPayload {
  session: string;
  /** 1-based; claimed once. */
  step: number;
}

/** What a step job resolves with (ids and numbers only). */
export interface DeepRunStepResult {
  session: string;
  step: number;
  /** `skipped`: not run (the session had ended, or the number was claimed before). */
  outcome: 'done' | 'skipped';
  reason?: string;
  calls?: number;
  spend_usd?: number;
  produced?: number;
  targets?: Array<{ kind: string; id: string }>;
  /** Set when this step ended the session. */
  ended?: string;
}

/** What a step needs of the session runner (deep-run/sessions.ts). */
export interface StepHost {
  readonly store: Store;
  readonly options: DeepRunsOptions;
  now(): number;
  /** The deadline or a pause, for a running row. */
  limit(row: DeepRunRow): SessionEnd | null;
  /** Tracks the running step's controller (a stop or limit aborts it); returns the release. */
  track(id: string, controller: AbortController): () => void;
  /** The session's model assist in this process, kept across steps, or why there is none. */
  assist(row: DeepRunRow, scope: () => MeterScope): { assist: ModelAssistHandle } | { reason: string };
  end(row: DeepRunRow, end: SessionEnd): Promise<DeepRunRow | undefined>;
  /** Queues step `row.nextStep` after the preset's pause. */
  schedule(row: DeepRunRow): void;
}

/** This process as a step's claimer (`hostname:pid`, as job runners are named). */
export function runnerId(): string {
  return `${os.hostname()}:${process.pid}`;
}

export async function runStep(host: StepHost, payload: DeepRunStepPayload, jobSignal: AbortSignal): Promise<DeepRunStepResult> {
  const { store, options } = host;
  const base = { session: payload.session, step: payload.step };
  const row = await store.deepRuns.get(payload.session);
  if (row === undefined || row.workspaceId !== options.workspaceId) return { ...base, outcome: 'skipped', reason: 'no such session in this workspace' };
  if (row.state !== 'running') return { ...base, outcome: 'skipped', reason: `the session is ${row.state}` };
  const limit = host.limit(row);
  if (limit !== null) {
    await host.end(row, limit);
    return { ...base, outcome: 'skipped', reason: limit.detail, ended: limit.reason };
  }
  const claimed = await store.deepRuns.claimStep(row.id, payload.step, runnerId(), new Date(host.now()));
  if (claimed === undefined) return { ...base, outcome: 'skipped', reason: 'this step was claimed before: a step never runs twice' };

  const controller = new AbortController();
  const onJobAbort = (): void => controller.abort(jobSignal.reason);
  jobSignal.addEventListener('abort', onJobAbort, { once: true });
  const release = host.track(row.id, controller);
  const meter = new SpendMeter(claimed.settings.price_per_million_usd, claimed.costCapUsd, claimed.spendUsd);
  // Before every model call: is the session still running (a stop from any process), within its limits?
  const guard = async (): Promise<void> => {
    const now = await store.deepRuns.get(row.id);
    const end = now === undefined || now.state !== 'running' ? null : host.limit(now);
    if (now?.state === 'running' && end === null) return;
    if (end !== null && now !== undefined) await host.end(now, end);
    controller.abort(new Error('the Deep-Run session ended'));
    throw new CallHeld('stop', 'the Deep-Run session ended');
  };
  let produced: string[] = [];
  let targets: Array<{ kind: string; id: string }> = [];
  let failure: string | undefined;
  try {
    const source = await options.view();
    if (!('refusal' in source)) {
      const s = claimed.settings;
      const picked = await stepTargets(store, options.workspaceId, payload.step, s.targets_per_step);
      targets = picked.map((t) => ({ kind: t.kind, id: t.id }));
      const model = host.assist(claimed, () => ({ meter, guard }));
      const config = options.config();
      const result = await runCycle({
        store,
        workspaceId: options.workspaceId,
        view: source,
        trigger: { kind: 'deep_run', ...(picked.length ? { paths: [...new Set(picked.flatMap((t) => t.paths))] } : {}) },
        config: { compute: config.compute, exploration: { ...config.exploration, max_exploration_depth: s.exploration_depth, frontier_max_size: s.frontier_max_size, llm_gate: s.llm_gate } },
        detectors: options.detectors ?? defaultDetectors(),
        signal: controller.signal,
        ...(options.events ? { events: options.events } : {}),
        ...('assist' in model ? { model: model.assist } : {}),
      });
      produced = result.produced;
    }
  } catch (err) {
    // A stop, a limit or the job's own timeout aborts the cycle: what landed before stays. Anything else fails the session.
    if (!controller.signal.aborted) failure = err instanceof Error ? (err.message.split('\n')[0] ?? 'failed') : String(err);
  } finally {
    jobSignal.removeEventListener('abort', onJobAbort);
    release();
  }
  const spent = meter.tally();
  const tally: DeepRunStepTally = { modelCalls: spent.calls, promptTokens: spent.promptTokens, completionTokens: spent.completionTokens, tokensEstimated: spent.estimated, spendUsd: spent.spendUsd, produced };
  const after = (await store.deepRuns.finishStep(row.id, payload.step, tally)) ?? (await store.deepRuns.get(row.id));
  options.events?.emit({ type: 'deep_run.step', session: row.id, step: payload.step, calls: spent.calls, spend_usd: spent.spendUsd, produced: produced.length });
  const done: DeepRunStepResult = { ...base, outcome: 'done', calls: spent.calls, spend_usd: spent.spendUsd, produced: produced.length, targets };
  if (after === undefined || after.state !== 'running') return done;
  const end: SessionEnd | null = failure !== undefined
    ? { state: 'failed', reason: 'error', detail: `step ${payload.step} failed: ${failure}` }
    : meter.refused()
      ? { state: 'finished', reason: 'cost_cap', detail: `the next model call could take the estimated spend past the cap of $${after.costCapUsd}` }
      : host.limit(after);
  if (end !== null) {
    await host.end(after, end);
    return { ...done, ended: end.reason };
  }
  host.schedule(after);
  return done;
}
