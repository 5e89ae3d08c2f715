import * as fs from 'node:fs';
import type { Command } from 'commander';
import { loadConfig, type SousPaths } from '@sous/config';
import {
  BUNDLE_DIMENSIONS,
  BUNDLE_IDS,
  POLICY_BUNDLES,
  TIER_EFFECTS,
  TIERS,
  UnknownBundleError,
  applySetup,
  classifyTier,
  isTier,
  formatDimension,
  getBundle,
  isBundleId,
  probeHardware,
  recommendBundle,
  type HardwareSnapshot,
  type PolicyBundle,
} from '@sous/setup';
import { CliError } from '../cli-error';
import { printJson, printLine, printTable } from '../output';
import { run } from '../run';
import { resolveWorkspace } from '../workspace';

interface SetupOptions {
  /** Workspace directory; default: nearest `.sous/` upward from the current directory. */
  path?: string;
  /** Print machine-readable JSON instead of text. */
  json?: boolean;
}

const PATH_HELP = 'workspace directory (default: nearest .sous/ upward)';

/** The active bundle id from the workspace config (the default bundle when there is no config yet). */
function activeBundle(paths: SousPaths): { bundle: Readonly<PolicyBundle>; fromFile: boolean } {
  const cfg = loadConfig(paths.config);
  return { bundle: getBundle(cfg.policy.bundle), fromFile: fs.existsSync(paths.config) };
}

function noConfigNote(paths: SousPaths): string {
  return `no ${paths.config} yet: showing the default; run \`sous init --path ${paths.root}\``;
}

/** Rows of `dimension  value` for one bundle. */
function bundleRows(b: Readonly<PolicyBundle>): Array<[string, string]> {
  return BUNDLE_DIMENSIONS.map((d) => [`  ${d}`, formatDimension(b, d)]);
}

/** Prints rows as left-aligned columns (first row is the header). */
function printColumns(rows: string[][]): void {
  const widths: number[] = [];
  for (const r of rows) r.forEach((cell, i) => (widths[i] = Math.max(widths[i] ?? 0, cell.length)));
  for (const r of rows) printLine(r.map((cell, i) => (i === r.length - 1 ? cell : cell.padEnd(widths[i] ?? 0))).join('  ').trimEnd());
}

function describeGpu(s: HardwareSnapshot): string {
  if (s.gpu_kind === 'none' || s.gpu_kind === 'unknown') return s.gpu_kind;
  const vram = s.gpu_kind === 'unified_memory' ? 'unified memory (VRAM shared with RAM)' : s.gpu_vram_gb === null ? 'VRAM unknown' : `${s.gpu_vram_gb} GB VRAM`;
  const name = [s.gpu_vendor, s.gpu_model].filter(Boolean).join(' ');
  return `${s.gpu_kind}${name ? ` (${name})` : ''}, ${vram}`;
}

function printHardware(s: HardwareSnapshot): void {
  const tier = classifyTier(s);
  const rows: Array<[string, string]> = [
    ['OS probe', s.os_probe_ok ? `ok (${s.platform ?? 'platform unknown'})` : 'failed entirely'],
    ['RAM', `${s.ram_gb} GB`],
    ['CPU', `${s.cpu_class} (${s.cpu_brand ?? 'unknown'}, ${s.cpu_physical_cores ?? '?'} physical cores, ${s.cpu_speed_ghz === null ? 'speed unknown' : `${s.cpu_speed_ghz} GHz`})`],
    ['GPU', describeGpu(s)],
    ['battery', s.battery_present ? 'present (counts as on battery)' : 'none'],
    [
      'thermal',
      s.thermal_constrained
        ? `CONSTRAINED: hottest zone ${s.thermal_max_c} °C > 85 (logged only; the tier is unchanged)`
        : s.thermal_max_c === null ? 'no reading' : `ok (hottest zone ${s.thermal_max_c} °C)`,
    ],
    ['local runtimes', s.runtimes.length === 0 ? 'none answered on loopback' : s.runtimes.map((r) => `${r.name} at ${r.base_url} (${r.models.length} models)`).join('; ')],
    ['tier', tier.tier],
  ];
  printTable(rows);
  for (const r of tier.reasons) printLine(`  ${r}`);
  for (const e of s.probe_errors) printLine(`probe fell back: ${e}`);
}

/** `sous setup show|recommend|apply|hardware|advanced` (spec 2.9, 2.10, 4.7). */
export function registerSetupCommands(program: Command): void {
  const setup = program.command('setup').description('policy bundles and the hardware profile');

  setup
    .command('show')
    .description('the active policy bundle with all its dimensions, and the hardware tier now')
    .option('--path <dir>', PATH_HELP)
    .option('--json', 'print JSON')
    .action(
      run(async (opts: SetupOptions) => {
        const paths = resolveWorkspace(opts.path);
        const { bundle, fromFile } = activeBundle(paths);
        const { tier, reasons } = classifyTier(await probeHardware());
        if (opts.json) return printJson({ bundle_id: bundle.id, bundle, from_config: fromFile, config: paths.config, tier, tier_reasons: reasons });
        if (!fromFile) printLine(`note: ${noConfigNote(paths)}`);
        printLine(`Active policy bundle: ${bundle.id}`);
        printTable(bundleRows(bundle));
        const e = TIER_EFFECTS[tier];
        printLine(`Hardware tier now: ${tier} (runtime ${e.runtime_profile}, cycles ≤ ${e.max_cycle_seconds} s, concurrency ${e.concurrency}, Deep-Run ${e.deep_run_preset})`);
      }),
    );

  setup
    .command('recommend')
    .description('score all seven bundles against the hardware tier and show the reasoning trail')
    .option('--path <dir>', PATH_HELP)
    .option('--json', 'print JSON: { tier, bundle_id, scores, trail, hardware }')
    .action(
      run(async (opts: SetupOptions) => {
        resolveWorkspace(opts.path); // validates --path like every other command
        const hardware = await probeHardware();
        const rec = recommendBundle(hardware);
        if (opts.json) return printJson({ tier: rec.tier, bundle_id: rec.bundle_id, scores: rec.scores, trail: rec.trail, hardware });
        printLine(`Hardware tier: ${rec.tier}`);
        printLine(`Recommended bundle: ${rec.bundle_id}`);
        printLine();
        printColumns([['bundle', 'score', ''], ...rec.scores.map((s) => [s.bundle_id, String(s.score), s.bundle_id === rec.bundle_id ? '<- recommended' : ''])]);
        printLine();
        printLine('Reasoning:');
        for (const line of rec.trail) printLine(`  ${line}`);
        printLine();
        printLine(`Apply it with: sous setup apply ${rec.bundle_id}`);
      }),
    );

  setup
    .command('apply <bundle_id>')
    .description('persist a policy bundle and the hardware tier\'s settings in .sous/config.toml (a running daemon reloads it)')
    .option('--path <dir>', PATH_HELP)
    .option('--tier <tier>', `write this tier's settings instead of the probed tier's (${TIERS.join(', ')})`)
    .option('--json', 'print JSON: { bundle_id, previous_bundle_id, tier, settings, changed, config }')
    .action(
      run(async (bundleId: string, opts: SetupOptions & { tier?: string }) => {
        if (!isBundleId(bundleId)) throw new CliError(new UnknownBundleError(bundleId).message);
        if (opts.tier !== undefined && !isTier(opts.tier)) throw new CliError(`--tier must be one of ${TIERS.join(', ')} (found ${opts.tier})`, 2);
        const paths = resolveWorkspace(opts.path);
        if (!fs.existsSync(paths.config)) throw new CliError(`no ${paths.config}: run \`sous init --path ${paths.root}\` first`);
        const tier = opts.tier !== undefined && isTier(opts.tier) ? opts.tier : classifyTier(await probeHardware()).tier;
        const result = await applySetup(paths.config, bundleId, tier);
        if (opts.json) return printJson(result);
        printLine(result.previous_bundle_id === bundleId ? `Policy bundle ${bundleId} was already active` : `Policy bundle ${bundleId} applied (was ${result.previous_bundle_id})`);
        const e = TIER_EFFECTS[tier];
        printLine(`Hardware tier ${tier}: runtime ${e.runtime_profile}, cycles ≤ ${e.max_cycle_seconds} s, concurrency ${e.concurrency}, Deep-Run ${e.deep_run_preset}`);
        for (const c of result.settings) printLine(`  ${c.key} = ${JSON.stringify(c.to)}${JSON.stringify(c.from) === JSON.stringify(c.to) ? ' (unchanged)' : ` (was ${JSON.stringify(c.from)})`}`);
        printLine(`Written to ${paths.config}; a running daemon reloads it on its own.`);
      }),
    );

  setup
    .command('hardware')
    .description('probe this machine now (read-only, nothing cached) and show the snapshot and tier')
    .option('--path <dir>', PATH_HELP)
    .option('--json', 'print JSON')
    .action(
      run(async (opts: SetupOptions) => {
        resolveWorkspace(opts.path);
        const snapshot = await probeHardware();
        if (opts.json) return printJson({ ...snapshot, tier: classifyTier(snapshot).tier });
        printHardware(snapshot);
      }),
    );

  setup
    .command('advanced')
    .description('all seven bundles with every dimension, marking the active and the recommended one')
    .option('--path <dir>', PATH_HELP)
    .option('--json', 'print JSON')
    .action(
      run(async (opts: SetupOptions) => {
        const paths = resolveWorkspace(opts.path);
        const { bundle: active, fromFile } = activeBundle(paths);
        const rec = recommendBundle(await probeHardware());
        if (opts.json) {
          return printJson({ tier: rec.tier, active_bundle_id: active.id, recommended_bundle_id: rec.bundle_id, bundles: POLICY_BUNDLES });
        }
        if (!fromFile) printLine(`note: ${noConfigNote(paths)}`);
        const header = ['', 'id', ...BUNDLE_DIMENSIONS];
        const rows = POLICY_BUNDLES.map((b) => {
          const mark = `${b.id === active.id ? '*' : ' '}${b.id === rec.bundle_id ? 'R' : ' '}`;
          return [mark, b.id, ...BUNDLE_DIMENSIONS.map((d) => formatDimension(b, d))];
        });
        printColumns([header, ...rows]);
        printLine();
        printLine(`* active (${active.id})   R recommended for tier ${rec.tier} (${rec.bundle_id})   valid ids: ${BUNDLE_IDS.join(', ')}`);
      }),
    );
}
