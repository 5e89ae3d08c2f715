/** Git history turned into ranking inputs: recency by rank and co-change neighbours. */
import type { GitSignals } from '../scope';

/** Pairs changed together fewer times than this are coincidence, not a link. */
export const MIN_COCHANGE_COUNT = 2;
/** Co-change neighbours kept per file, most frequent first. */
export const MAX_COCHANGE_NEIGHBOURS = 5;

/**
 * Recency 0..1 per file by rank of its newest commit: the newest commit time gives 1, older ones
 * step down evenly to 1/n for the n-th distinct time. Ranks, not ages, so a repository untouched
 * for a year still has a "most recent" file. Files without history get no entry (no signal).
 */
export function recencyByRank(signals: GitSignals): Map<string, number> {
  const times = [...new Set([...signals.files.values()].map((f) => f.lastCommitTime))].sort((a, b) => b - a);
  const rank = new Map(times.map((t, i) => [t, i]));
  const out = new Map<string, number>();
  for (const file of signals.files.values()) {
    const r = rank.get(file.lastCommitTime) ?? times.length;
    out.set(file.path, (times.length - r) / times.length);
  }
  return out;
}

/** Per file, the files it changed together with at least MIN_COCHANGE_COUNT times (at most MAX_COCHANGE_NEIGHBOURS). */
export function coChangeNeighbours(signals: GitSignals): Map<string, string[]> {
  const out = new Map<string, string[]>();
  const add = (from: string, to: string): void => {
    const list = out.get(from) ?? [];
    if (list.length < MAX_COCHANGE_NEIGHBOURS) list.push(to);
    out.set(from, list);
  };
  // `coChange` is sorted by count, highest first, so each list is most-frequent first.
  for (const pair of signals.coChange) {
    if (pair.count < MIN_COCHANGE_COUNT) break;
    add(pair.a, pair.b);
    add(pair.b, pair.a);
  }
  return out;
}
