import * as fs from 'node:fs';
import * as path from 'node:path';
import * as os from 'node:os';
import { ConfigError, ensureConfigFile, loadConfig, sousPaths } from '@sous/config';
import { TIERS, TIER_EFFECTS, UnknownBundleError, applySetup, tierSettings } from '../src';

describe('applySetup', () => {
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sous-setup-apply-'));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it.each(TIERS)('tier %s: writes the bundle and the promised cycle bound in one write, and reports what changed', async (tier) => {
    const paths = sousPaths(dir);
    await ensureConfigFile(paths);
    const promised = TIER_EFFECTS[tier].max_cycle_seconds;
    const r = await applySetup(paths.config, 'hybrid_balanced', tier);
    expect(loadConfig(paths.config)).toMatchObject({ policy: { bundle: 'hybrid_balanced' }, compute: { max_cycle_seconds: promised } });
    expect(r.settings).toEqual([
      { key: 'policy.bundle', from: 'local_balanced', to: 'hybrid_balanced' },
      { key: 'compute.max_cycle_seconds', from: 300, to: promised },
    ]);
    expect(r.changed.map((c) => c.key)).toEqual(promised === 300 ? ['policy.bundle'] : ['policy.bundle', 'compute.max_cycle_seconds']);
    expect(tierSettings(tier)).toEqual([['compute.max_cycle_seconds', promised]]);
  });

  it('without a tier writes only the bundle', async () => {
    const paths = sousPaths(dir);
    await ensureConfigFile(paths);
    const r = await applySetup(paths.config, 'cost_saver');
    expect(r.settings.map((s) => s.key)).toEqual(['policy.bundle']);
    expect(loadConfig(paths.config).compute.max_cycle_seconds).toBe(300);
  });

  it('refuses an unknown bundle and an invalid file, leaving the file byte for byte', async () => {
    const paths = sousPaths(dir);
    await ensureConfigFile(paths);
    const before = fs.readFileSync(paths.config, 'utf8');
    await expect(applySetup(paths.config, 'turbo', 'light')).rejects.toBeInstanceOf(UnknownBundleError);
    expect(fs.readFileSync(paths.config, 'utf8')).toBe(before);

    const broken = before.replace(/cpu_fraction = [0-9.]+/, 'cpu_fraction = 7');
    fs.writeFileSync(paths.config, broken);
    await expect(applySetup(paths.config, 'local_heavy', 'high_performance')).rejects.toBeInstanceOf(ConfigError);
    expect(fs.readFileSync(paths.config, 'utf8')).toBe(broken);
  });
});
