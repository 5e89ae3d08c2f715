/**
 * Artefact tools (spec 4.6 `artefacts.*`): the diagnostic side of Prepared Work. Where the
 * `work_products.*` tools act on cards, these answer "what has Sous prepared, in which state, and
 * why": a compact list with states and scores, counts, and influence controls (dismiss, or feedback
 * that changes how later cards of the same detector score). Skills are artefacts too
 * (docs/skills.md): listed with zone and weight, inspected, and steered by the same controls, plus
 * `restore` for a dismissed skill. External skills appear withheld: an agent's model reads these results.
 */
import Joi from 'joi';
import { defineTool, errorResult, toolResult, type ToolDefinition } from '../registry';
import { CARD_KINDS, CARD_STATES, FEEDBACK_VALUES, cardId, cardLine, cardLines, query, seg, type WireCard } from './wire';
import { SKILL_ID_PREFIX, isSkillId, skillLine, type SkillListWire, type WireSkill } from './skills-wire';

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

const ARTEFACT_TYPES = ['all', 'cards', 'skills'] as const;

const list = defineTool<{ state?: string[]; kind?: string[]; limit: number; type: (typeof ARTEFACT_TYPES)[number] }>({
  id: 'artefacts.list',
  title: 'List artefacts',
  description:
    'A compact list of prepared artefacts in every state (candidate, ready, stale, hidden, superseded) with score and detector, and the skills Sous found (zone, weight, active or dismissed). Call it to see what Sous holds beyond the dashboard, e.g. why a finding did not make the feed, or which skills it suggests.',
  input: Joi.object({
    state: Joi.array().items(Joi.string().valid(...CARD_STATES)).single().description('only cards in these states'),
    kind: Joi.array().items(Joi.string().valid(...CARD_KINDS)).single().description('only cards of these kinds'),
    type: Joi.string().valid(...ARTEFACT_TYPES).default('all').description('cards, skills, or all (default)'),
    limit: Joi.number().integer().min(1).max(LIST_MAX).default(50),
  }),
  readOnly: true,
  async run(args, ctx) {
    const items = args.type === 'skills' ? [] : (await ctx.daemon.get<{ items: WireCard[] }>(`/work-products${query({ state: args.state, kind: args.kind, limit: args.limit })}`)).items;
    const skills = args.type === 'cards' ? [] : (await ctx.daemon.get<SkillListWire>('/skills')).skills.slice(0, args.limit);
    const text = [
      ...(args.type === 'skills' ? [] : [cardLines(`${items.length} artefact(s):`, items)]),
      ...(args.type === 'cards' ? [] : [skills.length === 0 ? '0 skill(s).' : `${skills.length} skill(s):\n${skills.map(skillLine).join('\n')}`]),
    ].join('\n');
    return toolResult(text, { artefacts: items.map(compact), skills });
  },
});

const inspect = defineTool<{ id: string }>({
  id: 'artefacts.inspect',
  title: 'Inspect an artefact',
  description: 'One artefact with everything Sous knows about it: body, rationale, evidence, warnings, and its state, score parts, detector and claim key; for a skill id (skill_…), its zone, weight, feedback counts and SKILL.md preview. Call it to understand why an artefact is in its state.',
  input: Joi.object({ id: cardId }),
  readOnly: true,
  async run(args, ctx) {
    if (isSkillId(args.id)) {
      const { skill } = await ctx.daemon.get<{ skill: WireSkill & { preview: string | null } }>(`/skills/${seg(args.id)}`);
      return toolResult(`${skillLine(skill)}${skill.description ? `\nWhen to use: ${skill.description}` : ''}`, { ...skill });
    }
    const card = await ctx.daemon.get<WireCard & { diagnostic?: { state_reason?: string | null } }>(`/work-products/${seg(args.id)}/inspect?diagnostic=true`);
    const reason = card.diagnostic?.state_reason ? `\nState reason: ${card.diagnostic.state_reason}` : '';
    return toolResult(`${cardLine(card)}${reason}`, { ...card });
  },
});

const status = defineTool<Record<string, never>>({
  id: 'artefacts.status',
  title: 'Artefact counts',
  description: 'How many artefacts Sous holds for this repository by state and by kind, and how many skills by zone. Call it for a quick picture of preparation before listing.',
  input: Joi.object({}),
  readOnly: true,
  async run(_args, ctx) {
    const [{ items }, listed] = await Promise.all([ctx.daemon.get<{ items: WireCard[] }>(`/work-products${query({ limit: LIST_MAX })}`), ctx.daemon.get<SkillListWire>('/skills')]);
    const skills = {
      total: listed.skills.length,
      by_zone: { project_local: listed.skills.filter((k) => k.zone === 'project_local').length, external: listed.skills.filter((k) => k.zone === 'external').length },
      dismissed: listed.skills.filter((k) => k.state === 'dismissed').length,
      diagnostics: listed.diagnostics.length,
      off: listed.off,
    };
    const byState: Record<string, number> = Object.fromEntries(CARD_STATES.map((s) => [s, 0]));
    const byKind: Record<string, number> = Object.fromEntries(CARD_KINDS.map((k) => [k, 0]));
    for (const item of items) {
      const state = item.diagnostic?.state ?? 'unknown';
      byState[state] = (byState[state] ?? 0) + 1;
      byKind[item.kind] = (byKind[item.kind] ?? 0) + 1;
    }
    const truncated = items.length >= LIST_MAX;
    const states = Object.entries(byState).filter(([, n]) => n > 0).map(([s, n]) => `${n} ${s}`).join(', ');
    const skillText = ` ${skills.total} skill(s) (${skills.by_zone.project_local} project_local, ${skills.by_zone.external} external${skills.dismissed ? `, ${skills.dismissed} dismissed` : ''})${skills.diagnostics ? `; ${skills.diagnostics} SKILL.md could not be used` : ''}.`;
    return toolResult(`${truncated ? `At least ${items.length}` : items.length} artefact(s)${states ? `: ${states}` : ''}.${skillText}`, { total: items.length, truncated, by_state: byState, by_kind: byKind, skills });
  },
});

const INFLUENCE = ['dismiss', 'restore', ...FEEDBACK_VALUES] as const;

const influence = defineTool<{ id: string; action: (typeof INFLUENCE)[number] }>({
  id: 'artefacts.influence',
  title: 'Influence an artefact',
  description:
    'Steers preparation: `dismiss` hides the artefact for good; `useful`, `partial`, `irrelevant` or `wrong` records feedback that raises or lowers later cards of the same detector (one repeatedly judged irrelevant or wrong stops surfacing). On a skill (id skill_…) feedback changes its weight from the next cycle, `dismiss` stops it being suggested, `restore` undoes that.',
  input: Joi.object({ id: cardId, action: Joi.string().valid(...INFLUENCE).required().description('dismiss, restore (skills only), useful, partial, irrelevant or wrong') }),
  readOnly: false,
  async run(args, ctx) {
    if (isSkillId(args.id)) {
      if (args.action === 'dismiss' || args.action === 'restore') {
        const { skill } = await ctx.daemon.post<{ skill: WireSkill }>(`/skills/${seg(args.id)}/${args.action}`, {});
        return toolResult(`${args.action === 'dismiss' ? 'Dismissed' : 'Restored'} skill ${skill.id}.`, { id: skill.id, action: args.action, skill });
      }
      const { feedback } = await ctx.daemon.post<{ feedback: { id: string; value: string; recorded_at: string } }>(`/skills/${seg(args.id)}/feedback`, { value: args.action });
      return toolResult(`Recorded ${feedback.value} for skill ${args.id}; the next cycle weighs the skill by it.`, { id: args.id, action: args.action, feedback });
    }
    if (args.action === 'restore') return errorResult('invalid_value', `restore applies to skills (ids starting ${SKILL_ID_PREFIX}); a dismissed card stays dismissed.`, 'Pass a skill id, or dismiss/feedback for a card.');
    if (args.action === 'dismiss') {
      const { card } = await ctx.daemon.post<{ card: WireCard }>(`/work-products/${seg(args.id)}/dismiss`, {});
      return toolResult(`Dismissed ${card.id}: ${card.title}.`, { id: card.id, action: 'dismiss', card });
    }
    const { feedback } = await ctx.daemon.post<{ feedback: { id: string; value: string; recorded_at: string } }>(`/work-products/${seg(args.id)}/feedback`, { value: args.action });
    return toolResult(`Recorded ${feedback.value} for ${args.id}; the next cycle weighs its detector by it.`, { id: args.id, action: args.action, feedback });
  },
});

export const artefactTools: ToolDefinition[] = [list, inspect, status, influence];
