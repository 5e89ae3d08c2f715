/**
 * The vocabulary of skills (docs/skills.md): a skill is a folder holding a `SKILL.md` whose front
 * matter names it and says when to use it. Discovery finds them under skill roots; each carries the
 * privacy zone of where it lives (spec invariant 8). Plain data.
 */

/** `project_local`: inside the repository; `external`: outside it (a global root such as `~/.claude/skills`). */
export const SKILL_ZONES = ['project_local', 'external'] as const;
export type SkillZone = (typeof SKILL_ZONES)[number];

/** One discovered skill. Its text is held in memory only and never logged. */
export interface Skill {
  /** Opaque and stable while the folder stays put: `skill_` + 16 hex of sha256(zone, folder). Reveals nothing. */
  id: string;
  zone: SkillZone;
  /** Front matter `name`. Never log it for an external skill. */
  name: string;
  /** Front matter `description`: when to use the skill (what relevance is judged on). */
  description: string;
  /** The folder: repository-relative for `project_local`, absolute for `external`. */
  folder: string;
  /** The root it was found under, as configured (`skills`, `~/.claude/skills`). */
  root: string;
  /** The text after the front matter, redacted by `privacy.redact_patterns`, cut to `SKILL_BODY_CHARS`. */
  body: string;
  /** sha256 of SKILL.md's bytes. */
  sha256: string;
}

/** A SKILL.md that could not be used, and why (one line that never quotes the file). */
export interface SkillDiagnostic {
  zone: SkillZone;
  root: string;
  /** The SKILL.md (or folder): repository-relative for `project_local`, absolute for `external`. */
  path: string;
  problem: string;
}

/** What discovery did with one configured root. */
export interface SkillRootReport {
  /** As configured (`skills`) or as listed for global roots (`~/.claude/skills`). */
  root: string;
  kind: 'repository' | 'global';
  /** `scanned`; `missing` (no such folder); `refused` (escapes the repository, or not a folder). */
  state: 'scanned' | 'missing' | 'refused';
  reason?: string;
  skills: number;
}

/** Everything one discovery pass found. */
export interface SkillCatalogue {
  skills: Skill[];
  diagnostics: SkillDiagnostic[];
  roots: SkillRootReport[];
  /** Why nothing was discovered, when discovery did not run (`intent.enabled = false`, a paused workspace). */
  off?: string;
  discoveredAt: string;
}
