import type { Command } from 'commander';
import type { SkillList, SkillWire } from '@sous/engine';
import { DaemonRequestError, type DaemonClient } from '@sous/runtime';
import { FEEDBACK_VALUES } from '@sous/store';
import { CliError } from '../cli-error';
import { requireClient } from '../daemon-control';
import { printJson, printLine } from '../output';
import { run } from '../run';
import { resolveWorkspace } from '../workspace';

interface Common {
  path?: string;
  json?: boolean;
}

/** A refused value or an unknown id is bad usage (exit 2); anything else the daemon refused is exit 1. */
function rethrow(err: unknown): never {
  if (err instanceof DaemonRequestError) throw new CliError(err.message, err.status === 400 || err.status === 404 ? 2 : 1);
  throw err;
}

/**
 * GET with `reveal=external`: this terminal is the user's own, so external skills are named. A daemon
 * that is not on loopback refuses (403): then without, and external skills show withheld.
 */
async function revealing<T>(client: DaemonClient, path: string): Promise<T> {
  try {
    return await client.get<T>(`${path}?reveal=external`);
  } catch (err) {
    if (err instanceof DaemonRequestError && err.status === 403) return client.get<T>(path).catch(rethrow);
    return rethrow(err);
  }
}

function skillLine(k: SkillWire): string {
  const what = k.withheld ? '(external, withheld)' : `${k.name ?? ''}  ${k.file ?? ''}`;
  return `${k.id}  ${k.zone.padEnd(13)}  ${k.weight.toFixed(3)}  ${k.state.padEnd(9)}  ${what}`;
}

/**
 * `sous skills list|inspect|feedback|dismiss|restore` (docs/skills.md): the skills the daemon found in
 * the repository's skill roots (and global roots with intent.include_global_skills), their zone and
 * weight, and the influence controls `sous.artefacts.*` offers agents.
 */
export function registerSkillsCommands(program: Command): void {
  const skills = program.command('skills').description('skills found in the skill roots: zones, weights, feedback');
  skills
    .command('list')
    .description('every skill with zone, weight and state, then SKILL.md files that could not be used')
    .option('--path <dir>', 'repository (default: nearest .sous/ upward)')
    .option('--json', 'print as JSON')
    .action(
      run(async (opts: Common) => {
        const body = await revealing<SkillList>(requireClient(resolveWorkspace(opts.path)), '/skills');
        if (opts.json) return printJson(body);
        if (body.off) printLine(`Skill discovery is off: ${body.off}.`);
        if (body.skills.length === 0 && !body.off) printLine(`No skills. Put a folder with a SKILL.md under one of: ${body.roots.filter((r) => r.kind === 'repository').map((r) => r.root).join(', ') || 'intent.skill_roots'}.`);
        if (body.skills.length > 0) printLine('id                      zone           weight  state      skill');
        for (const k of body.skills) printLine(skillLine(k));
        for (const d of body.diagnostics) printLine(`! ${d.path}: ${d.problem}`);
        for (const r of body.roots.filter((r) => r.state === 'refused')) printLine(`! root ${r.root} refused: ${r.reason ?? ''}`);
      }),
    );
  skills
    .command('inspect <id>')
    .description('one skill: zone, weight, feedback counts, the start of its SKILL.md')
    .option('--path <dir>', 'repository (default: nearest .sous/ upward)')
    .option('--json', 'print as JSON')
    .action(
      run(async (id: string, opts: Common) => {
        const body = await revealing<{ skill: SkillWire & { preview: string | null } }>(requireClient(resolveWorkspace(opts.path)), `/skills/${encodeURIComponent(id)}`);
        if (opts.json) return printJson(body);
        const k = body.skill;
        printLine(skillLine(k));
        if (k.description) printLine(`when to use: ${k.description}`);
        printLine(`feedback: ${Object.entries(k.feedback).map(([v, n]) => `${n} ${v}`).join(', ')}`);
        if (k.preview) printLine(`\n${k.preview}`);
      }),
    );
  skills
    .command('feedback <id> <value>')
    .description(`how a skill served you: ${FEEDBACK_VALUES.join(', ')} (the next cycle weighs it)`)
    .option('--path <dir>', 'repository (default: nearest .sous/ upward)')
    .option('--json', 'print as JSON')
    .action(
      run(async (id: string, value: string, opts: Common) => {
        const body = await requireClient(resolveWorkspace(opts.path)).post<{ feedback: { id: string; value: string } }>(`/skills/${encodeURIComponent(id)}/feedback`, { value }).catch(rethrow);
        if (opts.json) return printJson(body);
        printLine(`Recorded ${body.feedback.value} for ${body.feedback.id}; the next preparation cycle weighs the skill by it.`);
      }),
    );
  for (const action of ['dismiss', 'restore'] as const) {
    skills
      .command(`${action} <id>`)
      .description(action === 'dismiss' ? 'never suggest or name this skill again (until restored)' : 'suggest a dismissed skill again')
      .option('--path <dir>', 'repository (default: nearest .sous/ upward)')
      .option('--json', 'print as JSON')
      .action(
        run(async (id: string, opts: Common) => {
          const body = await requireClient(resolveWorkspace(opts.path)).post<{ skill: SkillWire }>(`/skills/${encodeURIComponent(id)}/${action}`, {}).catch(rethrow);
          if (opts.json) return printJson(body);
          printLine(`${body.skill.id} is ${body.skill.state}.`);
        }),
      );
  }
}
