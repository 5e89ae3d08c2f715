/**
 * How relevant a skill is to a piece of work (docs/skills.md#ranking): the cosine of two word sets,
 * the skill's (name and description) and the work's (a prompt and its evidence paths, or a card's
 * title, summary and targets). Cheap and deterministic: resolve ranks skills on its hot path.
 */
import { codeTokens } from '@sous/retrieval';

/** Below this relevance a skill is not suggested for the work at all, whatever its weight. */
export const MIN_RELEVANCE = 0.1;

/** Words every skill description uses ("Use when …"): they say nothing about which work it fits. */
const SKILL_STOPWORDS: ReadonlySet<string> = new Set(['use', 'used', 'uses', 'using', 'skill', 'help', 'helps', 'task', 'work', 'need', 'want', 'make', 'sure', 'please']);

/** Endings folded so that `rename`, `renamed`, `renames` and `renaming` compare equal (a crude stemmer, on purpose). */
const ENDINGS = ['ing', 'ed', 'es', 'e', 's'];

/** The comparable words of a text: code-aware tokens (stopwords out, plurals folded), common endings dropped. */
export function termSet(text: string): Set<string> {
  const out = new Set<string>();
  for (const token of codeTokens(text)) {
    if (SKILL_STOPWORDS.has(token)) continue;
    const ending = ENDINGS.find((e) => token.length - e.length >= 4 && token.endsWith(e));
    const word = ending === undefined ? token : token.slice(0, -ending.length);
    if (word.length >= 3) out.add(word);
  }
  return out;
}

/** |A ∩ B| / √(|A|·|B|), 0..1; 0 when either is empty. */
export function relevance(skill: ReadonlySet<string>, work: ReadonlySet<string>): number {
  if (skill.size === 0 || work.size === 0) return 0;
  let shared = 0;
  for (const t of skill) if (work.has(t)) shared += 1;
  return Math.round((shared / Math.sqrt(skill.size * work.size)) * 1000) / 1000;
}
