/**
 * The daemon's side of Deep-Run (docs/deep-run.md): the `deep_run.step` job and the runner from
 * @sous/engine, wired to this daemon's store, queue, index, Auto Focus, active bundle and model
 * backend. The engine owns the sessions; this file only connects them.
 */
import Joi from 'joi';
import type { SousConfig } from '@sous/config';
import { DEEP_RUN_STEP_JOB, DeepRuns, createRepositoryView, type BundleBaseline, type DeepRunStepPayload, type DeepRunsOptions, type EngineEvents } from '@sous/engine';
import { createChatClient, isLocalBackendUrl, safeUrl } from '@sous/backend';
import type { FocusMonitor } from '@sous/focus';
import type { JobQueue } from '@sous/jobs';
import type { Logger } from '@sous/logging';
import { getBundle, isBundleId } from '@sous/setup';
import type { Store } from '@sous/store';
import { explorationTarget } from './preparation';
import type { DaemonIndex } from './repository-index';

/** Seams tests set (a clock, short pauses, a price for the fake backend); production uses the defaults. */
export type DeepRunTuning = Pick<DeepRunsOptions, 'now' | 'stepGapMs' | 'tickMs' | 'price'>;

const stepPayload = Joi.object({
  session: Joi.string().max(200).required(),
  step: Joi.number().integer().min(1).required(),
});

/** The active bundle's dimensions a session is layered on (an unknown id reads as the default bundle). */
export function bundleBaseline(config: SousConfig): BundleBaseline {
  const b = getBundle(isBundleId(config.policy.bundle) ? config.policy.bundle : 'local_balanced');
  return { id: b.id, posture: b.posture, spend: b.spend, drafting: b.drafting, explore: b.explore, persist: b.persist, deep_run: b.deep_run };
}

export function startDeepRuns(options: {
  store: Store;
  queue: JobQueue;
  index: DaemonIndex;
  workspaceId: string;
  config: () => SousConfig;
  focus: FocusMonitor;
  events: EngineEvents;
  logger: Logger;
  tuning?: DeepRunTuning;
}): DeepRuns {
  const { store, queue, index, config, focus, logger } = options;
  const runs = new DeepRuns({
    store,
    workspaceId: options.workspaceId,
    config,
    baseline: () => bundleBaseline(config()),
    model: () => {
      const target = explorationTarget(config());
      return { name: target.model, base_url: safeUrl(target.baseUrl), local: isLocalBackendUrl(target.baseUrl), chat: () => createChatClient(target) };
    },
    view: async () => {
      const source = await index.jobReader();
      return 'refusal' in source ? source : createRepositoryView(source.reader, index.policy());
    },
    // A paused workspace gets no reasoning at all (spec 1); other focus classes do not stop a session the user started.
    paused: () => {
      const own = focus.own();
      return own.class === 'paused' ? own.reason : null;
    },
    enqueueStep: async (payload) => {
      await queue.enqueue(DEEP_RUN_STEP_JOB, payload);
    },
    events: options.events,
    onProblem: (message) => logger.warn({ error: message }, 'deep-run problem'),
    ...options.tuning,
  });
  queue.register<DeepRunStepPayload>(DEEP_RUN_STEP_JOB, async (payload, job) => {
    const result = await runs.runStep(payload, job.signal);
    logger.info({ session: result.session, step: result.step, outcome: result.outcome, calls: result.calls, spend_usd: result.spend_usd, produced: result.produced, ended: result.ended }, 'deep-run step');
    return result;
  }, { payload: stepPayload });
  return runs;
}
