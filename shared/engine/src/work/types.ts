/**
 * The vocabulary of preparation: what a detector proposes (a Candidate), the evidence it cites, and
 * the virtual diff a mechanical fix carries. Plain data; the cycle scores and stores it.
 */
import type { WorkProductKind } from '@sous/store';

/**
 * One piece of evidence: a file (and line range) as it was when read, or a commit. `contentHash` is
 * the sha256 of the whole file as indexed; a card whose evidence hash no longer matches the index is
 * stale. Never an excerpt of the file.
 */
export interface EvidenceRef {
  /** Repository-relative POSIX path. */
  path: string;
  /** First line, 1-based. */
  lineStart?: number;
  /** Last line, inclusive. */
  lineEnd?: number;
  /** sha256 (hex) of the file when read. Absent for evidence that is only a commit (a removed file). */
  contentHash?: string;
  /** The commit this evidence comes from (a removal, a rename, the last edit of a doc). */
  commit?: string;
  /** What it shows, in a few words: "mentions `parseConfig`", "removed `parseConfig`". */
  note: string;
}

/** A file a virtual diff changes, as it was when the diff was made. */
export interface DiffTarget {
  path: string;
  /** sha256 (hex) of the file's bytes: freshness compares it. */
  sha256: string;
  /** git's blob id of the same bytes (`git hash-object`): the patch's `index` line names it. */
  gitBlob: string;
}

/** The patch-shaped part of a virtual diff (spec 2.2). Stored, never applied. */
export interface VirtualDiffDraft {
  /** The source snapshot: every file the patch touches. */
  targets: DiffTarget[];
  /** A unified diff in git's format that `git apply --check` accepts against the snapshot. */
  patch: string;
}

/** What a detector proposes: one claim about one target, with its evidence. */
export interface Candidate {
  kind: WorkProductKind;
  /** Detector id, `<family>.<rule>` (e.g. `docs_drift.removed_name`); feedback is counted per detector. */
  detector: string;
  /**
   * The claim and its target, stable across cycles for the same finding (e.g. `docs/api.md|parseConfig`).
   * With the detector it forms the claim key: the same key supersedes, never duplicates.
   */
  claim: string;
  /** What was prepared, one line. */
  title: string;
  /** Two or three sentences for the feed. */
  summary: string;
  /** Why now: the change or signal that made it worth preparing. */
  whyNow: string;
  /** The full card body (markdown): what, why, evidence in words, the safe action. */
  body: string;
  /** The safe action, one line ("Export the patch and review it", "Update docs/api.md line 12"). */
  action: string;
  /** At least one item; the first is the main one. */
  evidence: EvidenceRef[];
  /** How strong and precise the evidence is, 0..1, by the detector's own rules. */
  strength: number;
  /** The files the claim is about (relevance to recent activity). */
  targets: string[];
  /** Caveats shown on inspect. */
  warnings?: string[];
  /** Virtual diffs only. */
  diff?: VirtualDiffDraft;
  /** Prediction-backed drafts only: the prompt adopt hands over. */
  draft?: { prompt: string };
  /** The detector of the finding this card follows (a draft after a review note): off with it. */
  follows?: string;
  /** Skills suggested for it, best first (set by the cycle; docs/skills.md). The card records their ids. */
  skills?: CandidateSkill[];
  /** A held detector's finding the exploration model checked (`exploration.confirm_held`). */
  check?: ModelCheck;
}

/**
 * The exploration model's verdict on a held finding: `confirmed` lets it into the feed like any
 * other card, `refuted` keeps it a candidate. Stored in the card's details (`model_check`), so a
 * finding is asked about once per version of its evidence.
 */
export interface ModelCheck {
  verdict: 'confirmed' | 'refuted';
  /** The model that answered. */
  model: string;
  /** Its one sentence why, as it wrote it (redacted like every model answer). */
  why: string;
}

/** A skill suggested for a candidate. */
export interface CandidateSkill {
  /** The skill's opaque id. */
  id: string;
  zone: 'project_local' | 'external';
  /** Text for the model's prompts, only when the zone lets it reach the cycle's model. Never stored. */
  guidance?: string;
}

/** What started a cycle (spec 1, 2.4). */
export type CycleTriggerKind = 'file_change' | 'commit' | 'uncommitted' | 'goal' | 'warm' | 'start' | 'deep_run';

export interface CycleTrigger {
  kind: CycleTriggerKind;
  /** Paths the trigger is about (changed files), when it has any. */
  paths?: string[];
}
