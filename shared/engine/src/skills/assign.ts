/**
 * Skills in preparation (docs/skills.md#in-preparation): each candidate of a cycle is given the
 * skills most relevant to it, by relevance × weight. The card records their ids (feedback on it then
 * reaches them through the loop), and the first whose text the cycle's model may read becomes
 * guidance in the model's prompts for that card. Guidance is built here, once, under the zone rule.
 */
import type { Candidate, CandidateSkill } from '../work/types';
import type { SkillRanker } from './ranker';
import { skillFile } from './views';
import { zoneAllows } from './zones';

/** Most characters of a skill's body quoted as guidance (small local models have small windows). */
export const GUIDANCE_BODY_CHARS = 1_200;

/** What a cycle knows about skills. */
export interface CycleSkills {
  ranker: SkillRanker;
  /** Whether the cycle's model backend is on loopback: only then may external skills' text reach it. */
  modelOnLoopback: boolean;
}

/** The words a candidate is judged on: what it is, what it says, what it is about. */
function workText(c: Candidate): string {
  return [c.kind, c.detector, c.title, c.summary, ...c.targets].join(' ');
}

/** The candidate with its skills (unchanged when none is relevant, or it already has them). */
export function withSkills(c: Candidate, skills: CycleSkills): Candidate {
  if (c.skills !== undefined) return c;
  const matches = skills.ranker.rank(workText(c));
  if (matches.length === 0) return c;
  let guided = false;
  const out: CandidateSkill[] = matches.map((m) => {
    const may = !guided && zoneAllows(m.skill.zone, { kind: 'model', loopback: skills.modelOnLoopback });
    if (!may) return { id: m.skill.id, zone: m.skill.zone };
    guided = true;
    return { id: m.skill.id, zone: m.skill.zone, guidance: guidance(m.skill) };
  });
  return { ...c, skills: out };
}

function guidance(skill: { name: string; description: string; body: string; folder: string; zone: 'project_local' | 'external' }): string {
  const where = skill.zone === 'project_local' ? `project skill ${skillFile(skill.folder, skill.zone)}` : 'a skill kept on this machine';
  const body = skill.body.length > GUIDANCE_BODY_CHARS ? `${skill.body.slice(0, GUIDANCE_BODY_CHARS)}…` : skill.body;
  return [`Skill to follow (${where}): ${skill.name}: ${skill.description}`, ...(body ? [body] : [])].join('\n');
}
