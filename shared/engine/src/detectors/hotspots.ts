/**
 * The bug detector: a bug hypothesis only where two concrete things meet. The file is a hotspot
 * (its churn in the newest commits times its size is in the repository's top decile, with at least
 * MIN_HOTSPOT_COMMITS commits), and the changes under review give it a review signal (a debug
 * statement, callers left on an old signature, or its usual test not updated). Either alone is no card.
 */
import type { Detector } from './types';
import type { RepositoryView } from '../view/repository-view';
import type { CommitRef } from '../view/git-history';
import type { Candidate, EvidenceRef } from '../work/types';
import { evidenceMarkdown, joinWords } from './review/changes';
import { reviewFindings } from './review/review';

/** Newest commits churn is counted over. */
export const HOTSPOT_COMMITS = 50;
/** Fewer commits than this never make a hotspot, however large the file. */
export const MIN_HOTSPOT_COMMITS = 3;
/** Share of the repository's files (by churn × lines) that count as hotspots. */
export const HOTSPOT_SHARE = 0.1;
/** Commits cited as evidence per card. */
const MAX_COMMIT_EVIDENCE = 5;
const STRENGTH = 0.5;

/** Review rules whose findings make a hotspot change suspicious, and how the card names them. */
const SIGNALS: Readonly<Record<string, string>> = {
  'review.debug_statement': 'a debug statement',
  'review.stale_callers': 'callers left on the old signature',
  'review.missing_test_change': 'its usual test left unchanged',
};

/** How hot one file is. */
interface Heat {
  commits: readonly CommitRef[];
  lines: number;
}

export const hotspotDetector: Detector = {
  name: 'bug',
  kinds: ['bug_hypothesis'],
  async detect({ view, signal }) {
    const review = await reviewFindings(view, signal);
    const covered = review.covered;
    const byPath = new Map<string, Candidate[]>();
    for (const c of review.candidates) {
      const path = c.targets[0];
      if (path === undefined || SIGNALS[c.detector] === undefined) continue;
      byPath.set(path, [...(byPath.get(path) ?? []), c]);
    }
    if (byPath.size === 0 || signal.aborted) return { candidates: [], covered };
    const history = await view.git.history();
    const commits = history.commits.slice(0, HOTSPOT_COMMITS);
    const hot = hotspots(view, (path) => history.touches(path).filter((c) => history.position(c.sha) < HOTSPOT_COMMITS));
    const candidates: Candidate[] = [];
    for (const [path, signals] of byPath) {
      const heat = hot.get(path);
      if (heat !== undefined) candidates.push(card(path, heat, commits.length, signals));
    }
    return { candidates, covered };
  },
};

/** Files in the top HOTSPOT_SHARE by churn × lines among indexed files, with at least MIN_HOTSPOT_COMMITS commits. */
export function hotspots(view: RepositoryView, touching: (path: string) => readonly CommitRef[]): Map<string, Heat> {
  const paths = view.paths();
  const scores = paths.map((p) => {
    const commits = touching(p);
    // Lines are counted only where churn can make a hotspot: reading every file's text costs memory.
    return { path: p, commits, lines: commits.length >= MIN_HOTSPOT_COMMITS ? (view.lines(p)?.length ?? 0) : 0 };
  });
  const score = (h: Heat): number => h.commits.length * h.lines;
  const ranked = scores.map(score).sort((a, b) => b - a);
  const threshold = ranked[Math.max(1, Math.ceil(paths.length * HOTSPOT_SHARE)) - 1] ?? Infinity;
  const out = new Map<string, Heat>();
  for (const s of scores) {
    if (s.commits.length >= MIN_HOTSPOT_COMMITS && score(s) > 0 && score(s) >= threshold) out.set(s.path, { commits: s.commits, lines: s.lines });
  }
  return out;
}

function card(path: string, heat: Heat, window: number, signals: Candidate[]): Candidate {
  const what = joinWords([...new Set(signals.map((s) => SIGNALS[s.detector] ?? 'a review note'))]);
  const stats = `changed in ${heat.commits.length} of the last ${window} commits, ${heat.lines} lines`;
  const commitEvidence: EvidenceRef[] = heat.commits.slice(0, MAX_COMMIT_EVIDENCE).map((c) => ({ path, commit: c.sha, note: 'a recent commit that changed this file' }));
  const evidence = [...signals.flatMap((s) => s.evidence), ...commitEvidence];
  return {
    kind: 'bug_hypothesis',
    detector: 'bug.hotspot_change',
    claim: `${path}|hotspot`,
    title: `Changes to ${path} (${stats}) with ${what}: likely regression point`,
    summary: `${path} is one of the most changed large files in the repository, and the changes under review add ${what}. Regressions cluster where busy code changes carelessly.`,
    whyNow: signals[0]?.whyNow ?? `${path} changed.`,
    body: [
      `## What`,
      `\`${path}\` is a hotspot (${stats}; top ${Math.round(HOTSPOT_SHARE * 100)}% of files by churn × size). The changes under review give it ${what}:`,
      ...signals.map((s) => `- ${s.title}`),
      ``,
      `## Why it matters`,
      `Files that change often and are large are where defects concentrate; a change there with a review signal deserves a closer look before it ships.`,
      ``,
      `## Evidence`,
      evidenceMarkdown(evidence),
      ``,
      `## Safe action`,
      `Review the change to \`${path}\` closely and resolve the listed notes: ${signals.map((s) => s.action).join('; ')}.`,
    ].join('\n'),
    action: `Review the change to ${path} closely and resolve its review notes`,
    evidence,
    strength: STRENGTH,
    targets: [path],
    warnings: ['A hypothesis from churn and review signals: no failing test or error backs it.'],
  };
}
