import type { Command } from 'commander';
import * as readline from 'node:readline/promises';
import { ensureConfigFile, loadConfig, type SousPaths } from '@sous/config';
import { FocusRegistry, sousHome } from '@sous/focus';
import { applySetup, probeHardware, recommendBundle } from '@sous/setup';
import { CliError } from '../cli-error';
import { printJson, printLine } from '../output';
import { refuseHugeNonRepository, gitTopLevel } from '../repo-check';
import { run } from '../run';
import { resolveWorkspace } from '../workspace';

export interface InitResult {
  workspace: string;
  state_dir: string;
  config: string;
  created: boolean;
  git_repository: boolean;
  tier: string;
  bundle_id: string;
  applied: boolean;
  trail: string[];
}

/**
 * Creates `.sous/` (with its own `.gitignore` of `*`) and the config, probes the hardware and
 * applies the recommended bundle. Touches nothing in the repository outside `.sous/`.
 * A new config also gets the tier's settings (e.g. `compute.max_cycle_seconds`); an existing one
 * keeps its values and only `policy.bundle` is (re)applied.
 */
export async function initWorkspace(paths: SousPaths, options: { interactive: boolean; force: boolean }): Promise<InitResult> {
  const refusal = refuseHugeNonRepository(paths.root, options.force);
  if (refusal) throw new CliError(refusal);
  const { created } = await ensureConfigFile(paths);
  loadConfig(paths.config); // an existing invalid config is reported before anything else changes
  // Wired for Auto Focus (docs/focus.md): every daemon now knows this workspace.
  new FocusRegistry(sousHome()).register(paths.root);
  const snapshot = await probeHardware();
  const rec = recommendBundle(snapshot);
  let applied = true;
  if (options.interactive) {
    const rl = readline.createInterface({ input: process.stdin, output: process.stdout });
    const answer = (await rl.question(`Hardware tier ${rec.tier}: apply policy bundle ${rec.bundle_id}? [Y/n] `)).trim().toLowerCase();
    rl.close();
    applied = answer === '' || answer === 'y' || answer === 'yes';
  }
  if (applied) await applySetup(paths.config, rec.bundle_id, created ? rec.tier : undefined);
  return {
    workspace: paths.root,
    state_dir: paths.dir,
    config: paths.config,
    created,
    git_repository: gitTopLevel(paths.root) !== undefined,
    tier: rec.tier,
    bundle_id: rec.bundle_id,
    applied,
    trail: rec.trail,
  };
}

export function registerInitCommand(program: Command): void {
  program
    .command('init')
    .description('create .sous/ in a repository: config, hardware probe, recommended policy bundle')
    .option('--path <dir>', 'repository to prepare for', '.')
    .option('--non-interactive', 'apply the recommended bundle without asking')
    .option('--force', 'allow a huge directory that is not a git repository')
    .option('--json', 'print the result as JSON')
    .action(
      run(async (opts: { path: string; nonInteractive?: boolean; force?: boolean; json?: boolean }) => {
        const paths = resolveWorkspace(opts.path);
        const interactive = !opts.nonInteractive && !opts.json && process.stdin.isTTY === true;
        const result = await initWorkspace(paths, { interactive, force: opts.force === true });
        if (opts.json) return printJson(result);
        printLine(result.created ? `Created ${result.state_dir} (ignored by its own .gitignore)` : `Using existing ${result.state_dir}`);
        if (!result.git_repository) printLine(`Note: ${result.workspace} is not a git repository; Sous works best on one.`);
        printLine(`Hardware tier: ${result.tier}`);
        printLine(result.applied ? `Policy bundle: ${result.bundle_id} (applied)` : `Policy bundle: ${result.bundle_id} recommended, not applied (sous setup apply ${result.bundle_id})`);
        for (const line of result.trail) printLine(`  ${line}`);
        printLine(`Next: sous up --path ${result.workspace}`);
      }),
    );
}
