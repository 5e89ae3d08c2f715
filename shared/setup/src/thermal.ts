/** Best-effort thermal reading (Linux only): the hottest `/sys/class/thermal/thermal_zone*` sensor. */
import * as fs from 'node:fs/promises';
import * as path from 'node:path';

/** A zone above this many °C sets `thermal_constrained` (spec 8, "Thermal flag"). */
export const THERMAL_LIMIT_C = 85;

/** Default sysfs directory of thermal zones. */
export const DEFAULT_THERMAL_ROOT = '/sys/class/thermal';

export interface ThermalReading {
  constrained: boolean;
  /** Hottest zone in °C, or null when no zone could be read. */
  max_c: number | null;
}

/**
 * Reads every `thermal_zone<N>/temp` (millidegrees Celsius) under `root`. Never throws: a missing
 * directory or an unreadable zone just means no reading.
 */
export async function readThermal(root: string = DEFAULT_THERMAL_ROOT): Promise<ThermalReading> {
  let entries: string[];
  try {
    entries = (await fs.readdir(root)).filter((e) => e.startsWith('thermal_zone'));
  } catch {
    return { constrained: false, max_c: null };
  }
  const temps = await Promise.all(
    entries.map(async (zone) => {
      try {
        const milli = Number.parseInt((await fs.readFile(path.join(root, zone, 'temp'), 'utf8')).trim(), 10);
        return Number.isFinite(milli) ? milli / 1000 : null;
      } catch {
        return null;
      }
    }),
  );
  const valid = temps.filter((t): t is number => t !== null);
  if (valid.length === 0) return { constrained: false, max_c: null };
  const max = Math.max(...valid);
  return { constrained: max > THERMAL_LIMIT_C, max_c: Math.round(max * 10) / 10 };
}
