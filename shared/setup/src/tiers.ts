/** Hardware tiers (spec 2.10): four rules evaluated in order, and what each tier changes. */
import { DISCRETE_GPU_KINDS, type HardwareSnapshot } from './snapshot';

export type Tier = 'unknown' | 'light' | 'capable' | 'high_performance';

/** Runtime profile size a bundle or tier asks for. */
export type RuntimeProfile = 'small' | 'medium' | 'large';

export type DeepRunPreset = 'conservative' | 'balanced' | 'aggressive';

export interface TierEffects {
  runtime_profile: RuntimeProfile;
  /** Upper bound of one preparation cycle, seconds (shipped default 300). */
  max_cycle_seconds: number;
  /** Preparation jobs run at once. */
  concurrency: number;
  deep_run_preset: DeepRunPreset;
  /** One line for humans. */
  summary: string;
}

/** Per-tier effects. `capable` keeps the shipped defaults; the others scale cycles and concurrency. */
export const TIER_EFFECTS: Readonly<Record<Tier, TierEffects>> = {
  unknown: {
    runtime_profile: 'small',
    max_cycle_seconds: 120,
    concurrency: 1,
    deep_run_preset: 'conservative',
    summary: 'untrusted hardware: small runtime, short cycles, one job at a time',
  },
  light: {
    runtime_profile: 'small',
    max_cycle_seconds: 120,
    concurrency: 1,
    deep_run_preset: 'conservative',
    summary: 'small runtime, shorter cycles, low concurrency',
  },
  capable: {
    runtime_profile: 'medium',
    max_cycle_seconds: 300,
    concurrency: 2,
    deep_run_preset: 'balanced',
    summary: 'medium runtime with the shipped defaults',
  },
  high_performance: {
    runtime_profile: 'large',
    max_cycle_seconds: 600,
    concurrency: 4,
    deep_run_preset: 'aggressive',
    summary: 'large runtime, longer cycles, higher concurrency',
  },
};

/** The four tiers, in the spec's rule order. */
export const TIERS: readonly Tier[] = ['unknown', 'light', 'capable', 'high_performance'];

/** True when `value` names a tier. */
export function isTier(value: string): value is Tier {
  return (TIERS as readonly string[]).includes(value);
}

/**
 * The config keys a tier's effects set when setup applies it (`sous setup apply`, `sous init`,
 * `POST /setup/apply`): derived from TIER_EFFECTS so the printed promise and the written value are
 * one number. Only effects with a config key that the engine reads are here; the runtime profile,
 * concurrency and Deep-Run preset have none yet (docs/setup.md).
 */
export function tierSettings(tier: Tier): ReadonlyArray<readonly [string, number]> {
  return [['compute.max_cycle_seconds', TIER_EFFECTS[tier].max_cycle_seconds]];
}

export interface TierResult {
  tier: Tier;
  /** Why: one line per rule evaluated, ending with the rule that matched. */
  reasons: string[];
}

function fmtVram(v: number | null): string {
  return v === null ? 'unknown' : `${v} GB`;
}

/**
 * The tier of a snapshot, rules in the spec's order:
 *  1. unknown — the OS probe failed entirely, or `ram_gb == 0`;
 *  2. light — `ram_gb < 16`, or (no GPU and CPU class low), or (battery present and `ram_gb < 24`);
 *  3. high_performance — discrete-vendor or unified-memory GPU with VRAM ≥ 16 GB (null VRAM allowed
 *     for unified memory, where only RAM is checked), `ram_gb >= 32`, and no battery;
 *  4. capable — everything else.
 * A present battery counts as "on battery": a setup-time probe cannot know the machine will stay plugged in.
 */
export function classifyTier(s: HardwareSnapshot): TierResult {
  const reasons: string[] = [];
  const ram = Number.isFinite(s.ram_gb) ? s.ram_gb : 0;

  if (!s.os_probe_ok) {
    reasons.push('rule 1 (unknown): the OS probe failed entirely, so the hardware is untrusted');
    return { tier: 'unknown', reasons };
  }
  if (ram <= 0) {
    reasons.push('rule 1 (unknown): ram_gb is 0, so the hardware is untrusted');
    return { tier: 'unknown', reasons };
  }
  reasons.push(`rule 1 (unknown): no — OS probe answered and ram_gb is ${ram}`);

  const light: string[] = [];
  if (ram < 16) light.push(`ram_gb ${ram} < 16`);
  if (s.gpu_kind === 'none' && s.cpu_class === 'low') light.push('no GPU and CPU class low');
  if (s.battery_present && ram < 24) light.push(`battery present and ram_gb ${ram} < 24`);
  if (light.length > 0) {
    reasons.push(`rule 2 (light): yes — ${light.join('; ')}`);
    return { tier: 'light', reasons };
  }
  reasons.push(`rule 2 (light): no — ram_gb ${ram} ≥ 16, GPU ${s.gpu_kind}, CPU ${s.cpu_class}, battery ${s.battery_present ? 'present with ram_gb ≥ 24' : 'absent'}`);

  const unified = s.gpu_kind === 'unified_memory';
  const gpuKindOk = unified || DISCRETE_GPU_KINDS.includes(s.gpu_kind);
  const vramOk = unified ? s.gpu_vram_gb === null || s.gpu_vram_gb >= 16 : s.gpu_vram_gb !== null && s.gpu_vram_gb >= 16;
  const missing: string[] = [];
  if (!gpuKindOk) missing.push(`GPU ${s.gpu_kind} is not discrete or unified memory`);
  else if (!vramOk) missing.push(`VRAM ${fmtVram(s.gpu_vram_gb)} < 16 GB`);
  if (ram < 32) missing.push(`ram_gb ${ram} < 32`);
  if (s.battery_present) missing.push('on battery');
  if (missing.length === 0) {
    const gpu = unified && s.gpu_vram_gb === null ? 'unified-memory GPU (VRAM shared, only RAM checked)' : `${s.gpu_kind} GPU with ${fmtVram(s.gpu_vram_gb)} VRAM`;
    reasons.push(`rule 3 (high_performance): yes — ${gpu}, ram_gb ${ram} ≥ 32, no battery`);
    return { tier: 'high_performance', reasons };
  }
  reasons.push(`rule 3 (high_performance): no — ${missing.join('; ')}`);
  reasons.push('rule 4 (capable): yes — everything else');
  return { tier: 'capable', reasons };
}
