/**
 * Idle detection for `compute.idle_only`: the share of CPU time all cores spent busy over a short
 * sample (os.cpus() counters), so it works the same on Linux, macOS and Windows and does not lag
 * like the one-minute load average.
 */
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

/** Why a background cycle may not run now, or null when it may (`compute.idle_only`, `compute.idle_cpu_threshold`). */
export async function idleRefusal(compute: { idle_only: boolean; idle_cpu_threshold: number }, load: () => Promise<number> = systemCpuLoad): Promise<string | null> {
  if (!compute.idle_only) return null;
  const now = await load();
  if (now < compute.idle_cpu_threshold) return null;
  return `CPU load ${now.toFixed(2)} is at or above compute.idle_cpu_threshold ${compute.idle_cpu_threshold}`;
}
