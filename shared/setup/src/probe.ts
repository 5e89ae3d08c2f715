/**
 * The hardware probe (spec 2.10): read-only, fail-safe, never cached. Each part (memory, CPU, GPU,
 * battery, OS, thermal, runtimes) runs on its own; a failed part falls back and leaves a note in
 * `probe_errors`. Nothing is written anywhere and nothing is remembered between calls.
 */
import * as si from 'systeminformation';
import { classifyCpu, classifyGpu, ramGbFromBytes, type GpuController } from './hardware-rules';
import { DEFAULT_RUNTIME_PROBES, DEFAULT_RUNTIME_TIMEOUT_MS, detectRuntimes, type RuntimeProbe } from './runtimes';
import { failedSnapshot, type DetectedRuntime, type HardwareSnapshot } from './snapshot';
import { DEFAULT_THERMAL_ROOT, readThermal, type ThermalReading } from './thermal';

/** The systeminformation calls the probe makes; injectable so callers can substitute a source. */
export interface SystemInfoSources {
  mem(): Promise<{ total: number }>;
  cpu(): Promise<{ brand?: string; manufacturer?: string; physicalCores?: number; cores?: number; speed?: number; speedMax?: number }>;
  graphics(): Promise<{ controllers: GpuController[] }>;
  battery(): Promise<{ hasBattery: boolean }>;
  osInfo(): Promise<{ platform: string }>;
}

/** pino-compatible sink for the probe's one log line (the thermal flag). */
export interface ProbeLogger {
  warn(obj: Record<string, unknown>, msg: string): void;
}

export interface ProbeOptions {
  /** systeminformation functions; default: the real `systeminformation` module for each one not given. */
  sources?: Partial<SystemInfoSources>;
  /** Runtimes to look for on loopback; default `DEFAULT_RUNTIME_PROBES`. `[]` skips detection. */
  runtimes?: readonly RuntimeProbe[];
  /** Timeout of each runtime request in ms; default 300. */
  runtimeTimeoutMs?: number;
  /** Timeout of each OS part in ms (a hung `nvidia-smi` must not hang setup); default 5000. */
  partTimeoutMs?: number;
  /** sysfs thermal directory; default `/sys/class/thermal`. Read only on Linux. */
  thermalRoot?: string;
  /** Platform deciding whether thermal zones are read; default `process.platform`. */
  platform?: NodeJS.Platform;
  /** Receives a warning when the machine is thermally constrained; default: no logging. */
  logger?: ProbeLogger;
}

/** Default timeout of one OS part, in ms. */
export const DEFAULT_PART_TIMEOUT_MS = 5000;

const REAL_SOURCES: SystemInfoSources = {
  mem: () => si.mem(),
  cpu: () => si.cpu(),
  graphics: () => si.graphics(),
  battery: () => si.battery(),
  osInfo: () => si.osInfo(),
};

type Part<T> = { ok: true; value: T } | { ok: false; error: string };

/** Runs one part with a deadline; any failure becomes a one-line note instead of an exception. */
async function part<T>(name: string, fn: () => Promise<T>, timeoutMs: number): Promise<Part<T>> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${timeoutMs} ms`)), timeoutMs);
    timer.unref();
  });
  try {
    const value = await Promise.race([Promise.resolve().then(fn), deadline]);
    if (value === null || value === undefined) return { ok: false, error: `${name}: no data` };
    return { ok: true, value };
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    return { ok: false, error: `${name}: ${message.split('\n')[0]}` };
  } finally {
    clearTimeout(timer);
  }
}

function positiveOrNull(n: number | undefined): number | null {
  return typeof n === 'number' && Number.isFinite(n) && n > 0 ? n : null;
}

/**
 * Probes this machine. Never throws: each failed part gives a fallback value and a line in
 * `probe_errors`; when every OS part fails the snapshot classifies as tier `unknown`.
 */
export async function probeHardware(options: ProbeOptions = {}): Promise<HardwareSnapshot> {
  const now = new Date();
  const errors: string[] = [];
  try {
    const src: SystemInfoSources = { ...REAL_SOURCES, ...options.sources };
    const t = options.partTimeoutMs ?? DEFAULT_PART_TIMEOUT_MS;
    const platform = options.platform ?? process.platform;
    const [mem, cpu, graphics, battery, osInfo, thermal, runtimes] = await Promise.all([
      part('memory', () => src.mem(), t),
      part('cpu', () => src.cpu(), t),
      part('graphics', () => src.graphics(), t),
      part('battery', () => src.battery(), t),
      part('os', () => src.osInfo(), t),
      platform === 'linux'
        ? part<ThermalReading>('thermal', () => readThermal(options.thermalRoot ?? DEFAULT_THERMAL_ROOT), t)
        : Promise.resolve<Part<ThermalReading>>({ ok: true, value: { constrained: false, max_c: null } }),
      part<DetectedRuntime[]>(
        'runtimes',
        () => detectRuntimes(options.runtimes ?? DEFAULT_RUNTIME_PROBES, options.runtimeTimeoutMs ?? DEFAULT_RUNTIME_TIMEOUT_MS),
        t,
      ),
    ]);
    for (const p of [mem, cpu, graphics, battery, osInfo, thermal, runtimes]) if (!p.ok) errors.push(p.error);

    const snapshot = failedSnapshot(errors, now);
    snapshot.os_probe_ok = mem.ok || cpu.ok || graphics.ok || battery.ok || osInfo.ok;
    if (osInfo.ok) snapshot.platform = osInfo.value.platform || null;
    if (mem.ok) {
      snapshot.ram_gb = ramGbFromBytes(mem.value.total);
      if (snapshot.ram_gb === 0) errors.push('memory: total reported as 0');
    }
    if (cpu.ok) {
      const c = cpu.value;
      const cores = positiveOrNull(c.physicalCores) ?? positiveOrNull(c.cores);
      const speed = positiveOrNull(c.speedMax) ?? positiveOrNull(c.speed);
      snapshot.cpu_brand = [c.manufacturer, c.brand].filter((s) => s && s.trim()).join(' ') || null;
      snapshot.cpu_physical_cores = cores;
      snapshot.cpu_speed_ghz = speed;
      snapshot.cpu_class = classifyCpu(cores, speed);
    }
    if (graphics.ok) {
      const gpu = classifyGpu(Array.isArray(graphics.value.controllers) ? graphics.value.controllers : []);
      snapshot.gpu_kind = gpu.kind;
      snapshot.gpu_vendor = gpu.vendor;
      snapshot.gpu_model = gpu.model;
      snapshot.gpu_vram_gb = gpu.vram_gb;
    }
    if (battery.ok) snapshot.battery_present = battery.value.hasBattery === true;
    if (thermal.ok) {
      snapshot.thermal_constrained = thermal.value.constrained;
      snapshot.thermal_max_c = thermal.value.max_c;
    }
    if (runtimes.ok) snapshot.runtimes = runtimes.value;
    if (snapshot.thermal_constrained) {
      options.logger?.warn({ thermal_max_c: snapshot.thermal_max_c }, 'machine is thermally constrained (a zone above 85 °C); the tier is unchanged');
    }
    return snapshot;
  } catch (err) {
    // Defensive: a bug above must still not make setup throw.
    errors.push(`probe: ${err instanceof Error ? err.message : String(err)}`);
    return failedSnapshot(errors, now);
  }
}
