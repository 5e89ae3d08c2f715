/**
 * Ranking skills for a piece of work (docs/skills.md#ranking): relevance (relevance.ts) times weight
 * (weights.ts), dismissed skills never, below `MIN_RELEVANCE` never. An immutable snapshot of the
 * catalogue and the learned weights: resolve ranks with it on its hot path without a store read.
 */
import type { SkillStateRow } from '@sous/store';
import { MIN_RELEVANCE, relevance, termSet } from './relevance';
import type { Skill, SkillZone } from './types';
import { skillWeight, type SkillCounts } from './weights';

/** A discovered skill with what the loop and the user said about it. */
export interface WeighedSkill {
  skill: Skill;
  counts: SkillCounts;
  weight: number;
  /** Dismissed by the user (`dismiss` influence): never suggested nor named. */
  dismissed: boolean;
}

/** A skill suggested for a piece of work. */
export interface SkillMatch {
  skill: Skill;
  weight: number;
  relevance: number;
  /** relevance × weight: the order. */
  rank: number;
}

export interface RankOptions {
  /** Most matches returned. Default 2. */
  limit?: number;
  /** Only skills of these zones. Default: both. */
  zones?: readonly SkillZone[];
}

/** Skills named per piece of work by default: one to follow, one alternative. */
export const DEFAULT_SKILLS_PER_WORK = 2;

export class SkillRanker {
  private readonly terms: ReadonlyArray<{ entry: WeighedSkill; terms: Set<string> }>;

  constructor(readonly skills: readonly WeighedSkill[]) {
    this.terms = skills.map((entry) => ({ entry, terms: termSet(`${entry.skill.name} ${entry.skill.description}`) }));
  }

  /** The catalogue joined with the stored states (counts, dismissals); skills without a state weigh 1. */
  static of(skills: readonly Skill[], states: readonly SkillStateRow[]): SkillRanker {
    const byId = new Map(states.map((s) => [s.skillId, s]));
    return new SkillRanker(
      skills.map((skill) => {
        const s = byId.get(skill.id);
        const counts: SkillCounts = { useful: s?.useful ?? 0, partial: s?.partial ?? 0, irrelevant: s?.irrelevant ?? 0, wrong: s?.wrong ?? 0 };
        return { skill, counts, weight: skillWeight(counts), dismissed: s?.dismissedAt != null };
      }),
    );
  }

  get(id: string): WeighedSkill | undefined {
    return this.skills.find((s) => s.skill.id === id);
  }

  /** The skills relevant to `work` (free text: a prompt, a card's title and paths), best first. */
  rank(work: string, options: RankOptions = {}): SkillMatch[] {
    const limit = options.limit ?? DEFAULT_SKILLS_PER_WORK;
    if (limit <= 0 || this.terms.length === 0) return [];
    const workTerms = termSet(work);
    const matches: SkillMatch[] = [];
    for (const { entry, terms } of this.terms) {
      if (entry.dismissed || (options.zones && !options.zones.includes(entry.skill.zone))) continue;
      const r = relevance(terms, workTerms);
      if (r < MIN_RELEVANCE) continue;
      matches.push({ skill: entry.skill, weight: entry.weight, relevance: r, rank: Math.round(r * entry.weight * 1000) / 1000 });
    }
    // Ties: the more relevant, then by id (stable across runs).
    return matches.sort((a, b) => b.rank - a.rank || b.relevance - a.relevance || (a.skill.id < b.skill.id ? -1 : 1)).slice(0, limit);
  }
}
