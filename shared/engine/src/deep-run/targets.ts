/**
 * What a Deep-Run step explores: the live predictions (most weight first; a goal's prediction carries
 * the bundle's goal weighting) and the active goals that have none yet, taken in turn, a few per
 * step, so a long session goes round all of them and then deeper again. A target's files (its
 * evidence, its briefing's top files, a goal's related files) seed the step's frontier.
 */
import type { Store } from '@sous/store';
import { byWeight, type Details } from '../predictions/view';

export interface StepTarget {
  kind: 'prediction' | 'goal';
  id: string;
  /** Repository-relative files that seed the frontier. */
  paths: string[];
}

/** Briefing files taken per prediction (the strongest; the frontier spreads from them). */
const BRIEFING_PATHS = 5;

/** Every target of the workspace now, in the order steps take them. */
export async function allTargets(store: Store, workspaceId: string): Promise<StepTarget[]> {
  const live = byWeight(await store.predictions.list(workspaceId, { states: ['ready', 'drafting'], limit: 500 }));
  const goals = await store.goals.list(workspaceId, { statuses: ['active'] });
  const withPrediction = new Set(live.flatMap((p) => (p.goal_id === null ? [] : [p.goal_id])));
  const targets: StepTarget[] = [
    ...live.map((p) => ({
      kind: 'prediction' as const,
      id: p.id,
      paths: unique([...Object.keys(p.evidence), ...((p.briefing as Details['briefing'])?.items ?? []).slice(0, BRIEFING_PATHS).map((i) => i.path)]),
    })),
    ...goals.filter((g) => !withPrediction.has(g.id)).map((g) => ({ kind: 'goal' as const, id: g.id, paths: unique(g.relatedFiles) })),
  ];
  return targets.filter((t) => t.paths.length > 0);
}

/**
 * The targets of step `step` (1-based): `count` of them, starting where the previous step stopped and
 * wrapping round. Empty when the workspace has no goal or prediction with files: the step then
 * seeds from recent activity, as a background cycle does.
 */
export async function stepTargets(store: Store, workspaceId: string, step: number, count: number): Promise<StepTarget[]> {
  const all = await allTargets(store, workspaceId);
  if (all.length === 0) return [];
  const take = Math.min(count, all.length);
  const start = ((step - 1) * take) % all.length;
  return Array.from({ length: take }, (_, i) => all[(start + i) % all.length]!);
}

function unique(paths: string[]): string[] {
  return [...new Set(paths)];
}
