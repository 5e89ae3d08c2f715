/**
 * A SKILL.md's front matter: a YAML block between `---` lines at the top of the file, holding at
 * least `name` and `description` (other keys, such as `allowed-tools` or `license`, are allowed and
 * ignored). Parsed with `yaml`, validated with joi. Problems are one line that gives a position but
 * never quotes the file (yaml's own messages quote the offending line, so they are not passed on).
 */
import Joi from 'joi';
import { parseDocument } from 'yaml';

/** Longest skill name (the Agent Skills convention's limit). */
export const SKILL_NAME_MAX = 64;
/** Longest description. */
export const SKILL_DESCRIPTION_MAX = 1024;

const frontMatterSchema = Joi.object({
  name: Joi.string().trim().min(1).max(SKILL_NAME_MAX).pattern(/^[^\r\n]+$/).required(),
  description: Joi.string().trim().min(1).max(SKILL_DESCRIPTION_MAX).required(),
})
  .unknown(true)
  .prefs({ convert: false });

export type ParsedSkill = { ok: true; name: string; description: string; body: string } | { ok: false; problem: string };

const FENCE = /^---[ \t]*$/;

/** Splits and validates a SKILL.md. Never throws. */
export function parseSkillFile(text: string): ParsedSkill {
  const lines = text.split(/\r?\n/);
  if (!FENCE.test(lines[0] ?? '')) return { ok: false, problem: 'no front matter: SKILL.md must start with a --- line, then name: and description:, then ---' };
  const end = lines.findIndex((line, i) => i > 0 && FENCE.test(line));
  if (end < 0) return { ok: false, problem: 'front matter is not closed: add a --- line after description:' };
  const yaml = lines.slice(1, end).join('\n');
  const doc = parseDocument(yaml, { uniqueKeys: true, prettyErrors: false });
  const error = doc.errors[0];
  if (error !== undefined) {
    // A line of the file (the front matter starts on line 2); of yaml's message only its kind, which quotes nothing.
    const line = yaml.slice(0, error.pos[0]).split('\n').length + 1;
    const hint = error.code === 'BLOCK_AS_IMPLICIT_KEY' ? '; put a value holding ": " in quotes' : '';
    return { ok: false, problem: `front matter is not valid YAML (${error.code.toLowerCase().replace(/_/g, ' ')}) at line ${line}${hint}` };
  }
  const data: unknown = doc.toJS({ maxAliasCount: 0 });
  if (data === null || typeof data !== 'object' || Array.isArray(data)) return { ok: false, problem: 'front matter must be a mapping with name: and description:' };
  const { error: invalid, value } = frontMatterSchema.validate(data, { abortEarly: true });
  if (invalid) return { ok: false, problem: `front matter ${describe(invalid.details[0])}` };
  const { name, description } = value as { name: string; description: string };
  return { ok: true, name: name.trim(), description: description.trim().replace(/\s+/g, ' '), body: lines.slice(end + 1).join('\n').trim() };
}

/** joi's detail in words that name the key but not its value. */
function describe(detail: Joi.ValidationErrorItem | undefined): string {
  const key = String(detail?.path[0] ?? 'value');
  switch (detail?.type) {
    case 'any.required':
      return `has no ${key}:`;
    case 'string.base':
      return `${key}: must be text`;
    case 'string.empty':
    case 'string.min':
      return `${key}: must not be empty`;
    case 'string.max':
      return `${key}: is longer than ${key === 'name' ? SKILL_NAME_MAX : SKILL_DESCRIPTION_MAX} characters`;
    case 'string.pattern.base':
      return `${key}: must be one line`;
    default:
      return `${key}: is not valid`;
  }
}
