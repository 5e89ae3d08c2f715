/**
 * Skills as the daemon serves them (`GET /skills`; docs/skills.md): the fields the artefact tools
 * read, and one line per skill for result summaries. External skills arrive withheld (no name, no
 * file): these results are read by an agent's model, wherever it runs.
 */

/** Skill ids start with this; card ids never do. */
export const SKILL_ID_PREFIX = 'skill_';

export function isSkillId(id: string): boolean {
  return id.startsWith(SKILL_ID_PREFIX);
}

export interface WireSkill {
  id: string;
  kind: 'skill';
  zone: 'project_local' | 'external';
  name: string | null;
  description: string | null;
  file: string | null;
  root: string;
  withheld: boolean;
  weight: number;
  feedback: Record<string, number>;
  state: 'active' | 'dismissed';
  actions: string[];
}

export interface SkillListWire {
  skills: WireSkill[];
  diagnostics: Array<{ zone: string; root: string; path: string; problem: string }>;
  off: string | null;
}

/** `- [skill] {project_local, weight 1.2} name (file) (id skill_…)`; a withheld one without name or file. */
export function skillLine(skill: WireSkill): string {
  const what = skill.withheld ? '(external skill; its name and text stay on this machine)' : `${skill.name ?? ''} (${skill.file ?? ''})`;
  return `- [skill] {${skill.zone}, weight ${skill.weight}${skill.state === 'dismissed' ? ', dismissed' : ''}} ${what} (id ${skill.id})`;
}
