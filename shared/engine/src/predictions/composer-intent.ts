/**
 * What a composer snapshot means for the prediction registry (spec 6.4; docs/predictions.md). A
 * snapshot carries no text (only `text_hash` and `length_chars`), so the anticipated prompt cannot
 * come from the draft: it comes from what the user was working on when the draft appeared, the
 * latest arc of edits, else the heaviest goal. Pure functions; the registry applies them.
 */
import type { LifecycleState } from '@sous/protocol';
import type { PredictionRow } from '@sous/store';

/** Pre-submit states in which the draft exists and is worth preparing for (spec 3.5). */
export const DRAFTING_STATES: readonly LifecycleState[] = ['tentative', 'stabilizing', 'actionable'];

/** One composer event as the registry sees it. */
export interface ComposerSignal {
  sessionId: string;
  state: LifecycleState;
  /** The stored SignalEvent's id; an adoption records it (spec 2.5 `composer_event_id`). */
  eventId: string;
  /** The work-style multiplier applied to this event (docs/composer-signals.md). */
  multiplier: number;
  fieldRole?: string;
}

/** The context a composer prediction anticipates: its prompt, the query its briefing answers and its evidence paths. */
export interface ComposerContext {
  context: 'arc' | 'goal' | 'none';
  prompt: string;
  query: string;
  paths: string[];
}

/**
 * The context of a draft from the registry's own rows (most recently updated first): the latest
 * arc (live before stale), else the heaviest live goal prediction, else nothing known.
 */
export function composerContext(rows: PredictionRow[], fieldRole?: string): ComposerContext {
  const what = fieldRole ? `a draft in the ${fieldRole} field` : 'a draft in the composer';
  const live = (p: PredictionRow) => p.state === 'ready' || p.state === 'drafting';
  const arcs = rows.filter((p) => p.source === 'arc' && p.state !== 'adopted');
  const arc = arcs.find(live) ?? arcs[0];
  if (arc !== undefined) {
    return { context: 'arc', prompt: `${what}, likely about: ${arc.title}`, query: arc.title, paths: Object.keys(arc.pathHashes) };
  }
  const goal = rows.filter((p) => p.source === 'goal' && live(p)).sort((a, b) => b.weight - a.weight)[0];
  if (goal !== undefined) {
    return { context: 'goal', prompt: `${what}, likely about: ${goal.title}`, query: goal.title, paths: Object.keys(goal.pathHashes) };
  }
  return { context: 'none', prompt: `${what}; no recent edits or goals to anticipate it from`, query: 'recent changes', paths: [] };
}
