import { classifyTier, recommendBundle, failedSnapshot, TIER_EFFECTS, type BundleId, type HardwareSnapshot, type Tier } from '../src';
import { snap } from './snapshots';

const ollama = [{ name: 'ollama', base_url: 'http://127.0.0.1:11434/v1', models: ['qwen2.5-coder:7b'] }];

const cases: Array<{ name: string; s: HardwareSnapshot; tier: Tier; bundle: BundleId; reason: RegExp }> = [
  { name: 'failed probe', s: failedSnapshot(['memory: boom', 'cpu: boom']), tier: 'unknown', bundle: 'hybrid_balanced', reason: /OS probe failed entirely/ },
  { name: 'zero RAM', s: snap({ ram_gb: 0 }), tier: 'unknown', bundle: 'hybrid_balanced', reason: /ram_gb is 0/ },
  { name: 'zero RAM with a local runtime', s: snap({ ram_gb: 0, runtimes: ollama }), tier: 'unknown', bundle: 'hybrid_balanced', reason: /ram_gb is 0/ },
  { name: 'battery laptop 16 GB', s: snap({ ram_gb: 16, battery_present: true }), tier: 'light', bundle: 'local_lightweight', reason: /battery present and ram_gb 16 < 24/ },
  { name: 'battery laptop 32 GB', s: snap({ ram_gb: 32, battery_present: true, gpu_kind: 'discrete_nvidia', gpu_vram_gb: 16 }), tier: 'capable', bundle: 'local_balanced', reason: /on battery/ },
  { name: 'small desktop 8 GB', s: snap({ ram_gb: 8 }), tier: 'light', bundle: 'local_lightweight', reason: /ram_gb 8 < 16/ },
  { name: 'unified memory, null VRAM, 32 GB', s: snap({ gpu_kind: 'unified_memory', gpu_vendor: 'Apple', gpu_model: 'Apple M2 Pro', ram_gb: 32 }), tier: 'high_performance', bundle: 'local_heavy', reason: /only RAM checked/ },
  { name: 'unified memory, null VRAM, 64 GB, runtime up', s: snap({ gpu_kind: 'unified_memory', ram_gb: 64, runtimes: ollama }), tier: 'high_performance', bundle: 'local_heavy', reason: /unified-memory/ },
  { name: 'unified memory, null VRAM, 24 GB', s: snap({ gpu_kind: 'unified_memory', ram_gb: 24 }), tier: 'capable', bundle: 'local_balanced', reason: /ram_gb 24 < 32/ },
  { name: 'unified memory laptop on battery, 64 GB', s: snap({ gpu_kind: 'unified_memory', ram_gb: 64, battery_present: true }), tier: 'capable', bundle: 'local_balanced', reason: /on battery/ },
  { name: 'big discrete GPU 24 GB, 64 GB RAM', s: snap({ gpu_kind: 'discrete_nvidia', gpu_vendor: 'NVIDIA', gpu_vram_gb: 24, ram_gb: 64, cpu_class: 'high' }), tier: 'high_performance', bundle: 'local_heavy', reason: /discrete_nvidia GPU with 24 GB VRAM/ },
  { name: 'discrete AMD 16 GB, 32 GB RAM', s: snap({ gpu_kind: 'discrete_amd', gpu_vram_gb: 16, ram_gb: 32 }), tier: 'high_performance', bundle: 'local_heavy', reason: /rule 3.*yes/ },
  { name: 'discrete GPU with 8 GB VRAM', s: snap({ gpu_kind: 'discrete_nvidia', gpu_vram_gb: 8, ram_gb: 64 }), tier: 'capable', bundle: 'local_balanced', reason: /VRAM 8 GB < 16 GB/ },
  { name: 'discrete GPU with unknown VRAM', s: snap({ gpu_kind: 'discrete_nvidia', gpu_vram_gb: null, ram_gb: 64 }), tier: 'capable', bundle: 'local_balanced', reason: /VRAM unknown < 16 GB/ },
  { name: 'no GPU with low CPU', s: snap({ gpu_kind: 'none', gpu_vendor: null, gpu_model: null, cpu_class: 'low', ram_gb: 32 }), tier: 'light', bundle: 'local_lightweight', reason: /no GPU and CPU class low/ },
  { name: 'no GPU with mid CPU', s: snap({ gpu_kind: 'none', cpu_class: 'mid', ram_gb: 32 }), tier: 'capable', bundle: 'local_balanced', reason: /GPU none is not discrete/ },
  { name: 'capable desktop', s: snap(), tier: 'capable', bundle: 'local_balanced', reason: /rule 4 \(capable\): yes/ },
  { name: 'capable desktop with a local runtime', s: snap({ runtimes: ollama }), tier: 'capable', bundle: 'local_balanced', reason: /rule 4/ },
];

describe('classifyTier and recommendBundle over snapshots', () => {
  test.each(cases)('$name → $tier, $bundle', ({ s, tier, bundle, reason }) => {
    const t = classifyTier(s);
    expect(t.tier).toBe(tier);
    expect(t.reasons.join('\n')).toMatch(reason);
    const r = recommendBundle(s);
    expect(r.tier).toBe(tier);
    expect(r.bundle_id).toBe(bundle);
    expect(r.bundle_id).toBe(TIER_DEFAULT[tier]);
  });

  test('reasons list the rules in the spec order and stop at the one that matched', () => {
    const t = classifyTier(snap({ gpu_kind: 'discrete_nvidia', gpu_vram_gb: 24, ram_gb: 64 }));
    expect(t.reasons.map((r) => r.slice(0, 6))).toEqual(['rule 1', 'rule 2', 'rule 3']);
    expect(classifyTier(snap()).reasons.map((r) => r.slice(0, 6))).toEqual(['rule 1', 'rule 2', 'rule 3', 'rule 4']);
  });

  test('a local runtime answering or not never changes the pick of a tier', () => {
    for (const c of cases) {
      expect(recommendBundle({ ...c.s, runtimes: ollama }).bundle_id).toBe(c.bundle);
      expect(recommendBundle({ ...c.s, runtimes: [] }).bundle_id).toBe(c.bundle);
    }
  });

  test('the thermal flag never changes the tier', () => {
    for (const c of cases) {
      expect(classifyTier({ ...c.s, thermal_constrained: true, thermal_max_c: 96 }).tier).toBe(c.tier);
    }
  });

  test('TIER_EFFECTS carries the spec effects for every tier', () => {
    expect(TIER_EFFECTS.light).toMatchObject({ runtime_profile: 'small', deep_run_preset: 'conservative' });
    expect(TIER_EFFECTS.capable).toMatchObject({ runtime_profile: 'medium', deep_run_preset: 'balanced', max_cycle_seconds: 300 });
    expect(TIER_EFFECTS.high_performance).toMatchObject({ runtime_profile: 'large', deep_run_preset: 'aggressive' });
    expect(TIER_EFFECTS.unknown).toMatchObject({ runtime_profile: 'small', concurrency: 1 });
    expect(TIER_EFFECTS.light.max_cycle_seconds).toBeLessThan(TIER_EFFECTS.capable.max_cycle_seconds);
    expect(TIER_EFFECTS.high_performance.max_cycle_seconds).toBeGreaterThan(TIER_EFFECTS.capable.max_cycle_seconds);
    expect(TIER_EFFECTS.light.concurrency).toBeLessThan(TIER_EFFECTS.capable.concurrency);
    expect(TIER_EFFECTS.high_performance.concurrency).toBeGreaterThan(TIER_EFFECTS.capable.concurrency);
  });
});

const TIER_DEFAULT: Record<Tier, BundleId> = {
  unknown: 'hybrid_balanced',
  light: 'local_lightweight',
  capable: 'local_balanced',
  high_performance: 'local_heavy',
};
