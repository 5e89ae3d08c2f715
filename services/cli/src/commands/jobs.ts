import type { Command } from 'commander';
import type { JobInfo } from '@sous/jobs';
import { DaemonRequestError } from '@sous/runtime';
import { CliError } from '../cli-error';
import { requireClient } from '../daemon-control';
import { printJson, printLine } from '../output';
import { run } from '../run';
import { resolveWorkspace } from '../workspace';

export function registerJobsCommands(program: Command): void {
  const jobs = program.command('jobs').description('background jobs of the running daemon');
  jobs
    .command('status')
    .description('recent jobs and their states')
    .option('--path <dir>', 'repository (default: nearest .sous/ upward)')
    .option('--limit <n>', 'how many', '20')
    .option('--json', 'print as JSON')
    .action(
      run(async (opts: { path?: string; limit: string; json?: boolean }) => {
        const client = requireClient(resolveWorkspace(opts.path));
        const body = await client.get<{ queue: string; jobs: JobInfo[] }>(`/jobs?limit=${encodeURIComponent(opts.limit)}`).catch(rethrow);
        if (opts.json) return printJson(body);
        if (body.jobs.length === 0) return printLine(`No jobs yet (${body.queue} queue).`);
        for (const j of body.jobs) printLine(`${j.id}  ${j.state.padEnd(9)}  ${j.name}  ${j.createdAt}${j.error ? `  ${j.error}` : ''}`);
      }),
    );
  jobs
    .command('cancel <id>')
    .description('cancel a queued or running job')
    .option('--path <dir>', 'repository (default: nearest .sous/ upward)')
    .option('--json', 'print as JSON')
    .action(
      run(async (id: string, opts: { path?: string; json?: boolean }) => {
        const client = requireClient(resolveWorkspace(opts.path));
        const body = await client.post<{ job: JobInfo }>(`/jobs/${encodeURIComponent(id)}/cancel`).catch(rethrow);
        if (opts.json) return printJson(body);
        printLine(`Job ${body.job.id}: ${body.job.state}`);
      }),
    );
}

/** A daemon error body becomes the CLI's one line. */
function rethrow(err: unknown): never {
  if (err instanceof DaemonRequestError) throw new CliError(err.message);
  throw err;
}
