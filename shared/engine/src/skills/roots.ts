/**
 * Skill roots (spec invariant 8, 2.8): the repository-local `intent.skill_roots`, and the global
 * roots in the user's home only with `intent.include_global_skills = true`. A repository root is
 * refused when it leaves the repository, by `..` or through a symlink: it would not be repo-local.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { SousConfig } from '@sous/config';

/**
 * Global skill roots, relative to the home folder: where Claude Code and Codex keep a user's own
 * skills. Scanned only with `intent.include_global_skills = true`; their skills are `external`.
 */
export const GLOBAL_SKILL_ROOTS: readonly string[] = ['.claude/skills', '.codex/skills'];

/** A root ready to scan: the folder to walk and the label it is reported under. */
export interface ResolvedRoot {
  /** As configured (`skills`), or `~/.claude/skills` for a global one. */
  label: string;
  kind: 'repository' | 'global';
  /** The folder, symlinks resolved. */
  real: string;
}

/** A root that is not scanned, and why. */
export interface UnusedRoot {
  label: string;
  kind: 'repository' | 'global';
  state: 'missing' | 'refused';
  reason: string;
}

/** The roots discovery walks for `config`, repository ones first. `home` is the user's home folder. */
export async function skillRoots(repoReal: string, config: Pick<SousConfig, 'intent'>, home: string): Promise<{ roots: ResolvedRoot[]; unused: UnusedRoot[] }> {
  const roots: ResolvedRoot[] = [];
  const unused: UnusedRoot[] = [];
  for (const configured of config.intent.skill_roots) {
    const label = configured.trim();
    const refusal = relativeRefusal(label);
    if (refusal !== undefined) {
      unused.push({ label, kind: 'repository', state: 'refused', reason: refusal });
      continue;
    }
    const found = await resolveFolder(path.join(repoReal, ...label.split(/[\\/]+/).filter((s) => s !== '' && s !== '.')));
    if ('missing' in found) {
      unused.push({ label, kind: 'repository', state: found.missing ? 'missing' : 'refused', reason: found.reason });
      continue;
    }
    if (!inside(repoReal, found.real)) {
      unused.push({ label, kind: 'repository', state: 'refused', reason: 'a symlink takes it outside the repository; only repo-local roots are scanned' });
      continue;
    }
    roots.push({ label, kind: 'repository', real: found.real });
  }
  if (config.intent.include_global_skills) {
    for (const rel of GLOBAL_SKILL_ROOTS) {
      const label = `~/${rel}`;
      const found = await resolveFolder(path.join(home, ...rel.split('/')));
      if ('missing' in found) unused.push({ label, kind: 'global', state: found.missing ? 'missing' : 'refused', reason: found.reason });
      else roots.push({ label, kind: 'global', real: found.real });
    }
  }
  return { roots, unused };
}

/** Why a configured repository root is not a plain relative folder (config validation refuses these too). */
function relativeRefusal(root: string): string | undefined {
  if (root === '' || root.includes('\0')) return 'empty';
  if (path.posix.isAbsolute(root) || path.win32.isAbsolute(root)) return 'an absolute path; skill roots are repository-relative';
  const segments = root.split(/[\\/]+/);
  if (segments.includes('..')) return 'contains ..; only repo-local roots are scanned';
  if (segments.includes('.git')) return "inside .git, git's own files";
  return undefined;
}

async function resolveFolder(dir: string): Promise<{ real: string } | { missing: boolean; reason: string }> {
  let real: string;
  try {
    real = await fs.promises.realpath(dir);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    return code === 'ENOENT' ? { missing: true, reason: 'no such folder' } : { missing: false, reason: `cannot be read (${code ?? 'error'})` };
  }
  const stat = await fs.promises.stat(real).catch(() => undefined);
  return stat?.isDirectory() ? { real } : { missing: false, reason: 'not a folder' };
}

/** Whether `child` is `parent` or below it (both resolved). */
export function inside(parent: string, child: string): boolean {
  const rel = path.relative(parent, child);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}
