/**
 * Prepared Work tools (spec 4.6 `prepared_work.dashboard`, `work_products.*`): the card feed and the
 * card actions, one HTTP call each (spec 4.1; docs/prepared-work.md). Cards are prepared in the
 * background; these tools only read them or record the agent's action.
 */
import Joi from 'joi';
import { defineTool, toolResult, type ToolDefinition } from '../registry';
import { CARD_KINDS, CARD_STATES, FEEDBACK_VALUES, cardId, cardLine, cardLines, query, seg, type WireCard } from './wire';

interface Feed {
  workspace: string;
  cards: WireCard[];
  cap: number;
  note?: string;
}

const dashboard = defineTool<{ diagnostic: boolean }>({
  id: 'prepared_work.dashboard',
  title: 'Prepared Work dashboard',
  description:
    'Call this first in a session: the few strong, fresh cards Sous prepared for this repository in the background (docs drift, review notes, bug hypotheses, ready patches), best first, each with its evidence and allowed actions. An empty feed is a valid answer.',
  input: Joi.object({ diagnostic: Joi.boolean().default(false).description('add state, score and detector to each card') }),
  readOnly: true,
  async run(args, ctx) {
    const feed = await ctx.daemon.get<Feed>(`/prepared-work${args.diagnostic ? '?diagnostic=true' : ''}`);
    const summary =
      feed.cards.length === 0
        ? `No prepared cards for ${feed.workspace} right now. ${feed.note ?? ''}`.trim()
        : `${cardLines(`${feed.cards.length} prepared card(s) for ${feed.workspace}, best first:`, feed.cards)}\nRead one with ${ctx.toolName('work_products.inspect')}; take a patch or note with ${ctx.toolName('work_products.export')}.`;
    return toolResult(summary, { ...feed });
  },
});

const list = defineTool<{ state?: string[]; kind?: string[]; limit: number }>({
  id: 'work_products.list',
  title: 'List work products',
  description:
    'Every prepared artefact, including candidates, stale, hidden and superseded ones, with diagnostic fields (state, score, detector). Call it to find a card the dashboard does not show or to see why one is missing.',
  input: Joi.object({
    state: Joi.array().items(Joi.string().valid(...CARD_STATES)).single().description('only these states'),
    kind: Joi.array().items(Joi.string().valid(...CARD_KINDS)).single().description('only these kinds'),
    limit: Joi.number().integer().min(1).max(500).default(20),
  }),
  readOnly: true,
  async run(args, ctx) {
    const { items } = await ctx.daemon.get<{ items: WireCard[] }>(`/work-products${query({ state: args.state, kind: args.kind, limit: args.limit })}`);
    return toolResult(cardLines(`${items.length} work product(s):`, items), { items });
  },
});

const inspect = defineTool<{ id: string; diagnostic: boolean }>({
  id: 'work_products.inspect',
  title: 'Inspect a work product',
  description: 'The full card: body, rationale, evidence with content hashes, warnings, a preview (the patch of a virtual diff) and the actions allowed now. Call it before acting on a card.',
  input: Joi.object({ id: cardId, diagnostic: Joi.boolean().default(false).description('add state, score and detector') }),
  readOnly: true,
  async run(args, ctx) {
    const card = await ctx.daemon.get<WireCard & { warnings?: string[] }>(`/work-products/${seg(args.id)}/inspect${args.diagnostic ? '?diagnostic=true' : ''}`);
    const warnings = card.warnings?.length ? `\nWarnings: ${card.warnings.join('; ')}` : '';
    return toolResult(`${cardLine(card)}\n${card.summary ?? ''}\nAllowed actions: ${(card.actions ?? []).join(', ')}${warnings}`, { ...card });
  },
});

const exportCard = defineTool<{ id: string }>({
  id: 'work_products.export',
  title: 'Export a work product',
  description:
    'The exportable content of a card: a unified patch for a virtual diff (review it, then apply it with git apply; Sous never applies it) or markdown for other kinds. Refused for a virtual diff whose target files changed since it was prepared.',
  input: Joi.object({ id: cardId }),
  readOnly: true,
  async run(args, ctx) {
    const out = await ctx.daemon.post<{ id: string; kind: string; format: string; filename: string; content: string }>(`/work-products/${seg(args.id)}/export`, {});
    const how = out.format === 'patch' ? 'Review it, then apply it with `git apply` (Sous does not apply it).' : 'Markdown for a note or review.';
    return toolResult(`Exported ${out.id} (${out.kind}) as ${out.format}, ${out.filename}. ${how}`, { ...out });
  },
});

const dismiss = defineTool<{ id: string }>({
  id: 'work_products.dismiss',
  title: 'Dismiss a work product',
  description: 'Hides a card from the feed for good: the same claim on the same target is not shown again. Call it when the user says a card does not matter; use feedback to say why.',
  input: Joi.object({ id: cardId }),
  readOnly: false,
  async run(args, ctx) {
    const { card } = await ctx.daemon.post<{ card: WireCard }>(`/work-products/${seg(args.id)}/dismiss`, {});
    return toolResult(`Dismissed ${card.id}: ${card.title}. It stays hidden across cycles.`, { card });
  },
});

const feedback = defineTool<{ id: string; value: string }>({
  id: 'work_products.feedback',
  title: 'Give feedback on a work product',
  description:
    'Records whether a card helped (useful, partial, irrelevant, wrong). Sous weighs later cards of the same detector by it, and stops surfacing a detector that keeps being judged irrelevant or wrong.',
  input: Joi.object({ id: cardId, value: Joi.string().valid(...FEEDBACK_VALUES).required().description('useful, partial, irrelevant or wrong') }),
  readOnly: false,
  async run(args, ctx) {
    const out = await ctx.daemon.post<{ feedback: { id: string; value: string; recorded_at: string } }>(`/work-products/${seg(args.id)}/feedback`, { value: args.value });
    return toolResult(`Recorded ${out.feedback.value} for ${args.id}; the next cycle counts it.`, { id: args.id, ...out });
  },
});

export const preparedWorkTools: ToolDefinition[] = [dashboard, list, inspect, exportCard, dismiss, feedback];
