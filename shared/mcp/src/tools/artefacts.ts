/**
 * Artefact tools (spec 4.6 `artefacts.*`): the diagnostic side of Prepared Work. Where the
 * `work_products.*` tools act on cards, these answer "what has Sous prepared, in which state, and
 * why": a compact list with states and scores, counts, and influence controls (dismiss, or feedback
 * that changes how later cards of the same detector score).
 */
import Joi from 'joi';
import { defineTool, toolResult, type ToolDefinition } from '../registry';
import { CARD_KINDS, CARD_STATES, FEEDBACK_VALUES, cardId, cardLine, cardLines, query, seg, type WireCard } from './wire';

/** The most the daemon lists at once; counts over more say so. */
const LIST_MAX = 500;

/** One artefact in a line's worth of fields. */
function compact(card: WireCard): Record<string, unknown> {
  return {
    id: card.id,
    kind: card.kind,
    title: card.title,
    state: card.diagnostic?.state ?? null,
    score: card.diagnostic?.score ?? null,
    detector: card.diagnostic?.detector ?? null,
    evidence: (card.evidence ?? []).map((e) => (e.line_start === null ? e.path : `${e.path}:${e.line_start}`)),
  };
}

const list = defineTool<{ state?: string[]; kind?: string[]; limit: number }>({
  id: 'artefacts.list',
  title: 'List artefacts',
  description: 'A compact list of prepared artefacts in every state (candidate, ready, stale, hidden, superseded) with score and detector. Call it to see what Sous holds beyond the dashboard, e.g. why a finding did not make the feed.',
  input: Joi.object({
    state: Joi.array().items(Joi.string().valid(...CARD_STATES)).single().description('only these states'),
    kind: Joi.array().items(Joi.string().valid(...CARD_KINDS)).single().description('only these kinds'),
    limit: Joi.number().integer().min(1).max(LIST_MAX).default(50),
  }),
  readOnly: true,
  async run(args, ctx) {
    const { items } = await ctx.daemon.get<{ items: WireCard[] }>(`/work-products${query({ state: args.state, kind: args.kind, limit: args.limit })}`);
    return toolResult(cardLines(`${items.length} artefact(s):`, items), { artefacts: items.map(compact) });
  },
});

const inspect = defineTool<{ id: string }>({
  id: 'artefacts.inspect',
  title: 'Inspect an artefact',
  description: 'One artefact with everything Sous knows about it: body, rationale, evidence, warnings, and its state, score parts, detector and claim key. Call it to understand why an artefact is in its state.',
  input: Joi.object({ id: cardId }),
  readOnly: true,
  async run(args, ctx) {
    const card = await ctx.daemon.get<WireCard & { diagnostic?: { state_reason?: string | null } }>(`/work-products/${seg(args.id)}/inspect?diagnostic=true`);
    const reason = card.diagnostic?.state_reason ? `\nState reason: ${card.diagnostic.state_reason}` : '';
    return toolResult(`${cardLine(card)}${reason}`, { ...card });
  },
});

const status = defineTool<Record<string, never>>({
  id: 'artefacts.status',
  title: 'Artefact counts',
  description: 'How many artefacts Sous holds for this repository by state and by kind. Call it for a quick picture of preparation before listing.',
  input: Joi.object({}),
  readOnly: true,
  async run(_args, ctx) {
    const { items } = await ctx.daemon.get<{ items: WireCard[] }>(`/work-products${query({ limit: LIST_MAX })}`);
    const byState: Record<string, number> = Object.fromEntries(CARD_STATES.map((s) => [s, 0]));
    const byKind: Record<string, number> = Object.fromEntries(CARD_KINDS.map((k) => [k, 0]));
    for (const item of items) {
      const state = item.diagnostic?.state ?? 'unknown';
      byState[state] = (byState[state] ?? 0) + 1;
      byKind[item.kind] = (byKind[item.kind] ?? 0) + 1;
    }
    const truncated = items.length >= LIST_MAX;
    const states = Object.entries(byState).filter(([, n]) => n > 0).map(([s, n]) => `${n} ${s}`).join(', ');
    return toolResult(`${truncated ? `At least ${items.length}` : items.length} artefact(s)${states ? `: ${states}` : ''}.`, { total: items.length, truncated, by_state: byState, by_kind: byKind });
  },
});

const INFLUENCE = ['dismiss', ...FEEDBACK_VALUES] as const;

const influence = defineTool<{ id: string; action: (typeof INFLUENCE)[number] }>({
  id: 'artefacts.influence',
  title: 'Influence an artefact',
  description:
    'Steers preparation: `dismiss` hides the artefact for good; `useful`, `partial`, `irrelevant` or `wrong` records feedback that raises or lowers later cards of the same detector (one repeatedly judged irrelevant or wrong stops surfacing).',
  input: Joi.object({ id: cardId, action: Joi.string().valid(...INFLUENCE).required().description('dismiss, useful, partial, irrelevant or wrong') }),
  readOnly: false,
  async run(args, ctx) {
    if (args.action === 'dismiss') {
      const { card } = await ctx.daemon.post<{ card: WireCard }>(`/work-products/${seg(args.id)}/dismiss`, {});
      return toolResult(`Dismissed ${card.id}: ${card.title}.`, { id: card.id, action: 'dismiss', card });
    }
    const { feedback } = await ctx.daemon.post<{ feedback: { id: string; value: string; recorded_at: string } }>(`/work-products/${seg(args.id)}/feedback`, { value: args.action });
    return toolResult(`Recorded ${feedback.value} for ${args.id}; the next cycle weighs its detector by it.`, { id: args.id, action: args.action, feedback });
  },
});

export const artefactTools: ToolDefinition[] = [list, inspect, status, influence];
