/**
 * What the Deep-Run runner is given by its host (the daemon): the store, the settings it reads on
 * each use, the repository view, Auto Focus, the model and the job queue. The clock, the pause
 * between steps, the check interval and the price are seams with sensible defaults (tests pass
 * short ones; nothing is mocked).
 */
import type { SousConfig } from '@sous/config';
import type { Store } from '@sous/store';
import type { Detector } from '../detectors/types';
import type { EngineEvents } from '../events/engine-events';
import type { RepositoryView } from '../view/repository-view';
import type { UsageChatClient } from './metered-chat';
import type { BundleBaseline } from './presets';
import type { Price } from './spend';
import type { DeepRunStepPayload } from './step';

/** The job that runs one step. */
export const DEEP_RUN_STEP_JOB = 'deep_run.step';
/** How often running sessions are checked against their deadline, a pause and a stop from elsewhere. */
export const DEFAULT_TICK_MS = 1_000;

/** The model a session would talk to now: `exploration.*` over `backend.*`. */
export interface DeepRunModel {
  name: string;
  /** Without credentials. */
  base_url: string;
  /** On this machine or the private network ($0, allowed under every posture). */
  local: boolean;
  /** A client for it; throws a one-line error when there can be none (a missing key). */
  chat(): UsageChatClient;
}

export interface DeepRunsOptions {
  store: Store;
  workspaceId: string;
  /** The current (hot-reloaded) settings. */
  config(): Pick<SousConfig, 'compute' | 'exploration'>;
  /** The active policy bundle's dimensions. */
  baseline(): BundleBaseline;
  model(): DeepRunModel;
  /** The repository as a step reads it, or why it cannot be read now. */
  view(): Promise<RepositoryView | { refusal: string }>;
  /** Why Auto Focus holds the workspace paused, or null. */
  paused(): string | null;
  /** Queues one step job (`DEEP_RUN_STEP_JOB`). */
  enqueueStep(payload: DeepRunStepPayload): Promise<void>;
  /** Default: `defaultDetectors()`. */
  detectors?: readonly Detector[];
  events?: EngineEvents;
  /** Told about trouble no caller sees (a step not queued, a check that failed). */
  onProblem?(message: string): void;
  /** Milliseconds since the epoch. Default `Date.now`. */
  now?(): number;
  /** Pause between steps, ms. Default: the preset's `step_gap_seconds`. */
  stepGapMs?: number;
  /** Default `DEFAULT_TICK_MS`. */
  tickMs?: number;
  /** The price of a model. Default: $0 local, HOSTED_PRICE_PER_MILLION_USD otherwise. */
  price?(model: { base_url: string; local: boolean }): Price;
}
