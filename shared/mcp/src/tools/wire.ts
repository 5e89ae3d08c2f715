/**
 * The daemon's wire vocabulary the tools share: the values its endpoints accept (so input schemas can
 * list them for agents; the daemon validates them again), the card shape they read, and one-line
 * renderings for result summaries. A test compares the value lists with @sous/store and @sous/jobs.
 */
import Joi from 'joi';

/** Card kinds (`WORK_PRODUCT_KINDS` in @sous/store). */
export const CARD_KINDS = ['review_note', 'bug_hypothesis', 'docs_drift', 'virtual_diff', 'research_brief', 'prediction_draft'] as const;
/** Card states (`WORK_PRODUCT_STATES` in @sous/store). */
export const CARD_STATES = ['candidate', 'hidden', 'stale', 'superseded', 'ready'] as const;
/** Feedback values (`FEEDBACK_VALUES` in @sous/store). */
export const FEEDBACK_VALUES = ['useful', 'partial', 'irrelevant', 'wrong'] as const;
/** Job states (`JOB_STATES` in @sous/jobs). */
export const JOB_STATES = ['queued', 'running', 'completed', 'failed', 'timed_out', 'cancelled'] as const;
/** Auto Focus modes (`FOCUS_MODES` in @sous/focus). */
export const FOCUS_MODES = ['auto', 'manual-only'] as const;
/** Goal statuses (`GOAL_STATUSES` in @sous/store). */
export const GOAL_STATUSES = ['active', 'paused', 'abandoned', 'achieved'] as const;

/** Deep-Run presets (`DEEP_RUN_PRESETS` in @sous/store). */
export const DEEP_RUN_PRESETS = ['conservative', 'balanced', 'aggressive'] as const;

/** A card or artefact id as the daemon issues them. */
export const cardId = Joi.string().trim().min(1).max(200).required().description('the card id, from the dashboard or a list');

/** The fields of a card the summaries read (the daemon sends more; see docs/prepared-work.md). */
export interface WireCard {
  id: string;
  kind: string;
  title: string;
  summary?: string;
  action?: string;
  actions?: string[];
  evidence?: Array<{ path: string; line_start: number | null; line_end?: number | null; commit: string | null; note: string }>;
  diagnostic?: { state?: string; score?: number | null; detector?: string };
}

/** `path:line` of a card's first evidence, or just the path. */
function where(card: WireCard): string {
  const e = card.evidence?.[0];
  if (!e) return '';
  return e.line_start === null ? ` @ ${e.path}` : ` @ ${e.path}:${e.line_start}`;
}

/** One line per card: kind, title, where, id (and state when diagnostic fields are present). */
export function cardLine(card: WireCard, index?: number): string {
  const state = card.diagnostic?.state ? ` {${card.diagnostic.state}}` : '';
  return `${index === undefined ? '-' : `${index + 1}.`} [${card.kind}]${state} ${card.title}${where(card)} (id ${card.id})`;
}

/** Cards as lines under a heading, or the heading alone. */
export function cardLines(heading: string, cards: WireCard[]): string {
  return cards.length === 0 ? heading : `${heading}\n${cards.map((c, i) => cardLine(c, i)).join('\n')}`;
}

/** A query string from defined values (arrays repeat the key). */
export function query(params: Record<string, string | number | boolean | readonly string[] | undefined>): string {
  const q = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) {
    if (value === undefined) continue;
    if (Array.isArray(value)) for (const v of value) q.append(key, v);
    else q.append(key, String(value));
  }
  const s = q.toString();
  return s ? `?${s}` : '';
}

/**
 * A path segment for an id taken from an agent. A lone surrogate (valid in JSON, not in UTF-8)
 * becomes U+FFFD first: encodeURIComponent throws on it, and no id contains one.
 */
export const seg = (id: string): string => encodeURIComponent(id.replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, '\ufffd'));
