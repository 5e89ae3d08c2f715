/**
 * Skill discovery on real folders: a temporary git repository and a temporary home. Only repo-local
 * roots by default; global roots only with intent.include_global_skills; roots and skills that leave
 * the repository through `..` or a symlink are refused; excluded files are never read; zones are
 * marked by location; a malformed SKILL.md is a clear diagnostic, never a crash, never quoted.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { defaultConfig, type SousConfig } from '@sous/config';
import { discoverSkills, parseSkillFile, type SkillCatalogue } from '../src';
import { makeGitRepo, makeTempDir, rmTempDir, writeFile } from '../../../test/support/tmp';

function skillMd(name: string, description: string, body = 'Steps:\n1. Read the guide.\n'): string {
  return `---\nname: ${name}\ndescription: ${description}\n---\n${body}`;
}

function config(change: (c: SousConfig) => void = () => undefined): SousConfig {
  const c = defaultConfig();
  change(c);
  return c;
}

describe('skill discovery', () => {
  let repo: string;
  let home: string;
  let outside: string;

  beforeAll(() => {
    repo = makeGitRepo();
    home = makeTempDir('sous-home-');
    outside = makeTempDir('sous-outside-');
    writeFile(repo, 'skills/docs-drift/SKILL.md', skillMd('docs-drift', 'Fix documentation that still names removed or renamed functions'));
    writeFile(repo, '.claude/skills/release/SKILL.md', skillMd('release', '"Cut a release: bump the version, tag, write the changelog"'));
    writeFile(repo, '.github/skills/group/nested-review/SKILL.md', skillMd('nested-review', 'Review a pull request for missing tests'));
    // A skill's own subfolders are its resources, not more skills.
    writeFile(repo, 'skills/docs-drift/examples/SKILL.md', skillMd('inner', 'not a skill of its own'));
    // Not under any root: never discovered.
    writeFile(repo, 'tools/other/SKILL.md', skillMd('other', 'Outside every skill root'));
    // Excluded by privacy.excluded_patterns (`secrets*`): never read.
    writeFile(repo, 'skills/secrets-rotation/SKILL.md', skillMd('secrets-rotation', 'Rotate the production secrets PRIVATE-ROTATION-TEXT'));
    // Malformed ones.
    writeFile(repo, 'skills/no-front-matter/SKILL.md', '# Just a heading\nUNQUOTED-BODY-TEXT\n');
    writeFile(repo, 'skills/bad-yaml/SKILL.md', '---\nname: bad: yaml: QUOTED-YAML-TEXT\ndescription: x\n---\n');
    writeFile(repo, 'skills/no-description/SKILL.md', '---\nname: lonely\n---\nbody\n');
    // A skill whose SKILL.md is a symlink to a file outside the repository.
    writeFile(outside, 'leak/SKILL.md', skillMd('leak', 'LEAKED-DESCRIPTION from outside'));
    fs.mkdirSync(path.join(repo, 'skills/linked'), { recursive: true });
    fs.symlinkSync(path.join(outside, 'leak/SKILL.md'), path.join(repo, 'skills/linked/SKILL.md'));
    // A root that is a symlink out of the repository.
    fs.symlinkSync(outside, path.join(repo, 'escape'));
    // Global roots in the (temporary) home.
    writeFile(home, '.claude/skills/personal/SKILL.md', skillMd('personal-notes', 'Write my personal release notes HOME-SECRET-TEXT'));
    writeFile(home, '.codex/skills/codex-one/SKILL.md', skillMd('codex-one', 'A Codex skill'));
  });

  afterAll(() => {
    for (const dir of [repo, home, outside]) rmTempDir(dir);
  });

  const discover = (c: SousConfig): Promise<SkillCatalogue> => discoverSkills({ root: repo, config: c, home });

  test('by default only the three repo-local roots are scanned; every skill is project_local', async () => {
    const found = await discover(config());
    expect(found.skills.map((s) => [s.name, s.folder, s.zone, s.root]).sort()).toEqual([
      ['docs-drift', 'skills/docs-drift', 'project_local', 'skills'],
      ['nested-review', '.github/skills/group/nested-review', 'project_local', '.github/skills'],
      ['release', '.claude/skills/release', 'project_local', '.claude/skills'],
    ]);
    expect(found.roots.map((r) => [r.root, r.kind, r.state])).toEqual([
      ['skills', 'repository', 'scanned'],
      ['.claude/skills', 'repository', 'scanned'],
      ['.github/skills', 'repository', 'scanned'],
    ]);
    // The home's skills are not even looked at.
    expect(JSON.stringify(found)).not.toContain('personal');
    expect(found.skills.every((s) => /^skill_[0-9a-f]{16}$/.test(s.id))).toBe(true);
  });

  test('global roots are scanned only with include_global_skills, and their skills are external', async () => {
    const found = await discover(config((c) => (c.intent.include_global_skills = true)));
    const external = found.skills.filter((s) => s.zone === 'external');
    expect(external.map((s) => [s.name, s.root]).sort()).toEqual([
      ['codex-one', '~/.codex/skills'],
      ['personal-notes', '~/.claude/skills'],
    ]);
    expect(external.every((s) => path.isAbsolute(s.folder) && s.folder.startsWith(fs.realpathSync(home)))).toBe(true);
    expect(found.skills.filter((s) => s.zone === 'project_local')).toHaveLength(3);
  });

  test('excluded files are never read; symlinks and roots leaving the repository are refused', async () => {
    const found = await discover(config((c) => (c.intent.skill_roots = ['skills', 'escape', 'missing'])));
    const problems = Object.fromEntries(found.diagnostics.map((d) => [d.path, d.problem]));
    expect(problems['skills/secrets-rotation/SKILL.md']).toBe('not read: privacy.excluded_patterns excludes it (secrets*)');
    expect(problems['skills/linked/SKILL.md']).toMatch(/symlink takes it outside its root/);
    expect(found.roots).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ root: 'escape', state: 'refused', reason: expect.stringMatching(/symlink takes it outside the repository/) }),
        expect.objectContaining({ root: 'missing', state: 'missing' }),
      ]),
    );
    const text = JSON.stringify(found);
    for (const secret of ['PRIVATE-ROTATION-TEXT', 'LEAKED-DESCRIPTION']) expect(text).not.toContain(secret);
    // `..` never reaches discovery through config validation; discovery refuses it on its own too.
    const dotted = await discover(config((c) => (c.intent.skill_roots = ['../' + path.basename(outside)])));
    expect(dotted.roots).toEqual([expect.objectContaining({ state: 'refused', reason: expect.stringMatching(/\.\./) })]);
    expect(dotted.skills).toEqual([]);
  });

  test('a malformed SKILL.md is a diagnostic that says what to fix and never quotes the file', async () => {
    const found = await discover(config((c) => (c.intent.skill_roots = ['skills'])));
    const problems = Object.fromEntries(found.diagnostics.map((d) => [d.path, d.problem]));
    expect(problems['skills/no-front-matter/SKILL.md']).toMatch(/^no front matter: SKILL.md must start with a --- line/);
    expect(problems['skills/bad-yaml/SKILL.md']).toBe('front matter is not valid YAML (block as implicit key) at line 2; put a value holding ": " in quotes');
    expect(problems['skills/no-description/SKILL.md']).toBe('front matter has no description:');
    expect(JSON.stringify(found.diagnostics)).not.toMatch(/QUOTED-YAML-TEXT|UNQUOTED-BODY-TEXT/);
    // The good one next to them is still found.
    expect(found.skills.map((s) => s.name)).toEqual(['docs-drift']);
  });

  test('intent.enabled = false discovers nothing and says why', async () => {
    const found = await discover(config((c) => ((c.intent.enabled = false), (c.intent.include_global_skills = true))));
    expect(found).toMatchObject({ skills: [], roots: [], off: 'intent.enabled is false' });
  });

  test('redact patterns apply to skill text as to any repository file', async () => {
    const key = 'sk-abcdefghijklmnopqrstuvwxyz0123';
    const dir = makeGitRepo();
    try {
      writeFile(dir, 'skills/deploy/SKILL.md', skillMd('deploy', 'Deploy the service', `Use the key ${key} only in CI.\n`));
      const found = await discoverSkills({ root: dir, config: config(), home });
      expect(found.skills[0]?.body).toContain('[redacted]');
      expect(JSON.stringify(found)).not.toContain(key);
    } finally {
      rmTempDir(dir);
    }
  });
});

describe('SKILL.md front matter', () => {
  test.each([
    ['---\nname: a\ndescription: b\n', 'front matter is not closed: add a --- line after description:'],
    ['---\n- a\n- b\n---\n', 'front matter must be a mapping with name: and description:'],
    ['---\nname: [1, 2]\ndescription: b\n---\n', 'front matter name: must be text'],
    [`---\nname: ${'n'.repeat(65)}\ndescription: b\n---\n`, 'front matter name: is longer than 64 characters'],
    ['---\nname: a\nname: b\ndescription: c\n---\n', expect.stringMatching(/^front matter is not valid YAML \(duplicate key\) at line 3$/)],
  ])('%j → %s', (text, problem) => {
    expect(parseSkillFile(text)).toEqual({ ok: false, problem });
  });

  test('other keys are allowed; the body follows the closing line', () => {
    expect(parseSkillFile('---\nname: x\ndescription: when  you\n  need it\nallowed-tools: Read\n---\n\n# Body\n')).toEqual({ ok: true, name: 'x', description: 'when you need it', body: '# Body' });
  });
});
