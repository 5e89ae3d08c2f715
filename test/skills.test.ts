/**
 * Skills end to end: a real daemon (`sous up`) on a repository with a planted docs drift and a
 * project skill, a temporary HOME holding a global skill, and the fake model backend. Global skills
 * are scanned only once intent.include_global_skills is set; external skills are withheld on every
 * surface that may leave the machine (HTTP without reveal, MCP results, briefings) and their text
 * never reaches a model that is not on loopback, checked on the request bodies the fake backend
 * received; the skills loop reads at most its per-cycle cap; card feedback moves a skill's weight;
 * the artefact influence controls act on skills.
 *
 * "Not on loopback": the fake backend is reached by this machine's host name (a bare name counts as
 * the private network, where preparation may call a model, but is not loopback by the URL).
 */
import { promises as dns } from 'node:dns';
import * as os from 'node:os';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { createSousMcpServer } from '@sous/mcp';
import { DaemonClient } from '@sous/runtime';
import { embeddedEnv, freePort, pinBundle, sous, upAndIndexed } from './support/cli';
import { startFakeBackend, type FakeBackend } from './support/fake-backend';
import { rawRequest } from './support/http';
import { GUIDE, makeRenameDriftRepo, warmCycle } from './support/prepared-work';
import { git, makeTempDir, rmTempDir, writeFile } from './support/tmp';
import { until } from './support/wait';

const PROJECT_BODY = 'PROJECT-SKILL-BODY: replace each old name and keep the line numbers.';
const EXTERNAL_BODY = 'EXTERNAL-SKILL-BODY: my private checklist for renames.';
const EXTERNAL_DESCRIPTION = 'Update docs drift in a guide after a rename, patch every mention';
const skillMd = (name: string, description: string, body: string) => `---\nname: ${name}\ndescription: ${description}\n---\n${body}\n`;

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- JSON bodies are checked field by field
type Json = Record<string, any>;

describe('skills through a real daemon', () => {
  let repo: string;
  let home: string;
  let env: NodeJS.ProcessEnv;
  let port: number;
  let backend: FakeBackend;
  let mcp: Client;
  const get = async (path: string): Promise<Json> => (await rawRequest({ port, path })).json as Json;
  const post = async (path: string, body: unknown): Promise<{ status: number; json: Json }> => {
    const res = await rawRequest({ port, method: 'POST', path, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    return { status: res.status, json: res.json as Json };
  };
  const set = async (key: string, value: string): Promise<void> => {
    const r = await sous(['config', 'set', key, value, '--path', repo], { env });
    if (r.code !== 0) throw new Error(`config set ${key} failed: ${r.stderr}`);
  };
  const tool = async (name: string, args: Record<string, unknown> = {}): Promise<{ isError: boolean; text: string; data: Json }> => {
    const result = await mcp.callTool({ name: `sous_${name.replace(/\./g, '_')}`, arguments: args });
    const content = result.content as Array<{ text?: string }>;
    return { isError: result.isError === true, text: content.map((c) => c.text ?? '').join('\n'), data: (result.structuredContent ?? {}) as Json };
  };
  /** The skills loop's report in a cycle job's result. */
  const loopOf = (job: { result?: Record<string, unknown> }): Json | undefined => job.result?.['skills_loop'] as Json | undefined;
  const skillNamed = async (name: string): Promise<Json> => ((await get('/skills?reveal=external')).skills as Json[]).find((k) => k.name === name)!;

  beforeAll(async () => {
    repo = makeRenameDriftRepo();
    writeFile(repo, 'skills/docs-drift/SKILL.md', skillMd('docs-drift', 'Update docs that still name a renamed function, with a patch for the guide', PROJECT_BODY));
    home = makeTempDir('sous-user-home-');
    writeFile(home, '.claude/skills/my-docs-drift/SKILL.md', skillMd('my-docs-drift', EXTERNAL_DESCRIPTION, EXTERNAL_BODY));
    backend = await startFakeBackend({ recordBodies: true, host: '0.0.0.0' });
    env = embeddedEnv({ HOME: home });
    port = await freePort();
    await pinBundle(repo, env);
    await upAndIndexed(repo, port, env);
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await createSousMcpServer({ version: '0.1.0-test', daemon: async () => new DaemonClient(`http://127.0.0.1:${port}`), workspace: repo, timeoutMs: 20_000 }).connect(serverSide);
    mcp = new Client({ name: 'sous-test', version: '0.0.0' });
    await mcp.connect(clientSide);
  }, 120_000);

  afterAll(async () => {
    await mcp?.close();
    await sous(['down', '--path', repo], { env });
    await backend.close();
    for (const dir of [repo, home, env.SOUS_HOME, env.SOUS_TEST_CLIENT_DIR]) if (dir) rmTempDir(dir);
  }, 60_000);

  test('only the repo-local roots by default; the global root once include_global_skills is set', async () => {
    const before = await get('/skills?reveal=external');
    expect(before.skills.map((k: Json) => [k.name, k.zone, k.file])).toEqual([['docs-drift', 'project_local', 'skills/docs-drift/SKILL.md']]);
    expect(before.roots.map((r: Json) => r.root)).toEqual(['skills', '.claude/skills', '.github/skills']);
    await set('intent.include_global_skills', 'true');
    const after = await until(async () => {
      const body = await get('/skills?reveal=external');
      return body.skills.length === 2 ? body : undefined;
    }, 10_000);
    expect(after.skills.find((k: Json) => k.zone === 'external')).toMatchObject({ name: 'my-docs-drift', root: '~/.claude/skills', withheld: false, file: expect.stringMatching(/\.claude\/skills\/my-docs-drift\/SKILL\.md$/) });
    expect((await get('/status')).skills).toMatchObject({ discovered: 2, project_local: 1, external: 1 });
  });

  test('external skills are withheld wherever the answer may leave the machine', async () => {
    const plain = await get('/skills');
    const external = (plain.skills as Json[]).find((k) => k.zone === 'external')!;
    expect(external).toMatchObject({ kind: 'skill', name: null, description: null, file: null, withheld: true, weight: 1, state: 'active' });
    // Asked through MCP, even with reveal: refused (an agent's model reads MCP results).
    const mcpAsk = await rawRequest({ port, path: '/skills?reveal=external', headers: { 'x-sous-client': 'mcp' } });
    expect(mcpAsk.status).toBe(403);
    expect(mcpAsk.json.error).toMatchObject({ code: 'forbidden', where: 'query.reveal' });

    // The CLI is the user's own terminal: it names them.
    const cli = await sous(['skills', 'list', '--path', repo, '--json'], { env });
    expect(cli.code).toBe(0);
    expect(cli.json.skills.map((k: Json) => k.name).sort()).toEqual(['docs-drift', 'my-docs-drift']);
    const text = await sous(['skills', 'list', '--path', repo], { env });
    expect(text.stdout).toMatch(/skill_[0-9a-f]{16} +project_local +1\.000 +active +docs-drift +skills\/docs-drift\/SKILL\.md/);

    const listed = await tool('artefacts.list', { type: 'skills' });
    expect(listed.data.skills).toHaveLength(2);
    const status = await tool('artefacts.status');
    expect(status.data.skills).toMatchObject({ total: 2, by_zone: { project_local: 1, external: 1 } });
    const inspected = await tool('artefacts.inspect', { id: external.id });
    expect(inspected.data).toMatchObject({ id: external.id, zone: 'external', withheld: true, preview: null });
    const local = (listed.data.skills as Json[]).find((k) => k.zone === 'project_local')!;
    expect((await tool('artefacts.inspect', { id: local.id })).data).toMatchObject({ name: 'docs-drift', preview: expect.stringContaining('PROJECT-SKILL-BODY') });

    const resolution = await post('/v1/resolve', { prompt: 'update the docs guide after the rename of parseConfig' });
    expect(resolution.status).toBe(200);
    expect(resolution.json.skills.map((k: Json) => k.name)).toEqual(['docs-drift']);
    expect(resolution.json.briefing).toContain('Skill: docs-drift (skills/docs-drift/SKILL.md)');
    for (const body of [JSON.stringify(plain), listed.text, status.text, inspected.text, JSON.stringify(resolution.json), (await tool('resolve', { prompt: 'update the docs guide after the rename' })).text]) {
      expect(body).not.toMatch(/my-docs-drift|EXTERNAL-SKILL-BODY|patch every mention/);
    }
  });

  test('external skill text never reaches a model that is not on loopback; project skills guide it', async () => {
    const name = os.hostname().split('.')[0]!;
    // This machine's name must resolve (it does wherever a hostname is set up), or the test cannot reach the fake backend by it.
    await expect(dns.lookup(name)).resolves.toMatchObject({ address: expect.any(String) });
    await set('backend.base_url', `http://${name}:${backend.port}/v1`);
    await until(async () => ((await get('/status')).backend?.reachable === true && (await get('/status')).backend?.base_url.includes(name) ? true : undefined), 15_000);
    const job = await warmCycle(port);
    expect(job.state).toBe('completed');
    expect((await get('/status')).preparation.model).toMatchObject({ mode: 'model' });
    const bodies = backend.bodies.map((b) => JSON.stringify(b));
    expect(bodies.length).toBeGreaterThan(0);
    // The project skill's guidance is in the prompts (the check below is not blind) …
    expect(bodies.some((b) => b.includes('PROJECT-SKILL-BODY') && b.includes('Skill to follow (project skill skills/docs-drift/SKILL.md)'))).toBe(true);
    // … the external one's never, though it is the more relevant of the two.
    for (const b of bodies) expect(b).not.toMatch(/EXTERNAL-SKILL-BODY|my-docs-drift|patch every mention/);

    // The card records both skills; inspect names the project one only.
    const cards = (await get('/work-products?kind=virtual_diff')).items as Json[];
    const card = (await get(`/work-products/${cards[0]!.id}/inspect`)) as Json;
    // Their order is their rank for the card's text, which depends on the cycle that landed it (template
    // or model summary): the two are close, so either may come first.
    expect(card.skills).toHaveLength(2);
    expect(card.skills).toEqual(expect.arrayContaining([
      { id: expect.stringMatching(/^skill_/), zone: 'external', name: null, file: null, withheld: true },
      { id: expect.stringMatching(/^skill_/), zone: 'project_local', name: 'docs-drift', file: 'skills/docs-drift/SKILL.md', withheld: false },
    ]));

    // On loopback the external skill may guide the model: a new drift (the server's file moved) is written with it.
    const seen = backend.bodies.length;
    await set('backend.base_url', backend.baseUrl);
    await until(async () => ((await get('/status')).backend?.base_url === backend.baseUrl && (await get('/status')).backend?.reachable === true ? true : undefined), 15_000);
    writeFile(repo, 'docs/guide.md', `${GUIDE}The server is [src/server.ts](../src/server.ts).\n`);
    git(repo, ['commit', '-q', '-am', 'Link the server from the guide']);
    git(repo, ['mv', 'src/server.ts', 'src/run-server.ts']);
    git(repo, ['commit', '-q', '-m', 'Move the server']);
    await until(async () => ((await get('/status')).index?.head === git(repo, ['rev-parse', 'HEAD']).trim() ? true : undefined), 15_000);
    expect((await warmCycle(port)).state).toBe('completed');
    const later = backend.bodies.slice(seen).map((b) => JSON.stringify(b));
    expect(later.some((b) => b.includes('EXTERNAL-SKILL-BODY') && b.includes('Skill to follow (a skill kept on this machine): my-docs-drift'))).toBe(true);
  });

  test('card feedback moves the skills it used; the loop reads at most its cap per cycle', async () => {
    // Drain what earlier tests left, then a cap of 2 in force (hot reload: a cycle reports it).
    await set('intent.skills_loop.max_feedback_events_per_cycle', '1000');
    await until(async () => {
      const loop = loopOf(await warmCycle(port));
      return loop?.cap === 1000 && loop.pending === 0 ? true : undefined;
    }, 30_000);
    await set('intent.skills_loop.max_feedback_events_per_cycle', '2');
    await until(async () => (loopOf(await warmCycle(port))?.cap === 2 ? true : undefined), 30_000);
    const since = new Date().toISOString();
    const card = ((await get('/work-products?kind=virtual_diff')).items as Json[])[0]!;
    for (let i = 0; i < 3; i++) expect((await post(`/work-products/${card.id}/feedback`, { value: 'useful' })).status).toBe(200);
    await until(async () => (loopOf(await warmCycle(port))?.pending === 0 ? true : undefined), 30_000);
    // Every cycle since (warm ones and any the scheduler ran) read at most 2; together, all 3 once.
    const runs = ((await get('/jobs?limit=500&state=completed')).jobs as Json[])
      .filter((j) => j.name === 'prepare.cycle' && j.finishedAt >= since)
      .map((j) => loopOf(j))
      .filter((l): l is Json => l !== undefined);
    expect(runs.every((l) => l.cap === 2 && l.consumed <= 2)).toBe(true);
    expect(runs.reduce((sum, l) => sum + l.consumed, 0)).toBe(3);
    // 3 events under a cap of 2 take two cycles at least (usually 2 with 1 pending, then 1).
    expect(runs.filter((l) => l.consumed > 0).length).toBeGreaterThanOrEqual(2);
    const weighed = await skillNamed('docs-drift');
    expect(weighed.feedback.useful).toBeGreaterThanOrEqual(3);
    expect(weighed.weight).toBeGreaterThan(1);
  });

  test('artefact influence controls act on skills: feedback, dismiss, restore', async () => {
    const local = await skillNamed('docs-drift');
    const fb = await tool('artefacts.influence', { id: local.id, action: 'wrong' });
    expect(fb.data).toMatchObject({ id: local.id, action: 'wrong', feedback: { value: 'wrong' } });
    const dismissed = await tool('artefacts.influence', { id: local.id, action: 'dismiss' });
    expect(dismissed.data.skill).toMatchObject({ id: local.id, state: 'dismissed' });
    const resolved = await post('/v1/resolve', { prompt: 'update the docs guide after the rename of parseConfig' });
    expect(resolved.json.skills).toEqual([]);
    expect((await tool('artefacts.influence', { id: local.id, action: 'restore' })).data.skill).toMatchObject({ state: 'active' });
    expect((await post('/v1/resolve', { prompt: 'update the docs guide after the rename of parseConfig' })).json.skills.map((k: Json) => k.name)).toEqual(['docs-drift']);
    // restore is for skills only; unknown skills and bad values say what is wrong.
    const card = ((await get('/work-products?kind=virtual_diff')).items as Json[])[0]!;
    expect((await tool('artefacts.influence', { id: card.id, action: 'restore' })).isError).toBe(true);
    expect(await post('/skills/skill_0000000000000000/dismiss', {})).toMatchObject({ status: 404, json: { error: { code: 'not_found', where: 'params.id' } } });
    expect(await post(`/skills/${local.id}/feedback`, { value: 'great' })).toMatchObject({ status: 400 });
    const bad = await sous(['skills', 'feedback', local.id, 'great', '--path', repo], { env });
    expect(bad.code).toBe(2);
    expect(bad.stderr.trim().split('\n')).toHaveLength(1);
  });
});
