/**
 * Applying setup (spec 2.9, 2.10): persist a policy bundle and the hardware tier's settings in
 * `.sous/config.toml`, in one validated atomic write. The CLI (`sous setup apply`, `sous init`) and
 * the daemon (`POST /setup/apply`, which the MCP tool `setup.apply` calls) all run this function;
 * a running daemon hot-reloads the file.
 */
import { getConfigValue, setConfigValues, type ConfigValue } from '@sous/config';
import { UnknownBundleError, isBundleId, type BundleId } from './bundles';
import { tierSettings, type Tier } from './tiers';

/** One key the apply wrote, with its value before and after (equal when nothing changed). */
export interface AppliedSetting {
  key: string;
  from: unknown;
  to: unknown;
}

export interface ApplyResult {
  bundle_id: BundleId;
  previous_bundle_id: string;
  /** The tier whose settings were written, or null when none was given. */
  tier: Tier | null;
  /** Every key written, in order (policy.bundle first). */
  settings: AppliedSetting[];
  /** The keys whose value actually changed. */
  changed: AppliedSetting[];
  config: string;
}

/**
 * Writes `policy.bundle = bundleId` and, when `tier` is given, the tier's settings (tierSettings).
 * Throws UnknownBundleError for an unknown id and ConfigError (code `io`) when the file is missing;
 * on any error the file is left untouched.
 */
export async function applySetup(file: string, bundleId: string, tier?: Tier): Promise<ApplyResult> {
  if (!isBundleId(bundleId)) throw new UnknownBundleError(bundleId);
  const values: Array<readonly [string, ConfigValue]> = [['policy.bundle', bundleId], ...(tier ? tierSettings(tier) : [])];
  const { previous, next } = await setConfigValues(file, values);
  const settings = values.map(([key]) => ({ key, from: getConfigValue(previous, key), to: getConfigValue(next, key) }));
  return {
    bundle_id: bundleId,
    previous_bundle_id: previous.policy.bundle,
    tier: tier ?? null,
    settings,
    changed: settings.filter((s) => JSON.stringify(s.from) !== JSON.stringify(s.to)),
    config: file,
  };
}
