import type { Command } from 'commander';
import * as readline from 'node:readline/promises';
import * as os from 'node:os';
import { ensureConfigFile, loadConfig, setConfigValues, type SousPaths } from '@sous/config';
import { FocusRegistry, sousHome } from '@sous/focus';
import { scopeCoverage, scopePolicyFromConfig } from '@sous/retrieval';
import { applySetup, clients, probeHardware, recommendBundle } from '@sous/setup';
import { CliError } from '../cli-error';
import { LAUNCH_FAILURES, clientIdsFrom, printClientReport, wiringStore, wiringTarget } from '../client-wiring';
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
  /** The read scope and how much of the repository it covers (null outside a git repository). */
  scope: InitScope | null;
  /** The ten clients and which are installed here; `wired` holds launch's reports for `--clients`. */
  clients: { detected: clients.DetectedClient[]; wired: Array<clients.ClientReport<clients.LaunchStatus>> };
}

export interface InitScope {
  allowed_paths: string[];
  /** Globs init added to a new config because the code lives outside the default scope (`lib/**`, `app/**`, …). */
  added: string[];
  files: number;
  in_scope: number;
  /** Code files (by extension) still out of scope. */
  code_left_out: number;
  /** Globs that would take them in (the config is only changed by init on a new config). */
  suggested: string[];
}

/**
 * Where the code is: on a new config, adds the globs that take in code the default scope
 * (`src/**`, `docs/**`) leaves out, so `context` does not silently answer nothing on a repository
 * whose code lives in `lib/`, `app/`, `pkg/`, …; an existing config's scope is only reported.
 */
async function settleScope(paths: SousPaths, created: boolean): Promise<InitScope | null> {
  let config = loadConfig(paths.config);
  let coverage;
  try {
    coverage = await scopeCoverage(paths.root, scopePolicyFromConfig(config));
  } catch {
    return null; // not a git repository: nothing is indexed there anyway
  }
  const added: string[] = [];
  if (created && coverage.suggestedGlobs.length > 0) {
    added.push(...coverage.suggestedGlobs);
    ({ next: config } = await setConfigValues(paths.config, [['privacy.allowed_paths', [...config.privacy.allowed_paths, ...added]]]));
    coverage = await scopeCoverage(paths.root, scopePolicyFromConfig(config));
  }
  return {
    allowed_paths: config.privacy.allowed_paths,
    added,
    files: coverage.total,
    in_scope: coverage.inScope,
    code_left_out: coverage.outOfScopeCode,
    suggested: coverage.suggestedGlobs,
  };
}

/**
 * Creates `.sous/` (with its own `.gitignore` of `*`) and the config, probes the hardware and
 * applies the recommended bundle. Touches nothing in the repository outside `.sous/`.
 * A new config also gets the tier's settings (e.g. `compute.max_cycle_seconds`); an existing one
 * keeps its values and only `policy.bundle` is (re)applied.
 */
export async function initWorkspace(paths: SousPaths, options: { interactive: boolean; force: boolean; clients?: clients.ClientId[] | 'auto'; composer?: boolean }): Promise<InitResult> {
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
  const scope = await settleScope(paths, created);
  const detected = clients.detectClients({ home: os.homedir(), platform: process.platform });
  const chosen = options.clients === 'auto' ? detected.filter((d) => d.installed).map((d) => d.id) : (options.clients ?? []);
  const target = wiringTarget(paths);
  const wired = chosen.map((id) => clients.launchClient(id, target, wiringStore(paths), { composer: options.composer === true }));
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
    scope,
    clients: { detected, wired },
  };
}

function printScope(scope: InitScope | null): void {
  if (scope === null) return;
  printLine(`Scope: ${scope.allowed_paths.join(', ')}${scope.added.length ? ` (added ${scope.added.join(', ')}: the code is there)` : ''}`);
  const line = `Coverage: ${scope.in_scope} of ${scope.files} files in scope`;
  if (scope.code_left_out === 0) return printLine(`${line}; no code file left out`);
  printLine(`${line}; ${scope.code_left_out} code files left out${scope.suggested.length ? ` (to include them: sous config set privacy.allowed_paths '${JSON.stringify([...scope.allowed_paths, ...scope.suggested])}')` : ''}`);
}

export function registerInitCommand(program: Command): void {
  program
    .command('init')
    .description('create .sous/ in a repository: config, hardware probe, recommended policy bundle')
    .option('--path <dir>', 'repository to prepare for', '.')
    .option('--non-interactive', 'apply the recommended bundle without asking')
    .option('--force', 'allow a huge directory that is not a git repository')
    .option('--clients <ids>', `wire AI clients: "auto" (those installed here) or ids, comma-separated (${clients.CLIENT_IDS.join(', ')})`)
    .option('--composer', 'with --clients claude-code: also install the L0 composer hook (a hash and length of each prompt, never its text)')
    .option('--json', 'print the result as JSON')
    .action(
      run(async (opts: { path: string; nonInteractive?: boolean; force?: boolean; json?: boolean; clients?: string; composer?: boolean }) => {
        const paths = resolveWorkspace(opts.path);
        const interactive = !opts.nonInteractive && !opts.json && process.stdin.isTTY === true;
        // Ids are checked before anything is written.
        const wanted = opts.clients === undefined ? undefined : opts.clients.trim() === 'auto' ? ('auto' as const) : clientIdsFrom([opts.clients]);
        const result = await initWorkspace(paths, { interactive, force: opts.force === true, composer: opts.composer === true, ...(wanted !== undefined ? { clients: wanted } : {}) });
        if (result.clients.wired.some((r) => r.layers.some((l) => LAUNCH_FAILURES.includes(l.status)))) process.exitCode = 1;
        if (opts.json) return printJson(result);
        printLine(result.created ? `Created ${result.state_dir} (ignored by its own .gitignore)` : `Using existing ${result.state_dir}`);
        if (!result.git_repository) printLine(`Note: ${result.workspace} is not a git repository; Sous works best on one.`);
        printLine(`Hardware tier: ${result.tier}`);
        printLine(result.applied ? `Policy bundle: ${result.bundle_id} (applied)` : `Policy bundle: ${result.bundle_id} recommended, not applied (sous setup apply ${result.bundle_id})`);
        for (const line of result.trail) printLine(`  ${line}`);
        printScope(result.scope);
        const installed = result.clients.detected.filter((d) => d.installed);
        printLine(`AI clients installed here: ${installed.length ? installed.map((d) => d.id).join(', ') : 'none found'}`);
        for (const r of result.clients.wired) printClientReport(r, os.homedir());
        if (result.clients.wired.length === 0 && installed.length > 0) printLine(`Wire them: sous launch ${installed.map((d) => d.id).join(' ')} --path ${result.workspace}`);
        printLine(`Next: sous up --path ${result.workspace}`);
      }),
    );
}
