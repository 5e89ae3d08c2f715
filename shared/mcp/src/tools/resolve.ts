/**
 * `sous.resolve` (spec 2.5, 4.6; docs/resolve.md): a prompt to a prepared briefing (ranked evidence,
 * overlapping ready cards, the matching prediction if any). The daemon resolves and records it; the
 * tool passes the arguments on and summarises the answer. The MCP client is `mcp` unless `client` says.
 */
import Joi from 'joi';
import { defineTool, toolResult, type ToolDefinition } from '../registry';
import { seg } from './wire';

/** A resolution as the daemon sends it (services/daemon/src/routes/resolve.ts). */
interface WireResolution {
  resolution_id: string;
  cache: 'hit' | 'miss';
  match: 'prompt' | 'evidence' | null;
  similarity: number;
  prediction_id: string | null;
  briefing: string;
  evidence: Array<{ path: string; lines: { start: number; end: number } }>;
  cards: Array<{ id: string; title: string }>;
  briefing_token_used: number;
  briefing_token_budget: number;
}

const resolve = defineTool<{ prompt: string; budget_tokens?: number; client?: string; composer_session_id?: string }>({
  id: 'resolve',
  title: 'Resolve a prompt',
  description:
    'Turns a prompt into a prepared briefing: ranked files and line ranges from the live index, ready cards about the same files, and the prepared prediction it matches (served from cache when one does). Returns a resolution_id for feedback. The prompt is never stored, only its hash.',
  input: Joi.object({
    prompt: Joi.string().trim().min(1).max(20_000).required().description('what the user asked'),
    budget_tokens: Joi.number().integer().min(50).max(200_000).description('briefing size limit in tokens (default 2000)'),
    client: Joi.string().trim().min(1).max(100).pattern(/^[A-Za-z0-9._:@/-]+$/).description('the agent asking; resolutions are kept per client (default mcp)'),
    composer_session_id: Joi.string().trim().min(1).max(200).description('the composer session the prompt was drafted in; its submitted event is attributed to this resolution (composer_event_id)'),
  }),
  readOnly: false,
  async run(args, ctx) {
    const r = await ctx.daemon.post<WireResolution>('/v1/resolve', args);
    const head = `Resolution ${r.resolution_id} (cache ${r.cache}${r.match ? ` by ${r.match}` : ''}, similarity ${r.similarity}; ${r.briefing_token_used}/${r.briefing_token_budget} tokens)`;
    return toolResult(`${head}\n${r.briefing || 'No evidence found for this prompt.'}`, { ...r });
  },
});

const explain = defineTool<{ id: string }>({
  id: 'explain',
  title: 'Explain a resolution',
  description: 'Why a resolution came out as it did: cache hit or miss and the similarity, the evidence kept with scores, the ready cards, the alternatives considered, the token budget, and the feedback given.',
  input: Joi.object({ id: Joi.string().trim().min(1).max(200).required().description('the resolution_id from resolve') }),
  readOnly: true,
  async run(args, ctx) {
    const body = await ctx.daemon.get<{ rationale: string[]; evidence: Array<{ path: string }> }>(`/v1/resolutions/${seg(args.id)}`);
    return toolResult(`${body.rationale.join('\n')}\nEvidence: ${body.evidence.map((e) => e.path).join(', ') || 'none'}`, { ...body });
  },
});

const feedback = defineTool<{ id: string; value: string }>({
  id: 'feedback',
  title: 'Feedback on a resolution',
  description: 'Says whether a resolution helped: useful, partial, irrelevant or wrong. Stored with the resolution.',
  input: Joi.object({
    id: Joi.string().trim().min(1).max(200).required().description('the resolution_id from resolve'),
    value: Joi.string().valid('useful', 'partial', 'irrelevant', 'wrong').required(),
  }),
  readOnly: false,
  async run(args, ctx) {
    const body = await ctx.daemon.post<{ feedback: { resolution_id: string; value: string } }>(`/v1/resolutions/${seg(args.id)}/feedback`, { value: args.value });
    return toolResult(`Recorded ${body.feedback.value} for ${body.feedback.resolution_id}.`, { ...body });
  },
});

const suggest = defineTool<{ limit?: number }>({
  id: 'suggest',
  title: 'Likely next prompts',
  description: 'What Sous expects to be asked next (the ready predictions\' anticipated prompts, most weight first); resolving one is served from its prepared briefing.',
  input: Joi.object({ limit: Joi.number().integer().min(1).max(50).description('how many (default 5)') }),
  readOnly: true,
  async run(args, ctx) {
    const body = await ctx.daemon.get<{ suggestions: Array<{ prompt: string; weight: number }> }>(`/v1/suggest${args.limit !== undefined ? `?limit=${args.limit}` : ''}`);
    const text = body.suggestions.length ? body.suggestions.map((s) => `- ${s.weight.toFixed(2)} ${s.prompt}`).join('\n') : 'No ready predictions yet; declaring a goal seeds one.';
    return toolResult(text, { ...body });
  },
});

export const resolveTools: ToolDefinition[] = [resolve, explain, feedback, suggest];
