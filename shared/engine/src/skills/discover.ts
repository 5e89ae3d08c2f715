/**
 * Skill discovery (docs/skills.md): walks each skill root for folders holding a `SKILL.md`, reads
 * each through the privacy scope (`privacy.excluded_patterns` never read, `privacy.redact_patterns`
 * applied, symlinks that leave the root refused), parses its front matter and marks its zone:
 * `project_local` under the repository, `external` outside it. A malformed skill becomes a
 * diagnostic; discovery never throws for one. Read-only; nothing is logged, least of all text.
 */
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { SousConfig } from '@sous/config';
import { createScopePolicy, readScopedFile, type ScopePolicy } from '@sous/retrieval';
import { parseSkillFile } from './front-matter';
import { inside, skillRoots, type ResolvedRoot } from './roots';
import type { Skill, SkillCatalogue, SkillDiagnostic, SkillRootReport, SkillZone } from './types';

/** The file that makes a folder a skill. */
export const SKILL_FILE = 'SKILL.md';
/** Largest SKILL.md read (64 KiB): a skill is instructions, not data. */
export const SKILL_FILE_MAX_BYTES = 64 * 1024;
/** Body kept per skill, in characters (what a model prompt may quote). */
export const SKILL_BODY_CHARS = 4_000;
/** Folder levels below a root searched for skills (`root/<group>/<skill>/SKILL.md` is depth 2). */
export const SKILL_MAX_DEPTH = 3;
/** Skills taken from one root; the rest (by path order) are reported, not used. */
export const SKILLS_PER_ROOT_MAX = 200;
/** Folders visited in one root at most: a huge root costs one bounded walk. */
const FOLDERS_PER_ROOT_MAX = 2_000;

export interface DiscoverOptions {
  /** The repository root. */
  root: string;
  config: Pick<SousConfig, 'intent' | 'privacy'>;
  /** The user's home folder, where global roots live. */
  home: string;
}

/** One discovery pass. `intent.enabled = false` discovers nothing (and says so). */
export async function discoverSkills(options: DiscoverOptions): Promise<SkillCatalogue> {
  const discoveredAt = new Date().toISOString();
  if (!options.config.intent.enabled) return { skills: [], diagnostics: [], roots: [], off: 'intent.enabled is false', discoveredAt };
  const repoReal = await fs.promises.realpath(options.root);
  const { roots, unused } = await skillRoots(repoReal, options.config, options.home);
  const reports: SkillRootReport[] = unused.map((u) => ({ root: u.label, kind: u.kind, state: u.state, reason: u.reason, skills: 0 }));
  const skills: Skill[] = [];
  const diagnostics: SkillDiagnostic[] = [];
  const seen = new Set<string>();
  const privacy = options.config.privacy;
  // Repository roots are read relative to the repository, so excluded patterns match as they do for every other file.
  const isExternal = (r: ResolvedRoot): boolean => !inside(repoReal, r.real);
  const repoPolicy = createScopePolicy({
    allowedPaths: roots.filter((r) => !isExternal(r)).map((r) => (path.relative(repoReal, r.real) === '' ? '**' : `${posix(path.relative(repoReal, r.real))}/**`)),
    excludedPatterns: privacy.excluded_patterns,
    redactPatterns: privacy.redact_patterns,
  });
  for (const root of roots) {
    // Zones go by where a skill lives (spec invariant 8), whichever list its root came from.
    const external = isExternal(root);
    const readRoot = external ? root.real : repoReal;
    const policy = external ? createScopePolicy({ allowedPaths: ['**'], excludedPatterns: privacy.excluded_patterns, redactPatterns: privacy.redact_patterns }) : repoPolicy;
    const zone: SkillZone = external ? 'external' : 'project_local';
    const folders = await skillFolders(root.real);
    let taken = 0;
    for (const folder of folders.found) {
      const rel = posix(path.relative(readRoot, folder));
      const shown = zone === 'external' ? folder : rel;
      const key = `${zone}\0${shown}`;
      if (seen.has(key)) continue;
      seen.add(key);
      if (taken >= SKILLS_PER_ROOT_MAX) {
        diagnostics.push({ zone, root: root.label, path: shown, problem: `not used: the root holds more than ${SKILLS_PER_ROOT_MAX} skills` });
        continue;
      }
      const read = await readSkill(readRoot, rel, policy, { zone, root: root, shown });
      if ('problem' in read) diagnostics.push(read);
      else {
        skills.push(read);
        taken += 1;
      }
    }
    if (folders.truncated) diagnostics.push({ zone, root: root.label, path: zone === 'external' ? root.real : posix(path.relative(repoReal, root.real)), problem: `only the first ${FOLDERS_PER_ROOT_MAX} folders were searched` });
    reports.push({ root: root.label, kind: root.kind, state: 'scanned', skills: taken });
  }
  // Reported in the order they are configured (global ones last).
  const order = [...options.config.intent.skill_roots.map((r) => r.trim()), ...reports.filter((r) => r.kind === 'global').map((r) => r.root)];
  reports.sort((a, b) => order.indexOf(a.root) - order.indexOf(b.root));
  return { skills, diagnostics, roots: reports, discoveredAt };
}

/** Reads and parses one skill folder's SKILL.md, or says why it cannot be used. */
async function readSkill(readRoot: string, relFolder: string, policy: ScopePolicy, where: { zone: SkillZone; root: ResolvedRoot; shown: string }): Promise<Skill | SkillDiagnostic> {
  const relFile = relFolder === '' ? SKILL_FILE : `${relFolder}/${SKILL_FILE}`;
  const shownFile = where.zone === 'external' ? path.join(where.shown, SKILL_FILE) : relFile;
  const diagnostic = (problem: string): SkillDiagnostic => ({ zone: where.zone, root: where.root.label, path: shownFile, problem });
  const decision = policy.decide(relFile);
  if (!decision.inScope) {
    return diagnostic(decision.reason === 'excluded' ? `not read: privacy.excluded_patterns excludes it (${decision.pattern})` : 'not read: outside the skill roots');
  }
  let result: Awaited<ReturnType<typeof readScopedFile>>;
  try {
    result = await readScopedFile(readRoot, relFile, policy, { maxBytes: SKILL_FILE_MAX_BYTES });
  } catch (err) {
    return diagnostic(`cannot be read (${(err as NodeJS.ErrnoException).code ?? 'error'})`);
  }
  if (!result.ok) return diagnostic(refusalProblem(result.refusal.reason));
  const parsed = parseSkillFile(result.file.text);
  if (!parsed.ok) return diagnostic(parsed.problem);
  return {
    id: skillId(where.zone, where.shown),
    zone: where.zone,
    name: parsed.name,
    description: parsed.description,
    folder: where.shown,
    root: where.root.label,
    body: parsed.body.length > SKILL_BODY_CHARS ? `${parsed.body.slice(0, SKILL_BODY_CHARS)}…` : parsed.body,
    sha256: result.file.sha256,
  };
}

/** The opaque id of a skill: the same folder in the same zone keeps it; it says nothing about either. */
export function skillId(zone: SkillZone, folder: string): string {
  return `skill_${createHash('sha256').update(`${zone}\0${folder}`).digest('hex').slice(0, 16)}`;
}

function refusalProblem(reason: string): string {
  switch (reason) {
    case 'outside_root':
      return 'not read: a symlink takes it outside its root';
    case 'out_of_scope':
      return 'not read: a symlink points outside the skill roots, or to an excluded file';
    case 'too_large':
      return `not read: larger than ${SKILL_FILE_MAX_BYTES / 1024} KiB`;
    case 'binary':
      return 'not read: not text';
    case 'not_a_file':
      return 'not read: SKILL.md is not a regular file';
    case 'not_found':
      return 'not read: SKILL.md vanished or is a dangling symlink';
    default:
      return `not read (${reason})`;
  }
}

/**
 * Folders under `root` (itself included) that hold a SKILL.md, sorted, at most SKILL_MAX_DEPTH deep.
 * A skill's own subfolders are its resources, not more skills; symlinked folders are not followed,
 * nor hidden ones (`.git`) or `node_modules`.
 */
async function skillFolders(root: string): Promise<{ found: string[]; truncated: boolean }> {
  const found: string[] = [];
  let visited = 0;
  let truncated = false;
  const walk = async (dir: string, depth: number): Promise<void> => {
    if (visited >= FOLDERS_PER_ROOT_MAX) {
      truncated = true;
      return;
    }
    visited += 1;
    let entries: fs.Dirent[];
    try {
      entries = await fs.promises.readdir(dir, { withFileTypes: true });
    } catch {
      return;
    }
    if (entries.some((e) => e.name === SKILL_FILE && (e.isFile() || e.isSymbolicLink()))) {
      found.push(dir);
      return;
    }
    if (depth >= SKILL_MAX_DEPTH) return;
    const subfolders = entries.filter((e) => e.isDirectory() && !e.name.startsWith('.') && e.name !== 'node_modules').map((e) => e.name).sort();
    for (const name of subfolders) await walk(path.join(dir, name), depth + 1);
  };
  await walk(root, 0);
  return { found, truncated };
}

function posix(p: string): string {
  return p.split(path.sep).join('/');
}
