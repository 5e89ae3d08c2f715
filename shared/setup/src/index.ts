export { probeHardware, DEFAULT_PART_TIMEOUT_MS } from './probe';
export type { ProbeOptions, ProbeLogger, SystemInfoSources } from './probe';
export { detectRuntimes, modelIdsFromBody, DEFAULT_RUNTIME_PROBES, DEFAULT_RUNTIME_TIMEOUT_MS } from './runtimes';
export type { RuntimeProbe } from './runtimes';
export { readThermal, THERMAL_LIMIT_C, DEFAULT_THERMAL_ROOT } from './thermal';
export type { ThermalReading } from './thermal';
export { classifyCpu, classifyGpu, classifyController, ramGbFromBytes } from './hardware-rules';
export type { GpuController, GpuReading } from './hardware-rules';
export { failedSnapshot, DISCRETE_GPU_KINDS } from './snapshot';
export type { HardwareSnapshot, CpuClass, GpuKind, DetectedRuntime } from './snapshot';
export { classifyTier, isTier, tierSettings, TIERS, TIER_EFFECTS } from './tiers';
export type { Tier, TierEffects, TierResult, RuntimeProfile, DeepRunPreset } from './tiers';
export {
  POLICY_BUNDLES,
  BUNDLE_IDS,
  BUNDLE_DIMENSIONS,
  getBundle,
  isBundleId,
  formatDimension,
  UnknownBundleError,
} from './bundles';
export type {
  PolicyBundle,
  BundleId,
  Posture,
  SpendProfile,
  LatencyProfile,
  PrivacyProfile,
  ContextInjection,
} from './bundles';
export { recommendBundle, scoreBundle, describeSnapshot } from './recommend';
export type { Recommendation, BundleScore } from './recommend';
export { recommendForInit } from './init';
export type { InitRecommendation } from './init';
export { applySetup } from './apply';
export type { ApplyResult, AppliedSetting } from './apply';
export * as clients from './clients/index';
