/**
 * Deep-Run presets (spec 2.9, 4.7): `conservative`, `balanced` and `aggressive` are overrides layered
 * on the active policy bundle's baseline when a session starts. The preset sets how deep a step goes
 * (model calls, exploration hops, targets, pause between steps); the bundle scales it (drafting →
 * calls, exploration ratio → frontier and depth, persistence → targets per step). The result is
 * stored with the session, so a later bundle change does not move a running session.
 */
import type { DeepRunPresetId, DeepRunSettings } from '@sous/store';
import { DEFAULT_MODEL_CALLS_PER_CYCLE } from '../model/model-assist';
import { PASS_CAPS } from '../model/plan';

/** The bundle dimensions a session is layered on (a structural copy of @sous/setup's PolicyBundle). */
export interface BundleBaseline {
  id: string;
  posture: 'local_only' | 'local_preferred' | 'hybrid' | 'cloud_preferred';
  spend: 'zero' | 'low' | 'medium';
  drafting: number;
  explore: number;
  persist: number;
  /** The bundle's Deep-Run profile: the preset `sous deep-run start` uses when none is given. */
  deep_run: DeepRunPresetId;
}

/** What a preset overrides. */
export interface PresetOverrides {
  /** One line for `sous deep-run start --help`, the defaults answer and docs. */
  description: string;
  /** Model calls per step before the bundle's drafting multiplier. */
  model_calls: number;
  /** Hops added to `exploration.max_exploration_depth`. */
  depth_bonus: number;
  /** `always` asks the model about every candidate; `config` keeps `exploration.llm_gate`. */
  llm_gate: 'config' | 'always';
  /** Goals and predictions per step before the bundle's persistence multiplier. */
  targets: number;
  step_gap_seconds: number;
  /** `--duration` when none is given, minutes. */
  default_duration_minutes: number;
}

export const PRESET_OVERRIDES: Readonly<Record<DeepRunPresetId, Readonly<PresetOverrides>>> = {
  conservative: { description: 'few model calls per step, the configured depth, long pauses', model_calls: 4, depth_bonus: 0, llm_gate: 'config', targets: 1, step_gap_seconds: 120, default_duration_minutes: 60 },
  balanced: { description: 'twice the calls of a background cycle, one hop deeper', model_calls: 8, depth_bonus: 1, llm_gate: 'config', targets: 2, step_gap_seconds: 60, default_duration_minutes: 120 },
  aggressive: { description: 'many calls per step, two hops deeper, every candidate asked about', model_calls: 16, depth_bonus: 2, llm_gate: 'always', targets: 3, step_gap_seconds: 30, default_duration_minutes: 480 },
};

/** `--cost-cap` when none is given, by the bundle's spend profile (US dollars of estimated hosted-model spend). */
export const DEFAULT_COST_CAP_USD: Readonly<Record<BundleBaseline['spend'], number>> = { zero: 0, low: 1, medium: 5 };

/** Bounds of the flags: a week, and a thousand dollars. */
export const MAX_DURATION_MINUTES = 10_080;
export const MAX_COST_CAP_USD = 1_000;
/** The deepest a preset and bundle may take exploration. */
const MAX_DEPTH = 8;
const MIN_FRONTIER = 10;

/** The model and price a session is started with (from the daemon's backend settings). */
export interface SessionModel {
  name: string;
  base_url: string;
  local: boolean;
}

/** The preset layered on the bundle's baseline and the current exploration settings. */
export function layerPreset(
  preset: DeepRunPresetId,
  baseline: BundleBaseline,
  exploration: { max_exploration_depth: number; frontier_max_size: number; llm_gate: 'non_trivial' | 'always' | 'never' },
  model: SessionModel,
  price: { input: number; output: number },
): DeepRunSettings {
  const o = PRESET_OVERRIDES[preset];
  const calls = Math.max(1, Math.round(o.model_calls * baseline.drafting));
  // Each pass may take its share of a larger budget: the caps grow with it, in the same proportions.
  const factor = Math.max(1, Math.ceil(calls / DEFAULT_MODEL_CALLS_PER_CYCLE));
  return {
    model_calls_per_step: calls,
    pass_caps: { brief: PASS_CAPS.brief * factor, draft: PASS_CAPS.draft * factor, rationale: PASS_CAPS.rationale * factor, angle: PASS_CAPS.angle * factor },
    exploration_depth: Math.min(MAX_DEPTH, exploration.max_exploration_depth + o.depth_bonus + (baseline.explore >= 0.1 ? 1 : 0)),
    frontier_max_size: Math.max(MIN_FRONTIER, Math.round(exploration.frontier_max_size * (1 + baseline.explore))),
    // A gate of `never` is the user's word that no model is asked: no preset overrides it.
    llm_gate: exploration.llm_gate === 'never' ? 'never' : o.llm_gate === 'always' ? 'always' : exploration.llm_gate,
    targets_per_step: Math.max(1, Math.round(o.targets * baseline.persist)),
    step_gap_seconds: o.step_gap_seconds,
    model: { ...model },
    price_per_million_usd: { ...price },
  };
}
