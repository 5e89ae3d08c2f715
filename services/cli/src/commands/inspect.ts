import type { Command } from 'commander';
import type { ResolutionExplanation } from '@sous/engine';
import { DaemonRequestError } from '@sous/runtime';
import { CliError } from '../cli-error';
import { requireClient } from '../daemon-control';
import { printJson, printLine } from '../output';
import { run } from '../run';
import { resolveWorkspace } from '../workspace';

/**
 * `sous inspect --last [--client <id>]` (docs/resolve.md): the newest resolution (of one client, whose
 * traces are kept apart by X-Sous-Client), its evidence and why, from the running daemon. The prompt
 * is not shown: Sous kept only its sha256.
 */
export function registerInspectCommand(program: Command): void {
  program
    .command('inspect')
    .description('the last context decision (resolution): evidence and rationale')
    .requiredOption('--last', 'the newest resolution')
    .option('--client <id>', 'only resolutions of this client (its X-Sous-Client)')
    .option('--path <dir>', 'repository (default: nearest .sous/ upward)')
    .option('--json', 'print as JSON')
    .action(
      run(async (opts: { last: boolean; client?: string; path?: string; json?: boolean }) => {
        const client = requireClient(resolveWorkspace(opts.path));
        const query = opts.client !== undefined ? `?client=${encodeURIComponent(opts.client)}` : '';
        const r = await client.get<ResolutionExplanation>(`/v1/resolutions/last${query}`).catch((err: unknown) => {
          if (err instanceof DaemonRequestError) throw new CliError(err.message, err.status === 400 || err.status === 404 ? 2 : 1);
          throw err;
        });
        if (opts.json) return printJson(r);
        printLine(`Resolution ${r.resolution_id} at ${r.created_at}, client ${r.client ?? '(none)'}: cache ${r.cache}${r.match ? ` (${r.match} match)` : ''}, similarity ${r.similarity} (threshold ${r.threshold})`);
        printLine(`Category ${r.category ?? '(none)'}; context injection ${r.context_injection ?? 'policy_hybrid'}; composer event ${r.composer_event_id ?? '(none)'}`);
        printLine(`Prompt sha256 ${r.prompt_sha256}; ${r.briefing_token_used}/${r.briefing_token_budget} tokens`);
        for (const line of r.rationale) printLine(`  ${line}`);
        printLine('Evidence:');
        for (const e of r.evidence) printLine(`  ${e.path}:${e.lines.start ?? '?'}-${e.lines.end ?? '?'}${e.score !== null ? `  score ${e.score}` : ''}`);
        if (r.cards.length) printLine(`Ready cards: ${r.cards.join(', ')}`);
        if (r.feedback.length) printLine(`Feedback: ${r.feedback.map((f) => f.value).join(', ')}`);
      }),
    );
}
