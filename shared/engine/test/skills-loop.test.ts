/**
 * The skills loop and skill ranking on a real store (PGlite and PostgreSQL) over real skill folders: each run reads
 * at most the per-cycle cap of feedback events and the next run goes on where it stopped; feedback on
 * a card or a resolution reaches the skills it recorded; weights move with feedback and change which
 * skill resolve names first; dismiss and restore apply to skills; external skills are never named in
 * a briefing and reach a model prompt only on loopback. The briefing function stands in for the live
 * index (the daemon test uses the real one).
 */
import { defaultConfig, type SousConfig } from '@sous/config';
import type { Store } from '@sous/store';
import { pgliteFactory, postgresFactory } from '../../store/test/helpers';
import { Resolver, Skills, skillWeight, withSkills, type Candidate } from '../src';
import { makeGitRepo, makeTempDir, rmTempDir, writeFile } from '../../../test/support/tmp';

const skillMd = (name: string, description: string, body = 'Steps to follow.') => `---\nname: ${name}\ndescription: ${description}\n---\n${body}\n`;

describe.each([pgliteFactory(), postgresFactory()])('skills loop and ranking on a real store ($name)', (factory) => {
  let store: Store;
  let repo: string;
  let home: string;

  beforeAll(async () => {
    store = await factory.open();
    repo = makeGitRepo();
    home = makeTempDir('sous-home-');
    writeFile(repo, 'skills/docs-drift/SKILL.md', skillMd('docs-drift', 'Fix documentation guides that still name removed functions'));
    writeFile(repo, 'skills/doc-style/SKILL.md', skillMd('doc-style', 'Documentation style for guides, headings, wording, removed sections'));
    writeFile(repo, 'skills/deploy/SKILL.md', skillMd('deploy', 'Deploy the service to production with the release script'));
    writeFile(home, '.claude/skills/mine/SKILL.md', skillMd('my-guides', 'My own documentation guides removed functions checklist', 'EXTERNAL-BODY-TEXT'));
  }, 60_000);

  afterAll(async () => {
    await store.close();
    await factory.cleanup();
    rmTempDir(repo);
    rmTempDir(home);
  });

  /** A workspace of its own with a Skills service over `config` (changed in place by the test). */
  async function setup(change: (c: SousConfig) => void = () => undefined): Promise<{ skills: Skills; workspaceId: string; config: SousConfig; id(name: string): string }> {
    const config = defaultConfig();
    change(config);
    const workspaceId = (await store.workspaces.upsertByRoot({ rootPath: `${repo}-${Math.random().toString(36).slice(2)}` })).id;
    const skills = new Skills({ store, workspaceId, root: repo, config: () => config, home: () => home });
    await skills.refresh();
    const id = (name: string): string => {
      const found = skills.current().skills.find((w) => w.skill.name === name);
      if (!found) throw new Error(`no skill ${name}`);
      return found.skill.id;
    };
    return { skills, workspaceId, config, id };
  }

  function resolver(skills: Skills, workspaceId: string): Resolver {
    return new Resolver({
      store,
      workspaceId,
      // The evidence a live index would rank: the guide for prompts about it, the cache module otherwise.
      brief: async (prompt) => ({ items: [{ path: /guide/.test(prompt) ? 'docs/guide.md' : 'src/cache.ts', score: 1, rationale: ['ranked'], lines: { start: 1, end: 3 } }] }),
      predictions: async () => [],
      readyCards: async () => [],
      skills: () => skills.current(),
    });
  }

  test('each run reads at most the cap; the next run goes on where it stopped', async () => {
    const { skills, workspaceId, config, id } = await setup((c) => (c.intent.skills_loop.max_feedback_events_per_cycle = 200));
    const card = await store.workProducts.insert({ workspaceId, kind: 'docs_drift', title: 'Guide names a removed function', details: { skills: [id('docs-drift')] } });
    for (let i = 0; i < 250; i++) await store.feedback.record({ workProductId: card.id, value: i % 5 === 0 ? 'wrong' : 'useful' });

    expect(await skills.learn()).toMatchObject({ ran: true, cap: 200, consumed: 200, attributed: 200, skills: 1, pending: 50 });
    expect(skills.current().get(id('docs-drift'))?.counts).toEqual({ useful: 160, partial: 0, irrelevant: 0, wrong: 40 });
    expect(await skills.learn()).toMatchObject({ consumed: 50, pending: 0 });
    expect(skills.current().get(id('docs-drift'))?.counts).toEqual({ useful: 200, partial: 0, irrelevant: 0, wrong: 50 });
    expect(await skills.learn()).toMatchObject({ consumed: 0, pending: 0 });
    // The cap is read on each run (hot reload).
    config.intent.skills_loop.max_feedback_events_per_cycle = 1;
    await store.feedback.record({ workProductId: card.id, value: 'partial' });
    await store.feedback.record({ workProductId: card.id, value: 'partial' });
    expect(await skills.learn()).toMatchObject({ cap: 1, consumed: 1, pending: 1 });
    // Weight: 2 × (useful + ½ partial + 1) / (total + 2), bounded in (0, 2).
    expect(skills.current().get(id('docs-drift'))?.weight).toBe(skillWeight({ useful: 200, partial: 1, irrelevant: 0, wrong: 50 }));
  });

  test('two processes running the loop at once count each event once', async () => {
    const { skills, workspaceId, config, id } = await setup();
    const other = new Skills({ store, workspaceId, root: repo, config: () => config, home: () => home });
    await other.refresh();
    for (let i = 0; i < 30; i++) await skills.feedback(id('deploy'), 'useful');
    const [a, b] = await Promise.all([skills.learn(), other.learn()]);
    expect(a.consumed + b.consumed).toBe(30);
    await skills.learn();
    expect(skills.current().get(id('deploy'))?.counts.useful).toBe(30);
  });

  test('a loop switched off reads nothing; events wait for it', async () => {
    const { skills, id } = await setup((c) => (c.intent.skills_loop.enabled = false));
    await skills.feedback(id('deploy'), 'useful');
    expect(await skills.learn()).toMatchObject({ ran: false, reason: 'intent.skills_loop.enabled is false', consumed: 0 });
    expect(skills.current().get(id('deploy'))?.weight).toBe(1);
  });

  test('weights follow feedback and change which skill resolve names first; resolution feedback reaches the named skills', async () => {
    const { skills, workspaceId, id } = await setup();
    const resolve = resolver(skills, workspaceId);
    const prompt = 'update the documentation guide that names removed functions';
    const first = await resolve.resolve({ prompt });
    expect(first.skills.map((k) => k.name)).toEqual(['docs-drift', 'doc-style']);
    expect(first.briefing).toMatch(/^Skill: docs-drift \(skills\/docs-drift\/SKILL.md\): Fix documentation guides/m);

    for (let i = 0; i < 3; i++) {
      await skills.feedback(id('docs-drift'), 'wrong');
      await skills.feedback(id('doc-style'), 'useful');
    }
    expect(await skills.learn()).toMatchObject({ consumed: 6, skills: 2 });
    expect(skills.current().get(id('doc-style'))!.weight).toBeGreaterThan(1);
    expect(skills.current().get(id('docs-drift'))!.weight).toBeLessThan(1);
    const second = await resolve.resolve({ prompt });
    expect(second.skills.map((k) => k.name)).toEqual(['doc-style', 'docs-drift']);

    // Feedback on the resolution reaches both skills it named.
    await resolve.feedback(second.resolution_id, 'useful');
    expect(await skills.learn()).toMatchObject({ consumed: 1, attributed: 1, skills: 2 });
    expect(skills.current().get(id('docs-drift'))!.counts).toMatchObject({ useful: 1, wrong: 3 });
    // An unrelated prompt names no skill.
    expect((await resolve.resolve({ prompt: 'speed up the cache eviction' })).skills).toEqual([]);
  });

  test('dismiss and restore apply to skills: a dismissed skill is never named', async () => {
    const { skills, workspaceId, id } = await setup();
    const resolve = resolver(skills, workspaceId);
    const prompt = 'update the documentation guide that names removed functions';
    expect(await skills.setDismissed(id('docs-drift'), true)).toMatchObject({ state: 'dismissed', actions: ['inspect', 'feedback', 'restore'] });
    expect((await resolve.resolve({ prompt })).skills.map((k) => k.name)).toEqual(['doc-style']);
    expect(await skills.setDismissed(id('docs-drift'), false)).toMatchObject({ state: 'active' });
    expect((await resolve.resolve({ prompt })).skills.map((k) => k.name)).toEqual(['docs-drift', 'doc-style']);
    // Forget drops what was learned; a dismissal would stay.
    await skills.feedback(id('deploy'), 'useful');
    await skills.learn();
    await skills.setDismissed(id('deploy'), true);
    await skills.forget();
    expect(skills.current().get(id('deploy'))).toMatchObject({ dismissed: true, counts: { useful: 0 } });
    expect(() => skills.inspect('skill_0000000000000000', false)).toThrow(/no skill "skill_0000000000000000"/);
  });

  test('external skills: listed withheld, never named by resolve, guidance for a model only on loopback', async () => {
    const { skills, workspaceId, id } = await setup((c) => (c.intent.include_global_skills = true));
    const mine = id('my-guides');
    const listed = await skills.list(false);
    expect(listed.skills.find((k) => k.id === mine)).toMatchObject({ zone: 'external', withheld: true, name: null, description: null, file: null });
    expect(JSON.stringify(listed)).not.toMatch(/my-guides|EXTERNAL-BODY-TEXT|checklist/);
    expect((await skills.list(true)).skills.find((k) => k.id === mine)).toMatchObject({ name: 'my-guides', withheld: false });

    // Made the strongest match, it still never reaches a briefing.
    for (let i = 0; i < 5; i++) await skills.feedback(mine, 'useful');
    await skills.learn();
    const resolution = await resolver(skills, workspaceId).resolve({ prompt: 'my documentation guides checklist for removed functions' });
    expect(resolution.skills.every((k) => k.zone === 'project_local')).toBe(true);
    expect(JSON.stringify(resolution)).not.toMatch(/my-guides|EXTERNAL-BODY-TEXT/);

    const candidate: Candidate = {
      kind: 'docs_drift', detector: 'docs_drift.removed_name', claim: 'c', title: 'My documentation guides checklist names removed functions', summary: '', whyNow: '', body: '', action: '',
      evidence: [{ path: 'docs/guide.md', note: '' }], strength: 1, targets: ['docs/guide.md'],
    };
    const remote = withSkills(candidate, { ranker: skills.current(), modelOnLoopback: false });
    expect(remote.skills?.[0]).toEqual({ id: mine, zone: 'external' });
    // The guidance goes to the first skill the model may read: the project-local one.
    expect(remote.skills?.find((s) => s.guidance)?.guidance).toMatch(/^Skill to follow \(project skill skills\/[a-z-]+\/SKILL.md\)/);
    const local = withSkills(candidate, { ranker: skills.current(), modelOnLoopback: true });
    expect(local.skills?.[0]).toMatchObject({ id: mine, zone: 'external', guidance: expect.stringContaining('EXTERNAL-BODY-TEXT') });
    expect(local.skills?.[0]?.guidance).toMatch(/^Skill to follow \(a skill kept on this machine\): my-guides/);
  });
});
