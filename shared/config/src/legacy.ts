/**
 * Defaults of earlier releases. `sous init` writes every key with its default into the config file,
 * so a workspace created before a default widened holds the old value as if chosen. A list equal to
 * an old default is read as today's default: upgrading Sous then widens the privacy protection of
 * every workspace that never chose its own (docs/configuration.md#privacy).
 */
import { DEFAULT_EXCLUDED_PATTERNS, DEFAULT_REDACT_PATTERNS, LEGACY_EXCLUDED_PATTERNS, LEGACY_REDACT_PATTERNS } from './defaults';

const UPGRADES: ReadonlyArray<{ key: string; old: readonly (readonly string[])[]; now: readonly string[] }> = [
  { key: 'privacy.excluded_patterns', old: LEGACY_EXCLUDED_PATTERNS, now: DEFAULT_EXCLUDED_PATTERNS },
  { key: 'privacy.redact_patterns', old: LEGACY_REDACT_PATTERNS, now: DEFAULT_REDACT_PATTERNS },
];

/** `value` of `key`, or today's default when it is exactly an earlier release's default. */
export function upgradeLegacyDefault(key: string, value: unknown): unknown {
  const upgrade = UPGRADES.find((u) => u.key === key);
  if (upgrade === undefined || !Array.isArray(value)) return value;
  const same = (old: readonly string[]) => old.length === value.length && old.every((v, i) => v === value[i]);
  return upgrade.old.some(same) ? [...upgrade.now] : value;
}
