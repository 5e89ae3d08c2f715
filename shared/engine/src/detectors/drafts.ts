/**
 * Ready prediction-backed drafts: when a review finding asks for a follow-up change (callers left on
 * an old signature, a test that usually changes with its source), the likely next prompt is that
 * change. The draft holds the prompt, ready to adopt, and the briefing an agent needs for it: the
 * cited files and lines. Its prediction source is `history` (recent activity, spec 2.4).
 */
import type { Candidate } from '../work/types';
import { claimKey } from '../cycle/land';
import { reviewFindings } from './review/review';
import type { Detector } from './types';

/** Findings a draft follows, and the prompt that would act on each. */
const FOLLOW_UPS: Readonly<Record<string, (finding: Candidate) => string>> = {
  'review.stale_callers': (f) => `${f.action}. ${f.title}. Keep the behaviour of the other call sites unchanged and run the tests.`,
  'review.missing_test_change': (f) => `${f.action}: add or update the test so it covers what changed, following the existing tests' style.`,
};

/** A draft is a step after its finding: it scores from the same evidence, a little lower. */
export const DRAFT_STRENGTH_FACTOR = 0.9;

const DRAFT_HEADING = '## Draft prompt';
const BRIEFING_HEADING = '## Briefing';

export const draftDetector: Detector = {
  name: 'draft',
  kinds: ['prediction_draft'],
  async detect({ view, signal }) {
    const review = await reviewFindings(view, signal);
    const candidates: Candidate[] = [];
    for (const finding of review.candidates) {
      const prompt = FOLLOW_UPS[finding.detector]?.(finding);
      if (prompt === undefined) continue;
      candidates.push(draft(finding, prompt));
    }
    return { candidates, covered: review.covered };
  },
};

function draft(finding: Candidate, prompt: string): Candidate {
  const where = finding.evidence.map((e) => (e.lineStart === undefined ? `\`${e.path}\`` : `\`${e.path}:${e.lineStart}${e.lineEnd !== undefined && e.lineEnd !== e.lineStart ? `-${e.lineEnd}` : ''}\``));
  return {
    kind: 'prediction_draft',
    detector: 'draft.follow_up',
    claim: `follow-up|${claimKey(finding)}`,
    title: `Ready to ask: ${firstSentence(prompt)}`,
    summary: `A likely next prompt after "${finding.title}", with its briefing prepared. Adopt it to use it as your next request.`,
    whyNow: finding.whyNow,
    body: [
      DRAFT_HEADING,
      '',
      prompt,
      '',
      BRIEFING_HEADING,
      '',
      `Why: ${finding.summary}`,
      '',
      'Files and lines to read first:',
      ...where.map((w) => `- ${w}`),
    ].join('\n'),
    action: 'Adopt the draft to send it to your agent, or dismiss it',
    evidence: finding.evidence.map((e) => ({ ...e })),
    strength: finding.strength * DRAFT_STRENGTH_FACTOR,
    targets: [...finding.targets],
    warnings: ['A prediction from recent activity: adopt it only if it is what you meant to do next.'],
    draft: { prompt },
    follows: finding.detector,
  };
}

/**
 * The draft with another prompt (the model's rewrite): `draft.prompt` and the body's prompt section
 * (followed by `byline`) agree, the briefing stays. The title keeps naming the heuristic ask, so the
 * card's identity does not move with the wording.
 */
export function withDraftPrompt(draft: Candidate, prompt: string, byline: string): Candidate {
  const at = draft.body.indexOf(`\n\n${BRIEFING_HEADING}`);
  const briefing = at >= 0 ? draft.body.slice(at) : '';
  return { ...draft, body: `${DRAFT_HEADING}\n\n${prompt}\n\n${byline}${briefing}`, draft: { prompt } };
}

function firstSentence(text: string): string {
  const end = text.indexOf('. ');
  return (end > 0 ? text.slice(0, end) : text).replace(/\.$/, '');
}
