import type { HardwareSnapshot } from '../src';

/** A plain snapshot of an ordinary desktop; each case overrides what it is about. */
export function snap(overrides: Partial<HardwareSnapshot> = {}): HardwareSnapshot {
  return {
    probed_at: '2026-01-01T00:00:00.000Z',
    os_probe_ok: true,
    platform: 'linux',
    ram_gb: 32,
    cpu_class: 'mid',
    cpu_brand: 'Test CPU',
    cpu_physical_cores: 6,
    cpu_speed_ghz: 3.5,
    gpu_kind: 'integrated',
    gpu_vendor: 'Intel',
    gpu_model: 'UHD 770',
    gpu_vram_gb: null,
    battery_present: false,
    thermal_constrained: false,
    thermal_max_c: null,
    runtimes: [],
    probe_errors: [],
    ...overrides,
  };
}
