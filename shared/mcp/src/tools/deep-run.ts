/**
 * Deep-Run tools (spec 4.6 `deep_run.*`; docs/deep-run.md): start, stop, inspect, list, defaults.
 * A session prepares only: its drafts wait as cards for the user to adopt or dismiss. Durations are
 * minutes, cost caps US dollars of estimated hosted-model spend. The daemon validates again and runs
 * the sessions; these tools pass the arguments on and summarise the answer.
 */
import Joi from 'joi';
import { NO_ARGS, defineTool, toolResult, type ToolDefinition } from '../registry';
import { DEEP_RUN_PRESETS, seg } from './wire';

/** The parts of a session the summaries read (services/daemon/src/routes/deep-run.ts sends more). */
interface WireSession {
  id: string;
  state: string;
  preset: string;
  bundle: string;
  deadline: string;
  deadline_by: string;
  stop_reason: string | null;
  stop_detail: string | null;
  progress: { steps_done: number; running_step: number | null; remaining_minutes: number };
  model: { calls: number; local: boolean };
  spend: { estimated_usd: number; cap_usd: number };
  produced: { count: number; cards: Array<{ id: string; kind: string; state: string; title: string }> };
}

interface WireDefaults {
  bundle: string;
  preset: string;
  duration_minutes: number;
  cost_cap_usd: number;
  max_session_minutes: number;
  refused: string | null;
}

const sessionId = Joi.string().trim().min(1).max(200);

/** One paragraph: state and limits, progress, spend, and what is waiting for the user. */
function summary(s: WireSession): string {
  const ended = s.state === 'running' ? `runs until ${s.deadline} (${s.deadline_by})` : `${s.state} (${s.stop_reason}: ${s.stop_detail ?? ''})`;
  const lines = [
    `Deep-Run ${s.id} [${s.preset} on ${s.bundle}] ${ended}.`,
    `${s.progress.steps_done} step(s) done${s.progress.running_step !== null ? `, step ${s.progress.running_step} running` : ''}; ${s.model.calls} model call(s); estimated spend $${s.spend.estimated_usd.toFixed(2)} of the $${s.spend.cap_usd.toFixed(2)} cap${s.model.local ? ' (local backend: $0)' : ''}.`,
    s.produced.count === 0 ? 'Nothing produced yet.' : `${s.produced.count} card(s) produced, waiting for the user to adopt or dismiss:\n${s.produced.cards.slice(0, 10).map((c) => `- [${c.kind}] ${c.state} ${c.title} (id ${c.id})`).join('\n')}`,
  ];
  return lines.join('\n');
}

const start = defineTool<{ preset?: string; duration_minutes?: number; cost_cap_usd?: number }>({
  id: 'deep_run.start',
  title: 'Start a Deep-Run session',
  description: 'Starts a long-horizon session that explores the workspace goals and predictions in queued steps and prepares drafts for the user to adopt or dismiss; nothing is applied, sent or committed. Only on the user’s request. Omitted values come from the active bundle (deep_run.defaults shows them).',
  input: Joi.object({
    preset: Joi.string().valid(...DEEP_RUN_PRESETS).description('how deep each step goes; default the bundle’s Deep-Run profile'),
    duration_minutes: Joi.number().integer().min(1).max(10_080).description('whole minutes; compute.max_session_minutes still caps it'),
    cost_cap_usd: Joi.number().min(0).max(1_000).description('most US dollars of estimated hosted-model spend (a local backend costs $0)'),
  }),
  readOnly: false,
  async run(args, ctx) {
    const { session } = await ctx.daemon.post<{ session: WireSession }>('/deep-run/start', args);
    return toolResult(`Started.\n${summary(session)}`, { session });
  },
});

const stop = defineTool<{ id?: string }>({
  id: 'deep_run.stop',
  title: 'Stop a Deep-Run session',
  description: 'Stops the running Deep-Run session (or the one named); what it produced stays for adopt or dismiss. Only on the user’s request.',
  input: Joi.object({ id: sessionId.description('the session; default the running one') }),
  readOnly: false,
  async run(args, ctx) {
    const { session } = await ctx.daemon.post<{ session: WireSession }>('/deep-run/stop', args.id ? { id: args.id } : {});
    return toolResult(summary(session), { session });
  },
});

const inspect = defineTool<{ id?: string }>({
  id: 'deep_run.inspect',
  title: 'Inspect a Deep-Run session',
  description: 'One Deep-Run session (default: the running one, else the latest): progress, model calls and tokens, estimated spend and how it is estimated, the limits and why it stopped, and the cards it produced.',
  input: Joi.object({ id: sessionId.description('the session; default the running or latest one') }),
  readOnly: true,
  async run(args, ctx) {
    const { session } = await ctx.daemon.get<{ session: WireSession | null }>(args.id ? `/deep-run/sessions/${seg(args.id)}` : '/deep-run');
    if (session === null) return toolResult(`No Deep-Run session yet; the user can start one (${ctx.toolName('deep_run.start')}).`, { session: null });
    return toolResult(summary(session), { session });
  },
});

const list = defineTool<{ limit: number }>({
  id: 'deep_run.list',
  title: 'Deep-Run sessions',
  description: 'Deep-Run sessions of this workspace, newest first, with their state and what they produced.',
  input: Joi.object({ limit: Joi.number().integer().min(1).max(100).default(10) }),
  readOnly: true,
  async run(args, ctx) {
    const body = await ctx.daemon.get<{ sessions: WireSession[] }>(`/deep-run/sessions?limit=${args.limit}`);
    const text = body.sessions.length === 0 ? 'No Deep-Run sessions yet.' : `${body.sessions.length} session(s), newest first:\n${body.sessions.map((s) => `- ${s.id} ${s.state}${s.stop_reason ? ` (${s.stop_reason})` : ''}: ${s.progress.steps_done} step(s), ${s.produced.count} card(s), $${s.spend.estimated_usd.toFixed(2)}`).join('\n')}`;
    return toolResult(text, body);
  },
});

const defaults = defineTool<Record<string, never>>({
  id: 'deep_run.defaults',
  title: 'Deep-Run defaults',
  description: 'What a Deep-Run start would use now (preset, duration in minutes, cost cap in US dollars, all from the active bundle), every preset layered on the bundle, the model and how spend is estimated.',
  input: NO_ARGS,
  readOnly: true,
  async run(_args, ctx) {
    const d = await ctx.daemon.get<WireDefaults & Record<string, unknown>>('/deep-run/defaults');
    const text = `Bundle ${d.bundle}: preset ${d.preset}, ${d.duration_minutes} minutes (compute.max_session_minutes ${d.max_session_minutes} caps it), cost cap $${d.cost_cap_usd.toFixed(2)}.${d.refused ? ` A start would be refused now: ${d.refused}.` : ''}`;
    return toolResult(text, d);
  },
});

export const deepRunTools: ToolDefinition[] = [start, stop, inspect, list, defaults];
