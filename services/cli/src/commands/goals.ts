import type { Command } from 'commander';
import type { GoalView } from '@sous/engine';
import { DaemonRequestError } from '@sous/runtime';
import { CliError } from '../cli-error';
import { requireClient } from '../daemon-control';
import { printJson, printLine } from '../output';
import { run } from '../run';
import { resolveWorkspace } from '../workspace';

/** A refused value or an unknown id is bad usage (exit 2); anything else the daemon refused is exit 1. */
function rethrow(err: unknown): never {
  if (err instanceof DaemonRequestError) throw new CliError(err.message, err.status === 400 || err.status === 404 ? 2 : 1);
  throw err;
}

const collect = (value: string, previous: string[]): string[] => [...previous, value];

function printGoal(g: GoalView): void {
  const why = g.reconciliation_reasons.length ? `: ${g.reconciliation_reasons.join('; ')}` : '';
  printLine(`${g.id}  ${g.status.padEnd(9)}  ${g.reconciliation_state.padEnd(12)}  ${g.title}${why}`);
  if (g.related_files.length) printLine(`    files: ${g.related_files.join(', ')}`);
}

interface Common {
  path?: string;
  json?: boolean;
}

/**
 * `sous goals declare|list|status|delete` (spec 2.3, 3.3; docs/goals.md): the workspace's goals,
 * through the running daemon, which keeps them in its store and reconciles them as the repository changes.
 */
export function registerGoalsCommands(program: Command): void {
  const goals = program.command('goals').description('long-horizon goals of the workspace');
  goals
    .command('declare <title>')
    .description('declare a goal (status active unless --status says otherwise)')
    .option('--path <dir>', 'repository (default: nearest .sous/ upward)')
    .option('--description <text>', 'more detail')
    .option('--status <status>', 'active, paused, abandoned or achieved')
    .option('--file <path>', 'a repository-relative file the goal concerns (repeatable)', collect, [])
    .option('--json', 'print as JSON')
    .action(
      run(async (title: string, opts: Common & { description?: string; status?: string; file: string[] }) => {
        const client = requireClient(resolveWorkspace(opts.path));
        const body = { title, ...(opts.description !== undefined ? { description: opts.description } : {}), ...(opts.status ? { status: opts.status } : {}), related_files: opts.file };
        const { goal } = await client.post<{ goal: GoalView }>('/goals', body).catch(rethrow);
        if (opts.json) return printJson({ goal });
        printLine('Goal declared:');
        printGoal(goal);
      }),
    );
  goals
    .command('list')
    .description('the goals, oldest first, with status and reconciliation state')
    .option('--path <dir>', 'repository (default: nearest .sous/ upward)')
    .option('--status <status>', 'only goals with this status (repeatable)', collect, [])
    .option('--json', 'print as JSON')
    .action(
      run(async (opts: Common & { status: string[] }) => {
        const client = requireClient(resolveWorkspace(opts.path));
        const query = opts.status.length ? `?${opts.status.map((s) => `status=${encodeURIComponent(s)}`).join('&')}` : '';
        const body = await client.get<{ goals: GoalView[] }>(`/goals${query}`).catch(rethrow);
        if (opts.json) return printJson(body);
        if (body.goals.length === 0) return printLine('No goals. Declare one with: sous goals declare "<title>" --file <path>');
        for (const g of body.goals) printGoal(g);
      }),
    );
  goals
    .command('status <id> <status>')
    .description('set a goal to active, paused, abandoned or achieved (active again re-records its evidence)')
    .option('--path <dir>', 'repository (default: nearest .sous/ upward)')
    .option('--json', 'print as JSON')
    .action(
      run(async (id: string, status: string, opts: Common) => {
        const client = requireClient(resolveWorkspace(opts.path));
        const { goal } = await client.post<{ goal: GoalView }>(`/goals/${encodeURIComponent(id)}/status`, { status }).catch(rethrow);
        if (opts.json) return printJson({ goal });
        printGoal(goal);
      }),
    );
  goals
    .command('delete <id>')
    .description('delete a goal for good')
    .option('--path <dir>', 'repository (default: nearest .sous/ upward)')
    .option('--json', 'print as JSON')
    .action(
      run(async (id: string, opts: Common) => {
        const client = requireClient(resolveWorkspace(opts.path));
        const body = await client.post<{ deleted: string }>(`/goals/${encodeURIComponent(id)}/delete`, {}).catch(rethrow);
        if (opts.json) return printJson(body);
        printLine(`Goal ${body.deleted} deleted.`);
      }),
    );
}
