/** What `sous init` calls: one fresh probe and its recommendation (nothing cached, nothing written). */
import { probeHardware, type ProbeOptions } from './probe';
import { recommendBundle, type Recommendation } from './recommend';
import type { HardwareSnapshot } from './snapshot';

export interface InitRecommendation {
  snapshot: HardwareSnapshot;
  recommendation: Recommendation;
}

/** Probes this machine and recommends a bundle. Never throws (the probe falls back instead). */
export async function recommendForInit(options: ProbeOptions = {}): Promise<InitRecommendation> {
  const snapshot = await probeHardware(options);
  return { snapshot, recommendation: recommendBundle(snapshot) };
}
