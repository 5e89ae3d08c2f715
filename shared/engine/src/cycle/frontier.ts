/**
 * The frontier of a cycle: files worth preparing for, by priority. Trigger and uncommitted paths
 * start at 1, the latest commits' files a little lower (older, lower), and priority spreads along
 * imports and co-change, halving per hop, up to `exploration.max_exploration_depth` hops. Files
 * under `exploration.min_priority` are dropped and at most `exploration.frontier_max_size` kept.
 */
import type { Frontier } from '../detectors/types';
import type { RepositoryView } from '../view/repository-view';

/** Exploration bounds (config `exploration.*`). */
export interface FrontierBounds {
  maxDepth: number;
  maxSize: number;
  minPriority: number;
}

/** Priority of the newest commit's files; each older commit gets `COMMIT_DECAY` less. */
export const NEWEST_COMMIT_PRIORITY = 0.8;
export const COMMIT_DECAY = 0.1;
/** Priority passed along one import or co-change link. */
export const HOP_FACTOR = 0.5;

/** Seeds (path → priority) spread over the file graph within `bounds`. */
export function buildFrontier(view: RepositoryView, seeds: ReadonlyMap<string, number>, bounds: FrontierBounds): Frontier {
  const best = new Map<string, number>();
  let layer: Array<[string, number]> = [];
  for (const [path, priority] of seeds) {
    if (view.file(path) === undefined || priority < bounds.minPriority) continue;
    if (priority > (best.get(path) ?? 0)) best.set(path, priority);
  }
  layer = [...best];
  for (let depth = 0; depth < bounds.maxDepth && layer.length > 0; depth++) {
    const next: Array<[string, number]> = [];
    for (const [path, priority] of layer) {
      const passed = priority * HOP_FACTOR;
      if (passed < bounds.minPriority) continue;
      const file = view.file(path);
      const neighbours = [...(file?.imports ?? []), ...view.importersOf(path), ...view.coChangedWith(path)];
      for (const n of neighbours) {
        if (passed <= (best.get(n) ?? 0) || view.file(n) === undefined) continue;
        best.set(n, passed);
        next.push([n, passed]);
      }
    }
    layer = next;
  }
  const entries = [...best]
    .map(([path, priority]) => ({ path, priority }))
    .sort((a, b) => b.priority - a.priority || (a.path < b.path ? -1 : 1))
    .slice(0, bounds.maxSize);
  const kept = new Map(entries.map((e) => [e.path, e.priority]));
  return { entries, priority: (path) => kept.get(path) ?? 0 };
}

/** The seeds of a cycle: trigger paths and uncommitted changes at 1, the latest commits' files below. */
export async function frontierSeeds(view: RepositoryView, triggerPaths: readonly string[], recentCommits: number): Promise<Map<string, number>> {
  const seeds = new Map<string, number>();
  const raise = (path: string, p: number): void => {
    if (p > (seeds.get(path) ?? 0)) seeds.set(path, p);
  };
  for (const path of triggerPaths) raise(path, 1);
  for (const diff of await view.git.uncommitted()) raise(diff.path, 1);
  const commits = await view.git.recentCommits(recentCommits);
  commits.forEach((commit, i) => {
    for (const diff of commit.files) raise(diff.path, Math.max(0, NEWEST_COMMIT_PRIORITY - COMMIT_DECAY * i));
  });
  return seeds;
}
