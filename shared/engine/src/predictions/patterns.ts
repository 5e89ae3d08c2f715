/**
 * The `pattern` prediction source (spec 2.4; docs/predictions.md): recurring kinds of change in this
 * repository, read from the newest commits' subjects (their leading verb only) and the in-scope files
 * they touched. A resolution keeps no words of its prompt (only hashes and the area of its evidence),
 * so commits are the evidence of what kinds of change the user keeps asking for. Only the verb and the area are kept, never a subject.
 */
import { runGit, tryGit } from '@sous/retrieval';
import type { PredictionRow, Store } from '@sous/store';
import { LOG_FORMAT, parseLog } from '../view/git-log';
import { BASE_WEIGHT, arcArea, type PathHashes } from './rules';

/** Commits read for patterns. */
export const PATTERN_WINDOW = 50;
/** A (verb, area) pair must recur this often in the window to be a pattern. */
export const PATTERN_MIN = 3;
/** Patterns kept as predictions (most frequent first), before the bundle's drafting multiplier. */
export const PATTERN_KEEP = 3;
const PATTERN_EVIDENCE = 5;

/** One commit as patterns see it: its subject and in-scope file names. */
export interface CommitNames {
  subject: string;
  files: string[];
}

export interface CommitPattern {
  verb: string;
  area: string;
  count: number;
  /** The area's files these commits touched most, most first. */
  paths: string[];
}

/**
 * The leading verb of a subject, lower case: `fix(parser): …`, `Fix: …` and `Fix the …` all give
 * `fix`. Undefined when the first word is not a plain word (a ticket number, a sha, an emoji).
 */
export function leadingVerb(subject: string): string | undefined {
  const word = subject.trim().split(/[\s:(!]/, 1)[0]?.toLowerCase() ?? '';
  return /^[a-z]{2,20}$/.test(word) ? word : undefined;
}

/** The (verb, area) pairs that recur at least PATTERN_MIN times, most frequent first (ties: newest first), at most PATTERN_KEEP. */
export function commitPatterns(commits: CommitNames[], keep = PATTERN_KEEP): CommitPattern[] {
  const groups = new Map<string, { verb: string; area: string; count: number; touches: Map<string, number> }>();
  for (const c of commits) {
    const verb = leadingVerb(c.subject);
    const area = arcArea(c.files);
    if (verb === undefined || area === undefined) continue;
    const key = `${verb}\0${area}`;
    const g = groups.get(key) ?? { verb, area, count: 0, touches: new Map<string, number>() };
    g.count += 1;
    for (const f of c.files) if (area === '.' ? !f.includes('/') : f.startsWith(`${area}/`)) g.touches.set(f, (g.touches.get(f) ?? 0) + 1);
    groups.set(key, g);
  }
  return [...groups.values()]
    .filter((g) => g.count >= PATTERN_MIN)
    .sort((a, b) => b.count - a.count)
    .slice(0, keep)
    .map((g) => ({
      verb: g.verb,
      area: g.area,
      count: g.count,
      paths: [...g.touches.entries()].sort((a, b) => b[1] - a[1]).slice(0, PATTERN_EVIDENCE).map(([p]) => p),
    }));
}

/** The newest `n` non-merge commits of `root` (read-only `git log`), their file names filtered by `inScope`. */
export async function readCommitNames(root: string, inScope: (path: string) => boolean, n = PATTERN_WINDOW): Promise<CommitNames[]> {
  if ((await tryGit(root, ['rev-parse', '--verify', '-q', 'HEAD'])) === null) return [];
  const log = await runGit(root, ['log', `-n${n}`, '--no-merges', `--format=${LOG_FORMAT}`, '--name-only', '-z', '--no-renames']);
  return parseLog(log).map(({ ref, files }) => ({ subject: ref.subject, files: files.filter(inScope) }));
}

/** What reconciling patterns needs of the registry. */
export interface PatternDeps {
  store: Store;
  workspaceId: string;
  all(): Promise<PredictionRow[]>;
  hashes(paths: string[]): Promise<PathHashes>;
  prepare(row: PredictionRow): Promise<void>;
}

/**
 * One `pattern` prediction per current pattern: a live one is left alone, a stale one is replaced,
 * and pattern predictions of pairs that no longer recur go (adopted ones stay on record).
 */
export async function reconcilePatterns(deps: PatternDeps, commits: CommitNames[], keep = PATTERN_KEEP): Promise<void> {
  const patterns = commitPatterns(commits, keep);
  const keyOf = (p: PredictionRow): string => String((p.details as { pattern?: string }).pattern ?? '');
  const mine = (await deps.all()).filter((p) => p.source === 'pattern' && p.state !== 'adopted');
  const current = new Set(patterns.map((p) => `${p.verb} ${p.area}`));
  await deps.store.predictions.delete(mine.filter((p) => !current.has(keyOf(p)) || p.state === 'stale').map((p) => p.id));
  for (const pattern of patterns) {
    const key = `${pattern.verb} ${pattern.area}`;
    if (mine.some((p) => keyOf(p) === key && p.state !== 'stale')) continue;
    const where = pattern.area === '.' ? 'the repository root' : pattern.area;
    const row = await deps.store.predictions.insert({
      workspaceId: deps.workspaceId,
      source: 'pattern',
      title: `${pattern.verb} in ${where} (a recurring kind of change: ${pattern.count} of the last ${PATTERN_WINDOW} commits)`,
      weight: BASE_WEIGHT.pattern,
      pathHashes: (await deps.hashes(pattern.paths)) as Record<string, string>,
      details: { pattern: key, query: `${pattern.verb} ${pattern.area === '.' ? '' : pattern.area}`.trim() },
    });
    await deps.prepare(row);
  }
}
