/**
 * How a resolution's briefing text is laid out under the bundle's context-injection dimension
 * (docs/resolve.md#context-injection): line by line, most relevant first, cut where the budget ends.
 */
import type { BriefingItem, PredictionView } from '../predictions/predictions';
import type { ContextInjection } from '../predictions/policy';
import type { BriefingSkill } from '../skills/views';

export interface ComposeCard {
  id: string;
  kind: string;
  title: string;
}

/** A rough token count (4 characters a token): budgets are advisory, the count must be cheap. */
export function tokensOf(text: string): number {
  return Math.ceil(text.length / 4);
}

export interface ComposeInput {
  items: BriefingItem[];
  cards: ComposeCard[];
  /** The matched prediction (a hit), else null. */
  prediction: PredictionView | null;
  /** `top_match_auto_include` on a miss: the closest prediction, its prepared items appended. */
  included: PredictionView | null;
  budget: number;
  mode: ContextInjection;
  /** Skills to name, best first (already zone-filtered). Default none. */
  skills?: BriefingSkill[];
}

export interface Composed {
  text: string;
  used: number;
  /** The evidence that fit, in order (the included prediction's items after the prompt's own). */
  items: BriefingItem[];
  /** The cards that fit. */
  cards: number;
  /** The skills that fit. */
  skills: number;
}

/**
 * `digest_only`: one `path:start-end` line per item, no rationale, no cards. Every other mode: the
 * `Prepared for:` line on a hit, `Skill: name (file): description` lines, `path:start-end — rationale` lines, then (top_match_auto_include)
 * `Also prepared for: <prompt>` and that prediction's items not already listed, then ready cards.
 */
export function compose(input: ComposeInput): Composed {
  const lines: string[] = [];
  let used = 0;
  const take = (line: string): boolean => {
    const cost = tokensOf(line) + 1;
    if (used + cost > input.budget) return false;
    lines.push(line);
    used += cost;
    return true;
  };
  const digest = input.mode === 'digest_only';
  const line = (i: BriefingItem): string => (digest ? `${i.path}:${i.lines.start}-${i.lines.end}` : `${i.path}:${i.lines.start}-${i.lines.end} — ${i.rationale.join('; ') || 'ranked by the index'}`);
  if (input.prediction && !digest) take(`Prepared for: ${input.prediction.prompt}`);
  // Skills come before the evidence: they say how to go about the work the evidence is for.
  let skills = 0;
  for (const k of input.skills ?? []) if (take(`Skill: ${k.name} (${k.file}): ${k.description}`)) skills += 1; else break;
  const kept: BriefingItem[] = [];
  let full = false;
  for (const i of input.items) {
    if (!take(line(i))) {
      full = true;
      break;
    }
    kept.push(i);
  }
  if (!full && input.included?.briefing && !digest) {
    const seen = new Set(kept.map((i) => `${i.path}:${i.lines.start}`));
    const extra = input.included.briefing.items.filter((i) => !seen.has(`${i.path}:${i.lines.start}`));
    if (extra.length > 0 && take(`Also prepared for: ${input.included.prompt}`)) {
      for (const i of extra) {
        if (!take(line(i))) break;
        kept.push(i);
      }
    }
  }
  let cards = 0;
  if (!digest) for (const c of input.cards) if (take(`Ready card ${c.id} (${c.kind}): ${c.title}`)) cards += 1; else break;
  return { text: lines.join('\n'), used, items: kept, cards, skills };
}
