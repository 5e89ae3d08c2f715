/**
 * Pure rules that turn raw OS readings into snapshot fields: RAM in GB, CPU class, GPU kind and VRAM.
 * Kept apart from the probe so they are tested over plain values.
 */
import type { CpuClass, GpuKind } from './snapshot';

const GIB = 1024 ** 3;

/**
 * Total memory in GB: GiB rounded up to a whole number. The OS reports installed memory minus firmware
 * and kernel reservations (a 16 GB machine reads about 15.5 GiB), and the tier thresholds are meant for
 * the installed size. 0 for a missing or non-positive reading.
 */
export function ramGbFromBytes(totalBytes: number | null | undefined): number {
  if (typeof totalBytes !== 'number' || !Number.isFinite(totalBytes) || totalBytes <= 0) return 0;
  return Math.ceil(totalBytes / GIB);
}

/**
 * CPU class from physical cores and clock (GHz; null or 0 = unknown):
 *  - low:  ≤ 2 physical cores, or ≤ 4 cores with a known clock below 2.0 GHz;
 *  - high: ≥ 8 physical cores with an unknown clock or one of at least 2.0 GHz;
 *  - mid:  everything else. Unknown cores count as low (conservative: keeps local work small).
 */
export function classifyCpu(physicalCores: number | null, speedGhz: number | null): CpuClass {
  if (physicalCores === null || !Number.isFinite(physicalCores) || physicalCores <= 0) return 'low';
  const speedKnown = speedGhz !== null && speedGhz > 0;
  if (physicalCores <= 2) return 'low';
  if (physicalCores <= 4 && speedKnown && speedGhz < 2.0) return 'low';
  if (physicalCores >= 8 && (!speedKnown || speedGhz >= 2.0)) return 'high';
  return 'mid';
}

/** The parts of a systeminformation graphics controller the GPU rule reads. */
export interface GpuController {
  vendor?: string | null;
  model?: string | null;
  /** MB */
  vram?: number | null;
  vramDynamic?: boolean;
  /** MB (NVIDIA, from nvidia-smi) */
  memoryTotal?: number | null;
}

export interface GpuReading {
  kind: GpuKind;
  vendor: string | null;
  model: string | null;
  vram_gb: number | null;
}

/** Display-only adapters of virtual machines and server BMCs: they are not GPUs a model can use. */
const DISPLAY_ONLY = /vmware|virtualbox|qxl|red hat|bochs|cirrus|aspeed|matrox|hyper-v|microsoft basic|virtio|llvmpipe|parallels/i;
const AMD_DISCRETE_MODEL = /\b(rx|pro|instinct|firepro|radeon vii|vega \d+|r9|r7)\b/i;
const INTEL_DISCRETE_MODEL = /\barc\b|\bdata center gpu\b/i;

/** Rank used to pick the most capable of several controllers. */
const KIND_RANK: Record<GpuKind, number> = {
  discrete_nvidia: 5,
  discrete_amd: 5,
  discrete_other: 5,
  unified_memory: 4,
  integrated: 2,
  unknown: 1,
  none: 0,
};

function mbToGb(mb: number | null | undefined): number | null {
  if (typeof mb !== 'number' || !Number.isFinite(mb) || mb <= 0) return null;
  // One decimal: a 16 GB card that reports 16376 MB must still read 16.
  return Math.round((mb / 1024) * 10) / 10;
}

/** Classifies one controller; null when it is a display-only adapter. */
export function classifyController(c: GpuController): GpuReading | null {
  const vendor = (c.vendor ?? '').trim();
  const model = (c.model ?? '').trim();
  const text = `${vendor} ${model}`;
  if (text.trim() === '' || DISPLAY_ONLY.test(text)) return null;
  const vramGb = mbToGb(c.memoryTotal ?? c.vram);
  const base = { vendor: vendor || null, model: model || null };
  if (/apple/i.test(text)) {
    return { ...base, kind: 'unified_memory', vram_gb: null };
  }
  if (/nvidia/i.test(text)) {
    // Tegra/Jetson boards share system memory; report them as unified memory.
    if (/tegra|jetson|orin/i.test(text)) return { ...base, kind: 'unified_memory', vram_gb: null };
    return { ...base, kind: 'discrete_nvidia', vram_gb: vramGb };
  }
  if (/\bamd\b|advanced micro devices|\bati\b|radeon/i.test(text)) {
    const smallOrShared = c.vramDynamic === true || vramGb === null || vramGb <= 1;
    if (smallOrShared && !AMD_DISCRETE_MODEL.test(model)) return { ...base, kind: 'integrated', vram_gb: null };
    return { ...base, kind: 'discrete_amd', vram_gb: vramGb };
  }
  if (/intel/i.test(text)) {
    if (INTEL_DISCRETE_MODEL.test(model)) return { ...base, kind: 'discrete_other', vram_gb: vramGb };
    return { ...base, kind: 'integrated', vram_gb: null };
  }
  // Any other vendor: discrete when it has dedicated memory, integrated otherwise.
  if (vramGb !== null && c.vramDynamic !== true && vramGb >= 2) return { ...base, kind: 'discrete_other', vram_gb: vramGb };
  return { ...base, kind: 'integrated', vram_gb: null };
}

/**
 * The machine's GPU: the most capable controller (discrete before unified before integrated; larger
 * VRAM first). No usable controller gives kind `none`.
 */
export function classifyGpu(controllers: GpuController[]): GpuReading {
  let best: GpuReading = { kind: 'none', vendor: null, model: null, vram_gb: null };
  for (const c of controllers) {
    const r = classifyController(c);
    if (!r) continue;
    const better =
      KIND_RANK[r.kind] > KIND_RANK[best.kind] ||
      (KIND_RANK[r.kind] === KIND_RANK[best.kind] && (r.vram_gb ?? 0) > (best.vram_gb ?? 0));
    if (better) best = r;
  }
  return best;
}
