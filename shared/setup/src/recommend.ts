/**
 * Bundle recommendation (spec 2.9): score all seven bundles against the hardware tier and return the
 * best with a reasoning trail the cockpit shows verbatim. Pure: no I/O, same snapshot → same answer.
 */
import { POLICY_BUNDLES, type BundleId, type PolicyBundle } from './bundles';
import type { HardwareSnapshot } from './snapshot';
import { TIER_EFFECTS, classifyTier, type RuntimeProfile, type Tier } from './tiers';

export interface BundleScore {
  bundle_id: BundleId;
  score: number;
  /** One line per scoring component, signed points first. */
  reasons: string[];
}

export interface Recommendation {
  tier: Tier;
  bundle_id: BundleId;
  /** All seven bundles, in the spec table's order. */
  scores: BundleScore[];
  /** The reasoning trail, shown verbatim by the cockpit and `sous setup recommend`. */
  trail: string[];
}

const SIZE: Record<RuntimeProfile, number> = { small: 0, medium: 1, large: 2 };
/** Archetypes a user picks on purpose (spend, quality, research); hardware alone never argues for them. */
const SPECIALIST: ReadonlySet<BundleId> = new Set<BundleId>(['hybrid_quality', 'cost_saver', 'deep_research']);

/** Points for how a bundle's runtime profile fits the tier's (skipped for `unknown`: the hardware is untrusted). */
function runtimeFit(b: Readonly<PolicyBundle>, tier: Tier): [number, string] | null {
  if (tier === 'unknown') return null;
  const want = TIER_EFFECTS[tier].runtime_profile;
  const diff = SIZE[b.runtime] - SIZE[want];
  if (diff === 0) return [3, `runtime ${b.runtime} matches the ${tier} tier's ${want} profile`];
  if (diff < 0) return [diff === -1 ? 1.5 : 0.5, `runtime ${b.runtime} is smaller than the ${tier} tier can run (${want})`];
  if (b.posture === 'hybrid' || b.posture === 'cloud_preferred') {
    return [0, `runtime ${b.runtime} is larger than the ${tier} tier's ${want}, but a ${b.posture} posture can run it on a remote backend`];
  }
  return [diff === 1 ? -1 : -3, `runtime ${b.runtime} is larger than the ${tier} tier's ${want} profile can run locally`];
}

/** Points for the posture: local-first on trusted hardware, hybrid when the hardware is unknown. */
function postureFit(b: Readonly<PolicyBundle>, tier: Tier): [number, string] {
  if (tier === 'unknown') {
    const pts = b.posture === 'hybrid' ? 3 : b.posture === 'local_preferred' ? 0 : -1;
    return [pts, `posture ${b.posture} on untrusted hardware${b.posture === 'hybrid' ? ' keeps heavy work off the machine' : ''}`];
  }
  if (b.posture === 'local_only' || b.posture === 'local_preferred') return [1, `posture ${b.posture} is local-first on known hardware`];
  if (b.posture === 'hybrid') return [0, 'posture hybrid: not needed on known hardware'];
  return [-1, 'posture cloud_preferred goes against local-first on known hardware'];
}

/** Points for the posture against the local runtimes that answered on loopback. */
function runtimePresenceFit(b: Readonly<PolicyBundle>, s: HardwareSnapshot): [number, string] {
  const local = b.posture === 'local_only' || b.posture === 'local_preferred';
  if (s.runtimes.length > 0) {
    const names = s.runtimes.map((r) => r.name).join(', ');
    return local ? [0.5, `local runtime ${names} answers on loopback`] : [0, `local runtime ${names} answers, posture ${b.posture} does not need it`];
  }
  if (b.posture === 'local_only') return [-0.5, 'no local runtime answered and posture local_only has no fallback'];
  if (b.posture === 'hybrid') return [0.5, 'no local runtime answered; a hybrid posture can still work'];
  return [0, `no local runtime answered; posture ${b.posture} can wait for one`];
}

function deepRunFit(b: Readonly<PolicyBundle>, tier: Tier): [number, string] {
  const want = TIER_EFFECTS[tier].deep_run_preset;
  return b.deep_run === want ? [1, `Deep-Run ${b.deep_run} matches the tier's preset`] : [0, `Deep-Run ${b.deep_run} differs from the tier's ${want}`];
}

function fmtPoints(p: number): string {
  return p >= 0 ? `+${p}` : `${p}`;
}

/** Scores one bundle against a tier and snapshot. */
export function scoreBundle(b: Readonly<PolicyBundle>, tier: Tier, s: HardwareSnapshot): BundleScore {
  const parts: Array<[number, string]> = [];
  const rt = runtimeFit(b, tier);
  parts.push(rt ?? [0, 'runtime fit not scored: hardware unknown']);
  parts.push(postureFit(b, tier));
  parts.push(runtimePresenceFit(b, s));
  parts.push(deepRunFit(b, tier));
  if (SPECIALIST.has(b.id)) parts.push([-1, 'specialist archetype: chosen on purpose, not from hardware alone']);
  const score = parts.reduce((sum, [p]) => sum + p, 0);
  return { bundle_id: b.id, score: Math.round(score * 100) / 100, reasons: parts.map(([p, why]) => `${fmtPoints(p)} ${why}`) };
}

/** One line describing the snapshot, as the trail and `sous setup hardware` show it. */
export function describeSnapshot(s: HardwareSnapshot): string {
  const cpu = `CPU ${s.cpu_class} (${s.cpu_physical_cores ?? '?'} physical cores, ${s.cpu_speed_ghz === null ? 'speed unknown' : `${s.cpu_speed_ghz} GHz`})`;
  const vram = s.gpu_kind === 'unified_memory' ? 'shared memory' : s.gpu_vram_gb === null ? 'VRAM unknown' : `${s.gpu_vram_gb} GB VRAM`;
  const gpu = s.gpu_kind === 'none' || s.gpu_kind === 'unknown' ? `GPU ${s.gpu_kind}` : `GPU ${s.gpu_kind} (${vram})`;
  return `${s.ram_gb} GB RAM, ${cpu}, ${gpu}, ${s.battery_present ? 'battery present' : 'no battery'}`;
}

/**
 * Recommends a bundle: classifies the tier, scores all seven (runtime fit, posture vs. tier trust,
 * posture vs. local runtime presence, Deep-Run fit, specialist penalty) and picks the highest; ties
 * go to the earlier bundle in the spec's table. capable → local_balanced, unknown → hybrid_balanced,
 * light → local_lightweight, high_performance → local_heavy.
 */
export function recommendBundle(s: HardwareSnapshot): Recommendation {
  const { tier, reasons } = classifyTier(s);
  const scores = POLICY_BUNDLES.map((b) => scoreBundle(b, tier, s));
  let best = scores[0] as BundleScore;
  for (const sc of scores) if (sc.score > best.score) best = sc;
  const runnerUp = scores.filter((x) => x !== best).reduce<BundleScore | null>((a, x) => (a === null || x.score > a.score ? x : a), null);
  const effects = TIER_EFFECTS[tier];

  const trail: string[] = [];
  trail.push(s.os_probe_ok ? `hardware: ${describeSnapshot(s)}` : 'hardware: the OS probe failed entirely');
  trail.push(
    s.runtimes.length > 0
      ? `local runtimes: ${s.runtimes.map((r) => `${r.name} at ${r.base_url} (${r.models.length} models)`).join('; ')}`
      : 'local runtimes: none answered on loopback',
  );
  if (s.probe_errors.length > 0) trail.push(`probe fell back for: ${s.probe_errors.join('; ')}`);
  if (s.thermal_constrained) trail.push(`thermal: constrained (hottest zone ${s.thermal_max_c} °C > 85); logged only, the tier is unchanged`);
  trail.push(...reasons);
  trail.push(
    `tier ${tier}: ${effects.summary} (runtime ${effects.runtime_profile}, cycles ≤ ${effects.max_cycle_seconds} s, concurrency ${effects.concurrency}, Deep-Run ${effects.deep_run_preset})`,
  );
  trail.push(`scores: ${scores.map((x) => `${x.bundle_id} ${x.score}`).join(', ')}`);
  const tie = runnerUp !== null && runnerUp.score === best.score ? ' (tie broken by table order)' : '';
  trail.push(`recommended ${best.bundle_id} with ${best.score}${runnerUp ? `, ahead of ${runnerUp.bundle_id} with ${runnerUp.score}` : ''}${tie}`);

  return { tier, bundle_id: best.bundle_id, scores, trail };
}
