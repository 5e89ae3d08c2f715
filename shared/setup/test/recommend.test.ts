import { BUNDLE_IDS, POLICY_BUNDLES, recommendBundle, scoreBundle, failedSnapshot } from '../src';
import { snap } from './snapshots';

describe('recommendBundle', () => {
  test('scores all seven bundles in table order, each with its reasons', () => {
    const r = recommendBundle(snap());
    expect(r.scores.map((s) => s.bundle_id)).toEqual(BUNDLE_IDS);
    for (const s of r.scores) {
      expect(Number.isFinite(s.score)).toBe(true);
      expect(s.reasons.length).toBeGreaterThanOrEqual(4);
      for (const line of s.reasons) expect(line).toMatch(/^[+-]\d/);
    }
    const best = Math.max(...r.scores.map((s) => s.score));
    expect(r.scores.find((s) => s.bundle_id === r.bundle_id)?.score).toBe(best);
  });

  test('the trail names the hardware, runtimes, every rule checked, the tier, all seven scores and the pick', () => {
    const r = recommendBundle(snap({ runtimes: [{ name: 'ollama', base_url: 'http://127.0.0.1:11434/v1', models: ['a', 'b'] }] }));
    const trail = r.trail.join('\n');
    expect(trail).toContain('hardware: 32 GB RAM, CPU mid (6 physical cores, 3.5 GHz), GPU integrated');
    expect(trail).toContain('local runtimes: ollama at http://127.0.0.1:11434/v1 (2 models)');
    expect(trail).toMatch(/rule 1[\s\S]*rule 2[\s\S]*rule 3[\s\S]*rule 4/);
    expect(trail).toContain('tier capable');
    for (const id of BUNDLE_IDS) expect(trail).toContain(id);
    expect(r.trail[r.trail.length - 1]).toMatch(/^recommended local_balanced with [\d.]+, ahead of \w+ with [\d.-]+$/);
  });

  test('the trail reports probe fallbacks and the thermal flag without changing the pick', () => {
    const plain = recommendBundle(snap());
    const hot = recommendBundle(snap({ thermal_constrained: true, thermal_max_c: 91.5, probe_errors: ['battery: timed out after 5000 ms'] }));
    expect(hot.bundle_id).toBe(plain.bundle_id);
    expect(hot.scores).toEqual(plain.scores);
    expect(hot.trail.join('\n')).toContain('thermal: constrained (hottest zone 91.5 °C > 85); logged only, the tier is unchanged');
    expect(hot.trail.join('\n')).toContain('probe fell back for: battery: timed out after 5000 ms');
  });

  test('a failed probe says so in the trail and recommends hybrid_balanced', () => {
    const r = recommendBundle(failedSnapshot(['memory: boom']));
    expect(r.trail[0]).toBe('hardware: the OS probe failed entirely');
    expect(r.bundle_id).toBe('hybrid_balanced');
  });

  test('is pure: the same snapshot gives the same recommendation', () => {
    const s = snap({ gpu_kind: 'unified_memory', ram_gb: 64 });
    expect(recommendBundle(s)).toEqual(recommendBundle(s));
  });

  test('scoreBundle: specialist archetypes carry a penalty line', () => {
    const s = snap();
    for (const b of POLICY_BUNDLES) {
      const line = scoreBundle(b, 'capable', s).reasons.find((x) => x.includes('specialist'));
      expect(line !== undefined).toBe(['hybrid_quality', 'cost_saver', 'deep_research'].includes(b.id));
    }
  });
});
