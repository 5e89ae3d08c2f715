import type { Command } from 'commander';
import Joi from 'joi';
import { MAX_COST_CAP_USD, MAX_DURATION_MINUTES, type DeepRunView } from '@sous/engine';
import { DEEP_RUN_PRESETS } from '@sous/store';
import { DaemonRequestError } from '@sous/runtime';
import { CliError } from '../cli-error';
import { requireClient } from '../daemon-control';
import { printJson, printLine } from '../output';
import { run } from '../run';
import { resolveWorkspace } from '../workspace';

/** The flags as typed: units said in every message (minutes, US dollars). */
const startFlags = Joi.object({
  preset: Joi.string().valid(...DEEP_RUN_PRESETS).messages({ '*': `--preset must be one of ${DEEP_RUN_PRESETS.join(', ')}` }),
  duration: Joi.string().pattern(/^\d+$/).messages({ '*': `--duration is whole minutes from 1 to ${MAX_DURATION_MINUTES}, like 480` }),
  costCap: Joi.string().pattern(/^\d+(\.\d{1,2})?$/).messages({ '*': `--cost-cap is US dollars from 0 to ${MAX_COST_CAP_USD}, like 5 or 2.50 (no currency sign)` }),
}).unknown(true);

interface Common {
  path?: string;
  json?: boolean;
}

/** A refused value is bad usage (exit 2); a session that cannot start or stop now is exit 1. */
function rethrow(err: unknown): never {
  if (err instanceof DaemonRequestError) throw new CliError(err.message, err.status === 400 || err.status === 404 ? 2 : 1);
  throw err;
}

/** The start body from the flags; a bad flag is one line and exit 2 before the daemon is asked. */
export function startBody(opts: { preset?: string; duration?: string; costCap?: string }): Record<string, unknown> {
  const { error } = startFlags.validate(opts, { abortEarly: true });
  if (error) throw new CliError(`${error.details[0]?.message ?? error.message} (got ${JSON.stringify(String(error.details[0]?.context?.value ?? ''))})`, 2);
  const duration = opts.duration === undefined ? undefined : Number(opts.duration);
  if (duration !== undefined && (duration < 1 || duration > MAX_DURATION_MINUTES)) throw new CliError(`--duration is whole minutes from 1 to ${MAX_DURATION_MINUTES}, got ${duration}`, 2);
  const cap = opts.costCap === undefined ? undefined : Number(opts.costCap);
  if (cap !== undefined && cap > MAX_COST_CAP_USD) throw new CliError(`--cost-cap is US dollars from 0 to ${MAX_COST_CAP_USD}, got ${cap}`, 2);
  return { ...(opts.preset ? { preset: opts.preset } : {}), ...(duration !== undefined ? { duration_minutes: duration } : {}), ...(cap !== undefined ? { cost_cap_usd: cap } : {}) };
}

function hhmm(iso: string): string {
  return `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`;
}

/** A session as a person reads it: state, limits, progress, spend, what it produced. */
export function describeSession(s: DeepRunView): string[] {
  const limit = s.deadline_by === 'duration' ? `its ${s.duration_minutes}-minute duration` : `compute.max_session_minutes, before its ${s.duration_minutes}-minute duration`;
  const ended = s.state === 'running' ? null : `ended ${s.ended_at ? hhmm(s.ended_at) : ''}: ${s.state} (${s.stop_reason}): ${s.stop_detail ?? ''}`;
  const running = s.progress.running_step === null ? '' : `, step ${s.progress.running_step} running`;
  const m = s.model;
  const lines = [
    `Deep-Run ${s.id}  ${s.state}  (preset ${s.preset} on bundle ${s.bundle})`,
    `  started ${hhmm(s.started_at)}; stops by ${hhmm(s.deadline)} (${limit})`,
    ...(ended ? [`  ${ended}`] : []),
    `  progress: ${s.progress.steps_done} step(s) done${running}${s.progress.steps_interrupted ? `, ${s.progress.steps_interrupted} interrupted` : ''}; ${s.progress.elapsed_minutes} min elapsed${s.state === 'running' ? `, ${s.progress.remaining_minutes} min left` : ''}`,
    `  model: ${m.name} at ${m.base_url} (${m.local ? 'local' : 'hosted'}): ${m.calls} call(s), ${m.prompt_tokens + m.completion_tokens} tokens${m.tokens_estimated ? ' (partly estimated from characters)' : ''}`,
    `  spend: $${s.spend.estimated_usd.toFixed(2)} of the $${s.cost_cap_usd.toFixed(2)} cap, estimated (${m.local ? 'a local backend costs $0' : `$${s.spend.price_per_million_usd.input} / $${s.spend.price_per_million_usd.output} per million prompt / completion tokens`})`,
    `  produced: ${s.produced.count} card(s)${s.produced.count ? ` (${Object.entries(s.produced.by_state).map(([k, n]) => `${n} ${k}`).join(', ')})` : ''}`,
    ...s.produced.cards.map((c) => `    - [${c.kind}] ${c.state}  ${c.title}  (${c.id})`),
  ];
  if (s.produced.count) lines.push('  Nothing was applied, sent or committed: adopt or dismiss the drafts from the cockpit, over MCP, or POST /work-products/{id}/adopt | dismiss.');
  return lines;
}

/**
 * `sous deep-run start|status|stop` (spec 4.7; docs/deep-run.md): a long-horizon session of
 * preparation steps, through the running daemon. `--duration` is minutes, `--cost-cap` US dollars of
 * estimated hosted-model spend; both default from the active bundle.
 */
export function registerDeepRunCommands(program: Command): void {
  const deep = program.command('deep-run').description('long-horizon Deep-Run sessions that prepare drafts (never apply, send or commit)');
  deep
    .command('start')
    .description('start a session; the active bundle pre-fills preset, duration and cost cap')
    .option('--path <dir>', 'repository (default: nearest .sous/ upward)')
    .option('--preset <preset>', `one of ${DEEP_RUN_PRESETS.join(', ')} (default: the bundle's Deep-Run profile)`)
    .option('--duration <minutes>', 'how long, in whole minutes (compute.max_session_minutes still caps it)')
    .option('--cost-cap <usd>', 'most US dollars of estimated hosted-model spend (a local backend costs $0)')
    .option('--json', 'print as JSON')
    .action(
      run(async (opts: Common & { preset?: string; duration?: string; costCap?: string }) => {
        const body = startBody(opts);
        const client = requireClient(resolveWorkspace(opts.path));
        const { session } = await client.post<{ session: DeepRunView }>('/deep-run/start', body).catch(rethrow);
        if (opts.json) return printJson({ session });
        printLine('Deep-Run started. Follow it with: sous deep-run status');
        for (const line of describeSession(session)) printLine(line);
      }),
    );
  deep
    .command('status')
    .description('the running session, or the latest: progress, spend, what it produced')
    .option('--path <dir>', 'repository (default: nearest .sous/ upward)')
    .option('--id <id>', 'one session by id')
    .option('--json', 'print as JSON')
    .action(
      run(async (opts: Common & { id?: string }) => {
        const client = requireClient(resolveWorkspace(opts.path));
        const { session } = await client.get<{ session: DeepRunView | null }>(opts.id ? `/deep-run/sessions/${encodeURIComponent(opts.id)}` : '/deep-run').catch(rethrow);
        if (opts.json) return printJson({ session });
        if (session === null) return printLine('No Deep-Run session yet. Start one with: sous deep-run start');
        for (const line of describeSession(session)) printLine(line);
      }),
    );
  deep
    .command('stop')
    .description('stop the running session (what it produced stays for adopt or dismiss)')
    .option('--path <dir>', 'repository (default: nearest .sous/ upward)')
    .option('--id <id>', 'the session to stop (default: the running one)')
    .option('--json', 'print as JSON')
    .action(
      run(async (opts: Common & { id?: string }) => {
        const client = requireClient(resolveWorkspace(opts.path));
        const { session } = await client.post<{ session: DeepRunView }>('/deep-run/stop', opts.id ? { id: opts.id } : {}).catch(rethrow);
        if (opts.json) return printJson({ session });
        for (const line of describeSession(session)) printLine(line);
      }),
    );
}
