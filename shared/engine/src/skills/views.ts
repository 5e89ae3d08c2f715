/**
 * Skills on the wire (docs/skills.md#surfaces). Every view goes through the zone rule (zones.ts): an
 * external skill's name, description, folder and body are shown only to a local user who asked
 * (`reveal`); otherwise it appears as its opaque id, zone, weight and state, `withheld: true`.
 */
import type { SkillMatch, WeighedSkill } from './ranker';
import type { SkillDiagnostic, SkillZone } from './types';
import { zoneAllows } from './zones';
import { SKILL_FILE } from './discover';

/** Actions a client may offer on a skill (the artefact influence controls). */
export type SkillAction = 'inspect' | 'feedback' | 'dismiss' | 'restore';

export interface SkillWire {
  id: string;
  /** Always `skill`: tells skills from cards in `sous.artefacts.*` results. */
  kind: 'skill';
  zone: SkillZone;
  /** Null when withheld. */
  name: string | null;
  description: string | null;
  /** The SKILL.md: repository-relative for project_local, absolute for external; null when withheld. */
  file: string | null;
  /** The configured root it was found under. */
  root: string;
  /** True for an external skill shown to a surface that may leave the machine. */
  withheld: boolean;
  weight: number;
  feedback: { useful: number; partial: number; irrelevant: number; wrong: number };
  state: 'active' | 'dismissed';
  actions: SkillAction[];
}

/** A skill as a briefing names it (resolve). Only skills whose text may go in a briefing get here. */
export interface BriefingSkill {
  id: string;
  name: string;
  description: string;
  file: string;
  zone: SkillZone;
  weight: number;
  relevance: number;
}

/** Whether a view may show this zone's text: to a local user who asked, or to any surface for project_local. */
function shows(zone: SkillZone, reveal: boolean): boolean {
  return zoneAllows(zone, reveal ? { kind: 'local_user' } : { kind: 'briefing' });
}

export function skillFile(folder: string, zone: SkillZone): string {
  return zone === 'external' ? `${folder.replace(/\/+$/, '')}/${SKILL_FILE}` : folder === '' ? SKILL_FILE : `${folder}/${SKILL_FILE}`;
}

/** A skill for lists (`GET /skills`, `sous.artefacts.list`). */
export function skillWire(w: WeighedSkill, reveal: boolean): SkillWire {
  const show = shows(w.skill.zone, reveal);
  return {
    id: w.skill.id,
    kind: 'skill',
    zone: w.skill.zone,
    name: show ? w.skill.name : null,
    description: show ? w.skill.description : null,
    file: show ? skillFile(w.skill.folder, w.skill.zone) : null,
    root: w.skill.root,
    withheld: !show,
    weight: w.weight,
    feedback: { ...w.counts },
    state: w.dismissed ? 'dismissed' : 'active',
    actions: ['inspect', 'feedback', w.dismissed ? 'restore' : 'dismiss'],
  };
}

/** Lines of a skill's body shown on inspect. */
const PREVIEW_LINES = 40;

/** One skill with its body preview (`GET /skills/{id}`, `sous.artefacts.inspect`). */
export function inspectSkill(w: WeighedSkill, reveal: boolean): SkillWire & { preview: string | null; sha256: string | null } {
  const wire = skillWire(w, reveal);
  const lines = w.skill.body.split('\n');
  return {
    ...wire,
    preview: wire.withheld ? null : lines.slice(0, PREVIEW_LINES).join('\n') + (lines.length > PREVIEW_LINES ? '\n…' : ''),
    sha256: wire.withheld ? null : w.skill.sha256,
  };
}

/** A diagnostic; an external one's path is withheld unless revealed (the problem never quotes the file). */
export function diagnosticWire(d: SkillDiagnostic, reveal: boolean): SkillDiagnostic & { withheld: boolean } {
  const show = shows(d.zone, reveal);
  return { ...d, path: show ? d.path : '(withheld: outside the repository)', withheld: !show };
}

/** The matches a briefing may name: never an external skill (its text would leave the machine). */
export function briefingSkills(matches: readonly SkillMatch[]): BriefingSkill[] {
  return matches
    .filter((m) => zoneAllows(m.skill.zone, { kind: 'briefing' }))
    .map((m) => ({ id: m.skill.id, name: m.skill.name, description: m.skill.description, file: skillFile(m.skill.folder, m.skill.zone), zone: m.skill.zone, weight: m.weight, relevance: m.relevance }));
}

/** How a card names its skills (inspect, adopt): text only where a briefing may carry it, else the id and zone. */
export function cardSkills(ids: unknown, ranker: { get(id: string): WeighedSkill | undefined }): Array<{ id: string; zone: SkillZone | null; name: string | null; file: string | null; withheld: boolean }> {
  if (!Array.isArray(ids)) return [];
  return ids
    .filter((id): id is string => typeof id === 'string')
    .map((id) => {
      const w = ranker.get(id);
      if (w === undefined) return { id, zone: null, name: null, file: null, withheld: false };
      const show = zoneAllows(w.skill.zone, { kind: 'briefing' });
      return { id, zone: w.skill.zone, name: show ? w.skill.name : null, file: show ? skillFile(w.skill.folder, w.skill.zone) : null, withheld: !show };
    });
}
