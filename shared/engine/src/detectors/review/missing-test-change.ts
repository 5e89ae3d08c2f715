/**
 * Review rule: a source file changed (uncommitted, or in the newest commit) without the test file
 * that history says changes with it. History is the index's co-change table, which only links files
 * changed together in at least MIN_COCHANGE_COUNT (2) commits, so one shared commit is never enough.
 * Silent when any of the file's test partners changed in the uncommitted work or the newest commit.
 */
import * as path from 'node:path';
import { isCodePath } from '@sous/retrieval';
import type { RepositoryView } from '../../view/repository-view';
import type { Candidate, EvidenceRef } from '../../work/types';
import { commitOf, describeSource, evidenceMarkdown, type ChangeSet } from './changes';
import { isTestPath } from '../../view/file-roles';

const STRENGTH = 0.5;

/** Missing-test cards for the uncommitted changes and the newest commit in `changes`. */
export function missingTestCandidates(view: RepositoryView, changes: readonly ChangeSet[], signal: AbortSignal): Candidate[] {
  const reviewed = [changes.find((c) => c.source === 'uncommitted'), changes.find((c) => c.source !== 'uncommitted')].filter(
    (c): c is ChangeSet => c !== undefined,
  );
  const out = new Map<string, Candidate>();
  for (const [i, change] of reviewed.entries()) {
    // Newer work can complete older work (the test of the newest commit updated uncommitted), not the reverse.
    const changedNow = new Set(reviewed.slice(0, i + 1).flatMap((c) => c.files.flatMap((f) => (f.oldPath === undefined ? [f.path] : [f.path, f.oldPath]))));
    for (const diff of change.files) {
      if (signal.aborted) return [...out.values()];
      if (diff.status === 'deleted' || isTestPath(diff.path) || !isCodePath(diff.path)) continue;
      const source = view.file(diff.path);
      if (source === undefined) continue;
      const partners = view.coChangedWith(diff.path).filter((p) => isTestPath(p) && view.file(p) !== undefined);
      if (partners.length === 0 || partners.some((p) => changedNow.has(p))) continue;
      const test = bestPartner(diff.path, partners);
      const testFile = view.file(test);
      const claim = `${diff.path}|missing-test|${test}`;
      if (testFile === undefined || out.has(claim)) continue;
      const commit = commitOf(change);
      const evidence: EvidenceRef[] = [
        { path: diff.path, contentHash: source.sha256, ...(commit === undefined ? {} : { commit }), note: `changed in ${describeSource(change)}` },
        { path: test, contentHash: testFile.sha256, note: 'changed together in the past but not now' },
      ];
      out.set(claim, card(diff.path, test, describeSource(change), evidence));
    }
  }
  return [...out.values()];
}

/** The test partner named after the source (`math.ts` → `math.test.ts`), else the most frequent one. */
function bestPartner(source: string, partners: readonly string[]): string {
  const stem = path.posix.basename(source).replace(/\.[^.]+$/, '').toLowerCase();
  return partners.find((p) => path.posix.basename(p).toLowerCase().includes(stem)) ?? (partners[0] as string);
}

function card(source: string, test: string, from: string, evidence: EvidenceRef[]): Candidate {
  return {
    kind: 'review_note',
    detector: 'review.missing_test_change',
    claim: `${source}|missing-test|${test}`,
    title: `${source} changed without ${test}`,
    summary: `${source} changed in ${from} but ${test} did not, although the two changed together in earlier commits. The test may no longer cover the new behaviour.`,
    whyNow: `${source} changed in ${from}.`,
    body: [
      `## What`,
      `\`${source}\` changed in ${from}; \`${test}\` did not. In the repository's history the two changed together in at least two commits.`,
      ``,
      `## Why it matters`,
      `When a file's usual test does not move with it, the change is often untested, or the test now checks the old behaviour.`,
      ``,
      `## Evidence`,
      evidenceMarkdown(evidence),
      ``,
      `## Safe action`,
      `Check whether \`${test}\` needs a case for the change; if the change needs no test, dismiss this note.`,
    ].join('\n'),
    action: `Check whether ${test} needs an update for the change to ${source}`,
    evidence,
    strength: STRENGTH,
    targets: [source, test],
    warnings: ['Co-change history is a statistical link, not proof that the test covers this file.'],
  };
}
