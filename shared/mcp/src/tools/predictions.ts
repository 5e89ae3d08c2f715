/**
 * Prediction tools (spec 4.6 `predictions.*`; docs/predictions.md): for diagnostic and advanced
 * clients; Prepared Work stays the normal surface. The daemon keeps the registry; these tools pass
 * the arguments on and summarise the answer.
 */
import Joi from 'joi';
import { defineTool, toolResult, type ToolDefinition } from '../registry';
import { seg } from './wire';

/** A prediction as the daemon sends it (services/daemon/src/routes/predictions.ts). */
interface WirePrediction {
  id: string;
  source: string;
  prompt: string;
  weight: number;
  state: string;
  stale_reason: string | null;
  briefing: { items: Array<{ path: string }> } | null;
}

/** One line per prediction: weight, state, source, the anticipated prompt, id, and the briefing's top paths. */
function line(p: WirePrediction): string {
  const why = p.stale_reason ? ` (${p.stale_reason})` : '';
  const top = p.briefing?.items.length ? `; briefing: ${p.briefing.items.slice(0, 3).map((i) => i.path).join(', ')}` : '';
  return `- ${p.weight.toFixed(2)} [${p.state}${why}, ${p.source}] ${p.prompt} — ${p.id}${top}`;
}

const active = defineTool<Record<string, never>>({
  id: 'predictions.active',
  title: 'Active predictions',
  description: 'What Sous expects the user to ask next (ready or drafting predictions), most weight first, each with its prepared briefing (ranked files and line ranges). Diagnostic: the prepared work feed is the normal surface.',
  input: Joi.object({}),
  readOnly: true,
  async run(_args, ctx) {
    const body = await ctx.daemon.get<{ predictions: WirePrediction[] }>('/predictions');
    const summary = body.predictions.length ? `${body.predictions.length} prediction(s):\n${body.predictions.map(line).join('\n')}` : 'No active predictions; active goals and recent edits seed them.';
    return toolResult(summary, body);
  },
});

const adopt = defineTool<{ id: string }>({
  id: 'predictions.adopt',
  title: 'Adopt a prediction',
  description: 'Uses a ready prediction as the current intent: it is marked adopted, and other predictions about the same files are demoted and marked stale. Only on the user’s request.',
  input: Joi.object({ id: Joi.string().trim().min(1).max(200).required().description('the prediction id, from predictions.active') }),
  readOnly: false,
  async run(args, ctx) {
    const { prediction } = await ctx.daemon.post<{ prediction: WirePrediction }>(`/predictions/${seg(args.id)}/adopt`, {});
    return toolResult(`Adopted:\n${line(prediction)}`, { prediction });
  },
});

const dashboard = defineTool<Record<string, never>>({
  id: 'predictions.dashboard',
  title: 'Prediction dashboard',
  description: 'Every prediction in the registry (ready, drafting, stale and adopted) with its weight, source and why it went stale, and counts by state and source.',
  input: Joi.object({}),
  readOnly: true,
  async run(_args, ctx) {
    const body = await ctx.daemon.get<{ predictions: WirePrediction[]; by_state: Record<string, number>; by_source: Record<string, number> }>('/predictions/dashboard');
    const counts = Object.entries(body.by_state).map(([s, n]) => `${n} ${s}`).join(', ') || 'empty';
    return toolResult(`Predictions: ${counts}\n${body.predictions.map(line).join('\n')}`.trimEnd(), body);
  },
});

export const predictionTools: ToolDefinition[] = [active, adopt, dashboard];
