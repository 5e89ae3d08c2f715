/**
 * The review detector: review notes on the changes under review (uncommitted work and the newest
 * commits). Four rules, each in its own module: debug statements and added TODOs, secrets, stale
 * callers of a changed signature, and a source file changed without its usual test. It examines the
 * changed files only, so those are what it covers.
 */
import type { Detector, DetectorResult } from '../types';
import type { RepositoryView } from '../../view/repository-view';
import { changedPaths, changesUnderReview } from './changes';
import { debugStatementCandidates } from './debug-statements';
import { missingTestCandidates } from './missing-test-change';
import { secretCandidates } from './secrets';
import { staleCallerCandidates } from './signature-change';

const findings = new WeakMap<RepositoryView, Promise<DetectorResult>>();

/**
 * The review notes for `view`, computed once per view (the hotspot detector reads them too). A run
 * cut short by `signal` is not kept, and covers nothing.
 */
export function reviewFindings(view: RepositoryView, signal: AbortSignal): Promise<DetectorResult> {
  const cached = findings.get(view);
  if (cached !== undefined) return cached;
  const run = (async (): Promise<DetectorResult> => {
    const changes = await changesUnderReview(view);
    const candidates = [
      ...debugStatementCandidates(view, changes, signal),
      ...secretCandidates(view, changes, signal),
      ...(await staleCallerCandidates(view, changes, signal)),
      ...missingTestCandidates(view, changes, signal),
    ];
    return { candidates, covered: signal.aborted ? [] : changedPaths(changes) };
  })();
  findings.set(view, run);
  void run.then(
    () => {
      if (signal.aborted) findings.delete(view);
    },
    () => findings.delete(view),
  );
  return run;
}

export const reviewDetector: Detector = {
  name: 'review',
  kinds: ['review_note'],
  detect: ({ view, signal }) => reviewFindings(view, signal),
};
