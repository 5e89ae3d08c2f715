import type { Command } from 'commander';
import { DaemonRequestError } from '@sous/runtime';
import { CliError } from '../cli-error';
import { requireClient } from '../daemon-control';
import { printJson, printLine } from '../output';
import { run } from '../run';
import { resolveWorkspace } from '../workspace';

/**
 * `sous forget` (docs/resolve.md): clears what Sous retained about how it was used in this workspace —
 * resolutions, predictions, feedback and what the skills loop learned from it — through the running daemon. Asks nothing (scriptable);
 * goals, cards and the index stay. Active goals seed fresh predictions on the next refresh.
 */
export function registerForgetCommand(program: Command): void {
  program
    .command('forget')
    .description('clear retained state of the workspace: resolutions, predictions, feedback')
    .option('--path <dir>', 'repository (default: nearest .sous/ upward)')
    .option('--json', 'print as JSON')
    .action(
      run(async (opts: { path?: string; json?: boolean }) => {
        const client = requireClient(resolveWorkspace(opts.path));
        const body = await client.post<{ forgotten: { resolutions: number; predictions: number; feedback: number; skill_states?: number } }>('/v1/forget', {}).catch((err: unknown) => {
          if (err instanceof DaemonRequestError) throw new CliError(err.message, err.status === 400 ? 2 : 1);
          throw err;
        });
        if (opts.json) return printJson(body);
        const f = body.forgotten;
        printLine(`Forgot ${f.resolutions} resolution(s), ${f.predictions} prediction(s), ${f.feedback} feedback record(s)${f.skill_states ? `, ${f.skill_states} learned skill weight(s)` : ''}.`);
      }),
    );
}
