/**
 * Idle detection for `compute.idle_only`: the share of CPU time all cores spent busy over a short
 * sample (os.cpus() counters), so it works the same on Linux, macOS and Windows and does not lag
 * like the one-minute load average.
 */
import { execFile } from 'node:child_process';
import * as os from 'node:os';

/** How long the CPU is sampled. */
export const IDLE_SAMPLE_MS = 500;

function totals(): { busy: number; all: number } {
  let busy = 0;
  let all = 0;
  for (const cpu of os.cpus()) {
    const t = cpu.times;
    const sum = t.user + t.nice + t.sys + t.irq + t.idle;
    all += sum;
    busy += sum - t.idle;
  }
  return { busy, all };
}

/** System CPU load in 0..1 over `sampleMs`. */
export async function systemCpuLoad(sampleMs = IDLE_SAMPLE_MS): Promise<number> {
  const a = totals();
  await new Promise((r) => setTimeout(r, sampleMs));
  const b = totals();
  const all = b.all - a.all;
  return all <= 0 ? 0 : Math.min(1, Math.max(0, (b.busy - a.busy) / all));
}

/**
 * GPU utilisation in 0..1 (the busiest GPU), or null when none can be read. Only NVIDIA GPUs report
 * it here (`nvidia-smi`); elsewhere the GPU threshold does not apply, and /resources says so.
 */
export function gpuLoad(timeoutMs = 2000): Promise<number | null> {
  return new Promise((resolve) => {
    execFile('nvidia-smi', ['--query-gpu=utilization.gpu', '--format=csv,noheader,nounits'], { timeout: timeoutMs, windowsHide: true }, (error, stdout) => {
      if (error) return resolve(null);
      const values = String(stdout)
        .split('\n')
        .map((l) => Number(l.trim()))
        .filter((n) => Number.isFinite(n));
      resolve(values.length ? Math.min(1, Math.max(...values) / 100) : null);
    });
  });
}

/** The loads an idle check reads; injected in tests. */
export interface LoadProbes {
  cpu(): Promise<number>;
  gpu(): Promise<number | null>;
}

const SYSTEM_PROBES: LoadProbes = { cpu: () => systemCpuLoad(), gpu: () => gpuLoad() };

/**
 * Why a background cycle may not run now, or null when it may: with `compute.idle_only`, CPU load at
 * or above `compute.idle_cpu_threshold`, or GPU load (when readable) at or above `idle_gpu_threshold`.
 */
export async function idleRefusal(
  compute: { idle_only: boolean; idle_cpu_threshold: number; idle_gpu_threshold?: number },
  probes: LoadProbes = SYSTEM_PROBES,
): Promise<string | null> {
  if (!compute.idle_only) return null;
  const cpu = await probes.cpu();
  if (cpu >= compute.idle_cpu_threshold) return `CPU load ${cpu.toFixed(2)} is at or above compute.idle_cpu_threshold ${compute.idle_cpu_threshold}`;
  if (compute.idle_gpu_threshold !== undefined) {
    const gpu = await probes.gpu();
    if (gpu !== null && gpu >= compute.idle_gpu_threshold) return `GPU load ${gpu.toFixed(2)} is at or above compute.idle_gpu_threshold ${compute.idle_gpu_threshold}`;
  }
  return null;
}
