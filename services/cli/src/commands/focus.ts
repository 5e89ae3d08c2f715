import type { Command } from 'commander';
import { FOCUS_MODES, FocusRegistry, sousHome, workspaceKey, type FocusAction, type FocusMode, type WorkspaceFocus } from '@sous/focus';
import { DaemonRequestError } from '@sous/runtime';
import { CliError } from '../cli-error';
import { clientFor } from '../daemon-control';
import { printJson, printLine } from '../output';
import { run } from '../run';
import { resolveWorkspace } from '../workspace';

/** What `GET /focus` answers (services/daemon/src/routes/focus.ts). */
interface FocusView {
  workspace: string;
  this_workspace: WorkspaceFocus & { may_read: boolean; may_prepare: boolean };
  selected: string | null;
  mode: FocusMode;
  status: string;
  reasons: string[];
  workspaces: WorkspaceFocus[];
  clients: { running: Array<{ id: string; name: string; pids: number[] }>; method: string };
}

const rethrow = (err: unknown): never => {
  if (err instanceof DaemonRequestError) throw new CliError(err.message, err.status === 404 ? 2 : 1);
  throw err;
};

/** The wired workspace at or above `dir`, or a one-line error saying how to wire it. */
function wiredWorkspace(registry: FocusRegistry, dir: string | undefined): { root: string; id: string } {
  const paths = resolveWorkspace(dir);
  const id = workspaceKey(paths.root);
  if (registry.read().workspaces[id] === undefined) {
    throw new CliError(`${paths.root} is not a wired workspace; run sous up --path ${paths.root} (or sous init) there first`, 2);
  }
  return { root: paths.root, id };
}

function printView(view: FocusView): void {
  const own = view.this_workspace;
  const headline = own.may_prepare
    ? `Sous is preparing work for ${own.root}.`
    : own.class === 'paused'
      ? `Sous is paused for ${own.root}: it reads nothing there.`
      : `Sous is not preparing work for ${own.root} right now.`;
  printLine(headline);
  printLine(own.reason);
  printLine(own.action);
  const running = view.clients.running;
  printLine('');
  printLine(running.length ? `AI clients running: ${running.map((c) => `${c.name} (pid ${c.pids.join(', ')})`).join('; ')}` : 'AI clients running: none found');
  printLine(`Mode: ${view.mode}${view.mode === 'manual-only' ? ' (Sous works only where you say: sous focus work-here <dir>)' : ' (Sous picks the workspace you are working in when it is sure)'}`);
  if (view.workspaces.length > 1) {
    printLine('Workspaces:');
    for (const w of view.workspaces) printLine(`  ${w.class.padEnd(8)}  ${w.root}  ${w.reason}`);
  }
}

/**
 * `sous focus …` (spec 4.7): status from the workspace's daemon (it decides), and user actions. An
 * action goes to the daemon when one runs for that workspace, else straight into the shared focus
 * registry, which every daemon reads within a second.
 */
export function registerFocusCommands(program: Command): void {
  const focus = program.command('focus').description('Auto Focus: where Sous may work, and why it is (not) working');

  focus
    .command('status')
    .description('whether Sous is working here, why (not), and what to do about it')
    .option('--path <dir>', 'workspace (default: nearest .sous/ upward)')
    .option('--json', 'print as JSON')
    .action(
      run(async (opts: { path?: string; json?: boolean }) => {
        const paths = resolveWorkspace(opts.path);
        const client = clientFor(paths);
        if (client === undefined) {
          const registry = new FocusRegistry(sousHome());
          const choice = registry.read().workspaces[workspaceKey(paths.root)];
          const idle = {
            workspace: workspaceKey(paths.root),
            daemon: false,
            class: choice?.paused ? 'paused' : 'idle',
            reason: `Idle: no Sous daemon runs for ${paths.root}, so nothing is prepared there.`,
            action: `Action: sous up --path ${paths.root}`,
            ...(choice ? { paused: choice.paused, pinned: choice.pinned } : { wired: false }),
          };
          if (opts.json) return printJson(idle);
          return [idle.reason, idle.action, ...(choice?.paused ? ['It is also paused: sous focus resume once it runs.'] : [])].forEach((l) => printLine(l));
        }
        const view = await client.get<FocusView>('/focus').catch(rethrow);
        if (opts.json) return printJson(view);
        printView(view);
      }),
    );

  const action = (kind: 'work-here' | 'pin' | 'unpin' | 'pause' | 'resume', description: string): void => {
    focus
      .command(`${kind} [dir]`)
      .description(description)
      .option('--all', kind === 'pause' ? 'pause every workspace' : 'not used')
      .option('--json', 'print the resulting focus as JSON')
      .action(
        run(async (dir: string | undefined, opts: { all?: boolean; json?: boolean }) => {
          const registry = new FocusRegistry(sousHome());
          if (opts.all && kind !== 'pause') throw new CliError(`--all goes with pause only (sous focus pause --all)`, 2);
          const target = opts.all ? undefined : wiredWorkspace(registry, dir);
          const act: FocusAction = target === undefined ? { kind: 'pause-all' } : { kind, id: target.id };
          const client = target === undefined ? undefined : clientFor(resolveWorkspace(target.root));
          if (client !== undefined && target !== undefined) {
            const view = await client.post<FocusView>(`/focus/workspaces/${encodeURIComponent(target.id)}/${kind}`, {}).catch(rethrow);
            if (opts.json) return printJson(view);
            return printView(view);
          }
          const result = registry.apply(act);
          if (!result.ok) throw new CliError(result.error.message, 2);
          if (opts.json) return printJson({ state: result.state });
          printLine(target === undefined ? 'Every workspace is paused: Sous reads nothing until you resume one.' : `${kind} recorded for ${target.root}; its daemon applies it within a second.`);
        }),
      );
  };
  action('work-here', 'prepare for this workspace now (beats Auto Focus until another work-here, a pin or unpin)');
  action('pin', 'keep this workspace selected, across restarts, until unpin');
  action('unpin', 'release a pin or work-here; Auto Focus chooses again');
  action('pause', 'no reads, no indexing, no reasoning, no Prepared Work here (--all: everywhere)');
  action('resume', 'leave paused; Auto Focus decides what comes next');

  focus
    .command('mode <mode>')
    .description(`auto (Sous picks the workspace when sure) or manual-only (only where you say)`)
    .option('--json', 'print the resulting state as JSON')
    .action(
      run(async (mode: string, opts: { json?: boolean }) => {
        if (!(FOCUS_MODES as readonly string[]).includes(mode)) throw new CliError(`mode must be one of ${FOCUS_MODES.join(', ')} (found ${mode})`, 2);
        const result = new FocusRegistry(sousHome()).apply({ kind: 'set-mode', mode: mode as FocusMode });
        if (!result.ok) throw new CliError(result.error.message, 2);
        if (opts.json) return printJson({ state: result.state });
        printLine(mode === 'auto' ? 'Auto Focus: Sous prepares for the workspace you are working in when it is sure.' : 'Manual only: Sous prepares only where you run sous focus work-here <dir> (or pin).');
      }),
    );
}
