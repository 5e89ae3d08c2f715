/** The hardware snapshot one probe run produces (spec 2.10). Plain data: tiers and bundles read it. */

/** CPU class, from physical cores and clock speed (rule in `classifyCpu`). */
export type CpuClass = 'low' | 'mid' | 'high';

/**
 * GPU kind. `discrete_other` covers discrete cards of other vendors (e.g. Intel Arc); `unified_memory`
 * is Apple-silicon-style memory shared with the CPU (VRAM null); `unknown` means the GPU probe failed.
 */
export type GpuKind =
  | 'discrete_nvidia'
  | 'discrete_amd'
  | 'discrete_other'
  | 'integrated'
  | 'unified_memory'
  | 'none'
  | 'unknown';

/** GPU kinds that count as "discrete-vendor" for the high_performance rule. */
export const DISCRETE_GPU_KINDS: readonly GpuKind[] = ['discrete_nvidia', 'discrete_amd', 'discrete_other'];

/** A local model runtime that answered on its usual loopback port. */
export interface DetectedRuntime {
  /** Runtime id, e.g. `ollama`, `lm_studio`, `llama_cpp`, `vllm`, `jan`, `localai`. */
  name: string;
  /** OpenAI-compatible base URL, e.g. `http://127.0.0.1:11434/v1`. */
  base_url: string;
  /** Model ids the runtime listed (empty when it listed none or the body was not understood). */
  models: string[];
}

export interface HardwareSnapshot {
  /** ISO time of the probe. */
  probed_at: string;
  /** False when every OS part of the probe failed (the tier is then `unknown`). */
  os_probe_ok: boolean;
  /** `process.platform`-style name from the OS probe, or null. */
  platform: string | null;
  /** Total memory in GB (GiB rounded up to a whole number); 0 when unknown. */
  ram_gb: number;
  cpu_class: CpuClass;
  cpu_brand: string | null;
  cpu_physical_cores: number | null;
  /** Maximum (or base) clock in GHz; null when the OS does not report it. */
  cpu_speed_ghz: number | null;
  gpu_kind: GpuKind;
  gpu_vendor: string | null;
  gpu_model: string | null;
  /** Dedicated VRAM in GB (one decimal); null for unified memory or when unknown. */
  gpu_vram_gb: number | null;
  /** A battery is present (laptop); counts as "on battery" for the tier rules. */
  battery_present: boolean;
  /** True when any thermal zone reads above 85 °C (Linux only, best effort). Logged, never affects the tier. */
  thermal_constrained: boolean;
  /** Hottest thermal zone in °C, or null when none could be read. */
  thermal_max_c: number | null;
  /** Local model runtimes that answered on loopback. */
  runtimes: DetectedRuntime[];
  /** One line per part that failed and fell back, e.g. `graphics: timed out after 5000 ms`. */
  probe_errors: string[];
}

/** The snapshot of a probe whose OS parts all failed: it classifies as tier `unknown`. */
export function failedSnapshot(probeErrors: string[], now: Date = new Date()): HardwareSnapshot {
  return {
    probed_at: now.toISOString(),
    os_probe_ok: false,
    platform: null,
    ram_gb: 0,
    cpu_class: 'low',
    cpu_brand: null,
    cpu_physical_cores: null,
    cpu_speed_ghz: null,
    gpu_kind: 'unknown',
    gpu_vendor: null,
    gpu_model: null,
    gpu_vram_gb: null,
    battery_present: false,
    thermal_constrained: false,
    thermal_max_c: null,
    runtimes: [],
    probe_errors: probeErrors,
  };
}
