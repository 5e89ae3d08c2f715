/**
 * Prepared Work end to end through a real daemon (`sous up`) in both topologies: a planted rename
 * and file move that docs still mention become a docs-drift card (the moved file) and a virtual diff; the patch applies; editing
 * its target blocks export at once and turns it stale; a later cycle regenerates it; feedback and
 * dismissals survive a restart; the event stream reports the activity; bad input gets clear errors.
 */
import * as http from 'node:http';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { spawn } from 'node:child_process';
import { CLI, freePort, gitSnapshot, sous } from './support/cli';
import { rawRequest } from './support/http';
import { git, rmTempDir, writeFile } from './support/tmp';
import { embeddedTopology, serverTopology } from './support/topologies';
import { until } from './support/wait';
import { GUIDE, makeRenameDriftRepo, warmCycle } from './support/prepared-work';

interface Card {
  id: string;
  kind: string;
  title: string;
  evidence: Array<{ path: string; line_start: number | null; commit: string | null; note: string }>;
  actions: string[];
  diagnostic?: { state: string; state_reason: string | null; detector: string; score_parts: { usefulness: number } };
}

describe.each([embeddedTopology(), serverTopology('prepwork')])('Prepared Work through the daemon, $name', (topology) => {
  let repo: string;
  let env: NodeJS.ProcessEnv;
  let port: number;
  let before: ReturnType<typeof gitSnapshot>;

  const get = (p: string) => rawRequest({ port, path: p });
  const post = (p: string, body?: unknown) =>
    rawRequest({ port, method: 'POST', path: p, ...(body === undefined ? {} : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }) });

  /** Queues a warm cycle and waits for its job to finish. */
  async function prepare(): Promise<Record<string, unknown>> {
    const job = await warmCycle(port);
    expect(job).toMatchObject({ state: 'completed' });
    return job.result as Record<string, unknown>;
  }

  const feed = async (): Promise<Card[]> => (await get('/prepared-work?diagnostic=true')).json.cards as Card[];
  const byKind = (cards: Card[], kind: string) => cards.find((c) => c.kind === kind);

  beforeAll(async () => {
    repo = makeRenameDriftRepo();
    before = gitSnapshot(repo);
    env = await topology.env();
    port = await freePort();
    const up = await sous(['up', '--path', repo, '--port', String(port), '--json'], { env });
    expect(up.code).toBe(0);
    await until(async () => ((await get('/status')).json.index?.state === 'ready' ? true : undefined), 60_000);
  }, 120_000);

  afterAll(async () => {
    await sous(['down', '--path', repo], { env });
    await topology.cleanup();
    rmTempDir(repo);
  }, 60_000);

  test('a warm cycle lands a docs-drift card and a virtual diff with precise evidence', async () => {
    const result = await prepare();
    expect(result.ready).toBeGreaterThanOrEqual(2);
    const cards = await feed();
    expect(cards.length).toBeLessThanOrEqual(5);
    const drift = byKind(cards, 'docs_drift');
    expect(drift).toBeDefined();
    expect(drift!.evidence[0]).toMatchObject({ path: 'docs/guide.md', line_start: 3 });
    const rename = git(repo, ['rev-parse', 'HEAD']).trim();
    expect(drift!.evidence.some((e) => e.commit === rename)).toBe(true);
    expect(drift!.actions).toEqual(expect.arrayContaining(['inspect', 'export', 'dismiss', 'feedback']));
    expect(drift!.actions).not.toContain('adopt');
    const diff = byKind(cards, 'virtual_diff');
    expect(diff).toBeDefined();
    const inspect = await get(`/work-products/${diff!.id}/inspect`);
    expect(inspect.status).toBe(200);
    expect(inspect.json).toMatchObject({ id: diff!.id, actions: expect.arrayContaining(['export']) });
    // The move's patch; the rename of `parseConfig` gets none while name cards are off (the default).
    expect(inspect.json.preview).toContain('../src/config-defaults.ts');
    expect(inspect.json.preview).not.toContain('loadConfig');
    expect(inspect.json.rationale.length).toBeGreaterThan(0);
    // The default feed hides lifecycle and ranking fields.
    expect(JSON.stringify((await get('/prepared-work')).json.cards)).not.toMatch(/"diagnostic"|"score"/);
  });

  test('the exported patch applies to the recorded snapshot; editing its target blocks export at once', async () => {
    const diff = byKind(await feed(), 'virtual_diff')!;
    const exported = await post(`/work-products/${diff.id}/export`);
    expect(exported.status).toBe(200);
    expect(exported.json).toMatchObject({ format: 'patch', targets: [expect.objectContaining({ path: 'docs/guide.md' })] });
    const patchFile = path.join(fs.mkdtempSync('/tmp/sous-patch-'), 'x.patch');
    fs.writeFileSync(patchFile, exported.json.content);
    execFileSync('git', ['apply', '--check', patchFile], { cwd: repo });

    writeFile(repo, 'docs/guide.md', `${GUIDE}More text.\n`);
    const blocked = await post(`/work-products/${diff.id}/export`);
    expect(blocked.status).toBe(409);
    expect(blocked.json.error.message).toMatch(/stale/);
    expect(blocked.json.error.details.reason).toMatch(/docs\/guide\.md changed/);
    const stale = await until(async () => {
      const card = (await get(`/work-products/${diff.id}/inspect?diagnostic=true`)).json;
      return card.diagnostic?.state === 'stale' ? card : undefined;
    }, 5000);
    expect(stale.actions).not.toContain('export');
    expect((await feed()).map((c) => c.id)).not.toContain(diff.id);

    // The target back as it was: the next cycle regenerates the same diff and export works again.
    writeFile(repo, 'docs/guide.md', GUIDE);
    await until(async () => {
      await prepare();
      return (await feed()).some((c) => c.id === diff.id) ? true : undefined;
    }, 20_000, 200);
    expect((await post(`/work-products/${diff.id}/export`)).status).toBe(200);
  });

  test('bad input: unknown id 404, invalid feedback 400, adopt on a non-draft 409', async () => {
    const missing = await get('/work-products/nope/inspect');
    expect(missing.status).toBe(404);
    expect(missing.json.error).toMatchObject({ code: 'not_found', where: 'params.id' });
    expect((await post('/work-products/nope/export')).status).toBe(404);
    const drift = byKind(await feed(), 'docs_drift')!;
    const bad = await post(`/work-products/${drift.id}/feedback`, { value: 'great' });
    expect(bad.status).toBe(400);
    expect(bad.json.error.where).toBe('body.value');
    expect(bad.json.error.message).toMatch(/useful, partial, irrelevant, wrong/);
    expect((await post(`/work-products/${drift.id}/feedback`, {})).status).toBe(400);
    const adopt = await post(`/work-products/${drift.id}/adopt`);
    expect(adopt.status).toBe(409);
    expect(adopt.json.error.message).toMatch(/prediction-backed drafts/);
    expect((await post('/prepare', { paths: 'docs' })).status).toBe(400);
  });

  test('the event stream reports cycles and card changes; sous watch follows it', async () => {
    const events: string[] = [];
    const watch = spawn(process.execPath, [CLI, 'watch', '--path', repo, '--json'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let watched = '';
    watch.stdout.setEncoding('utf8').on('data', (chunk: string) => (watched += chunk));
    const req = http.get({ host: '127.0.0.1', port, path: '/events' }, (res) => {
      expect(res.headers['content-type']).toMatch(/text\/event-stream/);
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        for (const m of chunk.matchAll(/^event: (.+)$/gm)) events.push(m[1] as string);
      });
    });
    try {
      await until(() => (events.includes('hello') ? true : undefined));
      await until(() => (/"event":"hello"/.test(watched) ? true : undefined), 10_000);
      await prepare();
      await until(() => (events.includes('cycle.finished') ? true : undefined));
      const drift = byKind(await feed(), 'docs_drift')!;
      await post(`/work-products/${drift.id}/feedback`, { value: 'useful' });
      await until(() => (events.includes('card.feedback') ? true : undefined));
      expect(events).toContain('cycle.started');
      await until(() => (/"event":"card\.feedback"/.test(watched) ? true : undefined), 10_000);
      const lines = watched.trim().split('\n').map((l) => JSON.parse(l) as { event: string });
      expect(lines.map((l) => l.event)).toEqual(expect.arrayContaining(['hello', 'cycle.started', 'cycle.finished', 'card.feedback']));
    } finally {
      req.destroy();
      watch.kill('SIGINT');
    }
  });

  test('cards, feedback and dismissals survive a restart; the repository is untouched', async () => {
    const cards = await feed();
    const drift = byKind(cards, 'docs_drift')!;
    const diff = byKind(cards, 'virtual_diff')!;
    expect((await post(`/work-products/${drift.id}/feedback`, { value: 'partial' })).status).toBe(200);
    expect((await post(`/work-products/${diff.id}/feedback`, { value: 'useful' })).status).toBe(200);
    const dismissed = await post(`/work-products/${drift.id}/dismiss`);
    expect(dismissed.status).toBe(200);
    expect((await feed()).map((c) => c.id)).not.toContain(drift.id);

    expect((await sous(['down', '--path', repo], { env })).code).toBe(0);
    expect((await sous(['up', '--path', repo, '--port', String(port), '--json'], { env })).code).toBe(0);
    await until(async () => ((await get('/status')).json.index?.state === 'ready' ? true : undefined), 60_000);

    const hidden = (await get('/work-products?state=hidden')).json.items as Card[];
    expect(hidden.map((c) => c.id)).toContain(drift.id);
    await prepare();
    const after = await feed();
    // The feedback given before the restart still counts: the diff's detector scores as useful.
    expect(after.find((c) => c.id === diff.id)?.diagnostic?.score_parts.usefulness).toBeGreaterThan(0.5);
    expect(after.map((c) => c.id)).not.toContain(drift.id);
    const list = (await get('/work-products?kind=docs_drift')).json.items as Card[];
    // The dismissed card stays one hidden card; the renamed name's card is held back (docs drift's
    // names, exploration.detectors_held): a candidate, never in the feed.
    expect(list.filter((c) => c.diagnostic?.state !== 'superseded').map((c) => `${c.diagnostic?.detector} ${c.diagnostic?.state}`).sort()).toEqual(['docs_drift.moved_path hidden', 'docs_drift.removed_name candidate']);
    expect(gitSnapshot(repo)).toEqual(before);
  }, 120_000);
});
