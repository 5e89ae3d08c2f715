import * as fs from 'node:fs';
import * as path from 'node:path';
import { ensureConfigFile, loadConfig, sousPaths } from '@sous/config';
import { BUNDLE_IDS, TIER_EFFECTS } from '@sous/setup';
import { CLI, sous } from '../../../test/support/cli';
import { makeTempDir, rmTempDir } from '../../../test/support/tmp';

const TIER_DEFAULT: Record<string, string> = {
  unknown: 'hybrid_balanced',
  light: 'local_lightweight',
  capable: 'local_balanced',
  high_performance: 'local_heavy',
};

describe('sous setup (compiled CLI as a child process)', () => {
  let dir: string;

  beforeAll(() => {
    if (!fs.existsSync(CLI)) throw new Error(`${CLI} is missing: run \`npx tsc -b services/cli\` first`);
  });
  beforeEach(() => {
    dir = makeTempDir('sous-setup-cli-');
  });
  afterEach(() => {
    rmTempDir(dir);
  });

  test('recommend --json returns tier, bundle, all seven scores, the trail and the hardware', async () => {
    const r = await sous(['setup', 'recommend', '--path', dir, '--json']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(Object.keys(r.json).sort()).toEqual(['bundle_id', 'hardware', 'scores', 'tier', 'trail']);
    expect(Object.keys(TIER_EFFECTS)).toContain(r.json.tier);
    expect(r.json.bundle_id).toBe(TIER_DEFAULT[r.json.tier]);
    expect(r.json.scores.map((s: { bundle_id: string }) => s.bundle_id)).toEqual(BUNDLE_IDS);
    expect(r.json.trail.length).toBeGreaterThan(3);
    expect(r.json.trail[r.json.trail.length - 1]).toContain(`recommended ${r.json.bundle_id}`);
    expect(r.json.hardware.ram_gb).toBeGreaterThan(0);
    // recommend only reads: no .sous/ appears
    expect(fs.readdirSync(dir)).toEqual([]);
  });

  test('apply with an unknown id fails with one line listing the valid ids and leaves the config untouched', async () => {
    const paths = sousPaths(dir);
    await ensureConfigFile(paths);
    const before = fs.readFileSync(paths.config);
    const r = await sous(['setup', 'apply', 'turbo', '--path', dir]);
    expect(r.code).not.toBe(0);
    expect(r.stdout).toBe('');
    expect(r.stderr.trimEnd().split('\n')).toEqual([`sous: unknown policy bundle "turbo": use one of ${BUNDLE_IDS.join(', ')}`]);
    expect(fs.readFileSync(paths.config).equals(before)).toBe(true);
  });

  test('apply without .sous/config.toml tells the user to run sous init and creates nothing', async () => {
    const r = await sous(['setup', 'apply', 'local_heavy', '--path', dir]);
    expect(r.code).not.toBe(0);
    expect(r.stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/^sous: no .*config\.toml: run `sous init --path .*` first\n$/);
    expect(fs.readdirSync(dir)).toEqual([]);
  });

  test('apply persists policy.bundle through the config file, and show reports it', async () => {
    const paths = sousPaths(dir);
    await ensureConfigFile(paths);
    const r = await sous(['setup', 'apply', 'deep_research', '--path', dir, '--json']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.json).toMatchObject({ bundle_id: 'deep_research', previous_bundle_id: expect.any(String), tier: expect.any(String), config: paths.config });
    expect(loadConfig(paths.config).policy.bundle).toBe('deep_research');
    // no temp file left next to the config
    expect(fs.readdirSync(path.dirname(paths.config)).filter((f) => f.endsWith('.tmp'))).toEqual([]);

    const show = await sous(['setup', 'show', '--path', dir, '--json']);
    expect(show.code).toBe(0);
    expect(show.json.bundle_id).toBe('deep_research');
    expect(show.json.bundle.goal_weighting).toBe(1.4);
    expect(show.json.from_config).toBe(true);
    expect(Object.keys(TIER_EFFECTS)).toContain(show.json.tier);

    const text = await sous(['setup', 'show', '--path', dir]);
    expect(text.stdout).toContain('Active policy bundle: deep_research');
    expect(text.stdout).toMatch(/explore\s+\+0\.15/);
  });

  test.each(Object.keys(TIER_EFFECTS))('applying tier %s writes the settings it promises (compute.max_cycle_seconds) and says so', async (tier) => {
    const paths = sousPaths(dir);
    await ensureConfigFile(paths);
    const promised = TIER_EFFECTS[tier as keyof typeof TIER_EFFECTS].max_cycle_seconds;
    const r = await sous(['setup', 'apply', 'local_lightweight', '--tier', tier, '--path', dir]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`Hardware tier ${tier}: runtime `);
    expect(r.stdout).toContain(`cycles ≤ ${promised} s`);
    expect(r.stdout).toMatch(new RegExp(`^  compute\\.max_cycle_seconds = ${promised} `, 'm'));
    expect(loadConfig(paths.config).compute.max_cycle_seconds).toBe(promised);

    const json = (await sous(['setup', 'apply', 'local_lightweight', '--tier', tier, '--path', dir, '--json'])).json;
    expect(json).toMatchObject({ tier, changed: [] });
    expect(json.settings).toContainEqual({ key: 'compute.max_cycle_seconds', from: promised, to: promised });
  });

  test('apply refuses an unknown --tier and leaves the config untouched', async () => {
    const paths = sousPaths(dir);
    await ensureConfigFile(paths);
    const before = fs.readFileSync(paths.config);
    const r = await sous(['setup', 'apply', 'local_heavy', '--tier', 'huge', '--path', dir]);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe('sous: --tier must be one of unknown, light, capable, high_performance (found huge)\n');
    expect(fs.readFileSync(paths.config).equals(before)).toBe(true);
  });

  test('advanced lists all seven bundles with every dimension and marks active and recommended', async () => {
    await ensureConfigFile(sousPaths(dir));
    expect((await sous(['setup', 'apply', 'cost_saver', '--path', dir])).code).toBe(0);
    const r = await sous(['setup', 'advanced', '--path', dir]);
    expect(r.code).toBe(0);
    const lines = r.stdout.split('\n');
    expect(lines[0]).toMatch(/id\s+posture\s+runtime\s+spend\s+latency\s+privacy\s+drafting\s+explore\s+persist\s+goal_weighting\s+context_injection\s+deep_run/);
    for (const id of BUNDLE_IDS) expect(lines.some((l) => l.includes(` ${id} `))).toBe(true);
    expect(lines.find((l) => l.includes(' cost_saver '))).toMatch(/^\*/);
    expect(lines.filter((l) => /^.R /.test(l))).toHaveLength(1);

    const json = (await sous(['setup', 'advanced', '--path', dir, '--json'])).json;
    expect(json.active_bundle_id).toBe('cost_saver');
    expect(json.bundles).toHaveLength(7);
    expect(json.recommended_bundle_id).toBe(TIER_DEFAULT[json.tier]);
  });

  test('hardware prints the snapshot with the thermal flag and the tier', async () => {
    const r = await sous(['setup', 'hardware', '--path', dir]);
    expect(r.code).toBe(0);
    for (const label of ['RAM', 'CPU', 'GPU', 'battery', 'thermal', 'local runtimes', 'tier']) expect(r.stdout).toMatch(new RegExp(`^${label}\\s`, 'm'));
    const json = (await sous(['setup', 'hardware', '--path', dir, '--json'])).json;
    expect(typeof json.thermal_constrained).toBe('boolean');
    expect(Object.keys(TIER_EFFECTS)).toContain(json.tier);
  });
});
