/**
 * Predictions end to end (spec 2.4; docs/predictions.md): a real daemon (`sous up`, embedded PGlite)
 * on a temporary git repository, over HTTP and MCP. An active goal seeds a `goal` prediction with a
 * briefing from the live index; editing one of its files in the real repository makes it stale with
 * its briefing cleared and its weight halved (the daemon sees the edit through its watcher), and the
 * edit starts an `arc` prediction; adopting marks one adopted and makes overlapping ones stale; the
 * registry survives restarts; bad input is a 4xx in the one JSON error shape.
 *
 * No clock is involved: the test runs two preparation cycles with no change in between and shows the
 * registry is exactly as it was (same weights, states, briefings and updated_at), so time passing
 * demotes nothing; only the file edit does.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { embeddedEnv, freePort, gitSnapshot, pinBundle, sous, upAndIndexed } from './support/cli';
import { rawRequest, type RawResponse } from './support/http';
import { git, makeGitRepo, rmTempDir, writeFile } from './support/tmp';
import { until } from './support/wait';

type Prediction = { id: string; source: string; prompt: string; weight: number; state: string; stale_reason: string | null; goal_id: string | null; evidence: Record<string, string | null>; briefing: { items: Array<Record<string, unknown>> } | null; updated_at: string };

let repo: string;
let env: NodeJS.ProcessEnv;
let port: number;

function request(method: string, urlPath: string, body?: unknown): Promise<RawResponse> {
  const text = body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body);
  return rawRequest({ port, method, path: urlPath, ...(text !== undefined ? { body: text, headers: { 'content-type': 'application/json' } } : {}) });
}

async function dashboard(): Promise<Prediction[]> {
  const res = await request('GET', '/predictions/dashboard');
  expect(res.status).toBe(200);
  return res.json.predictions;
}

/** The first prediction matching `match`, once there is one (the daemon works after answering). */
function predictionWhere(match: (p: Prediction) => boolean): Promise<Prediction> {
  return until(async () => (await dashboard()).find(match), 30_000, 100);
}

async function declare(title: string, related_files: string[]): Promise<string> {
  const res = await request('POST', '/goals', { title, related_files });
  expect(res.status).toBe(201);
  return res.json.goal.id;
}

/** Queues an explicit preparation cycle and waits until it has finished. */
async function cycle(): Promise<void> {
  const res = await request('POST', '/prepare', {});
  expect(res.status).toBe(202);
  const id = res.json.job.id as string;
  await until(async () => ((await request('GET', `/jobs/${id}`)).json.job.state === 'completed' ? true : undefined), 60_000, 100);
}

const start = (): Promise<void> => upAndIndexed(repo, port, env);

beforeAll(async () => {
  repo = makeGitRepo();
  writeFile(repo, 'src/parser.ts', 'export function parseGrammar(source: string): string[] {\n  return source.split("\\n");\n}\n');
  writeFile(repo, 'src/lexer.ts', 'export function lexTokens(text: string): string[] {\n  return text.split(" ");\n}\n');
  writeFile(repo, 'lib/report.ts', 'export const reportFormat = "text";\n');
  git(repo, ['add', '-A']);
  git(repo, ['commit', '-q', '-m', 'prediction files']);
  env = embeddedEnv();
  port = await freePort();
  await pinBundle(repo, env);
  await start();
}, 120_000);

afterAll(async () => {
  await sous(['down', '--path', repo], { env });
  rmTempDir(repo);
  if (env.SOUS_HOME) rmTempDir(env.SOUS_HOME);
}, 60_000);

test('an active goal seeds a goal prediction with a briefing; time alone changes nothing; an edit makes it stale, briefing cleared, weight halved; a paused goal drops it', async () => {
  const snapshot = gitSnapshot(repo);
  const goalId = await declare('Split the parser grammar', ['src/parser.ts']);
  const seeded = await predictionWhere((p) => p.goal_id === goalId && p.state === 'ready');
  expect(seeded).toMatchObject({ source: 'goal', prompt: 'continue: Split the parser grammar', weight: 1, stale_reason: null });
  expect(Object.keys(seeded.evidence)).toEqual(['src/parser.ts']);
  expect(seeded.evidence['src/parser.ts']).toMatch(/^[0-9a-f]{64}$/);
  const items = seeded.briefing!.items;
  expect(items.map((i) => i.path)).toContain('src/parser.ts');
  // Where and why, never the file's text.
  for (const item of items) expect(Object.keys(item).sort()).toEqual(['lines', 'path', 'rationale', 'score']);
  expect((await request('GET', '/predictions')).json.predictions.map((p: Prediction) => p.id)).toContain(seeded.id);

  // No wall-clock decay: two cycles with nothing changed leave the registry exactly as it was.
  const before = await dashboard();
  await cycle();
  await cycle();
  expect(await dashboard()).toEqual(before);

  fs.appendFileSync(path.join(repo, 'src/parser.ts'), 'export const grammarVersion = 2;\n');
  const stale = await predictionWhere((p) => p.id === seeded.id && p.state === 'stale');
  expect(stale).toMatchObject({ stale_reason: 'file_change', weight: 0.5, briefing: null });
  // The edit is an arc: a prediction about the area it happened in, evidence the edited file.
  const arc = await predictionWhere((p) => p.source === 'arc' && p.state === 'ready');
  expect(arc).toMatchObject({ prompt: 'review and continue the changes in src', weight: 0.6 });
  expect(Object.keys(arc.evidence)).toEqual(['src/parser.ts']);
  expect((await request('GET', '/predictions')).json.predictions.map((p: Prediction) => p.id)).not.toContain(seeded.id);

  // Re-activating the goal (the user confirms it) replaces the stale prediction with a fresh one.
  await request('POST', `/goals/${goalId}/status`, { status: 'active' });
  const fresh = await predictionWhere((p) => p.goal_id === goalId && p.state === 'ready');
  expect(fresh.id).not.toBe(seeded.id);
  expect((await dashboard()).find((p) => p.id === seeded.id)).toBeUndefined();

  // A paused goal seeds nothing.
  await request('POST', `/goals/${goalId}/status`, { status: 'paused' });
  await until(async () => ((await dashboard()).some((p) => p.goal_id === goalId) ? undefined : true), 30_000, 100);

  git(repo, ['checkout', '--', 'src/parser.ts']);
  expect(gitSnapshot(repo)).toEqual(snapshot);
  await request('POST', `/goals/${goalId}/delete`, {});
}, 120_000);

test('adopt over HTTP and MCP: adopted, an overlapping prediction goes stale (adoption), the dashboard lists weights; bad input is a 4xx in the one error shape', async () => {
  const first = await declare('Speed up the lexer', ['src/lexer.ts']);
  const second = await declare('Document the lexer', ['src/lexer.ts']);
  const other = await declare('Report formats', ['lib/report.ts']);
  const a = await predictionWhere((p) => p.goal_id === first && p.state === 'ready');
  const b = await predictionWhere((p) => p.goal_id === second && p.state === 'ready');
  const c = await predictionWhere((p) => p.goal_id === other && p.state === 'ready');

  const adopted = await request('POST', `/predictions/${a.id}/adopt`, {});
  expect(adopted.status).toBe(200);
  expect(adopted.json.prediction).toMatchObject({ id: a.id, state: 'adopted' });
  const after = await dashboard();
  expect(after.find((p) => p.id === b.id)).toMatchObject({ state: 'stale', stale_reason: 'adoption', weight: 0.5, briefing: null });
  expect(after.find((p) => p.id === c.id)).toMatchObject({ state: 'ready', weight: 1 });

  const dash = (await request('GET', '/predictions/dashboard')).json;
  expect(dash.by_state.adopted).toBeGreaterThanOrEqual(1);
  expect(dash.by_source.goal).toBeGreaterThanOrEqual(3);
  const weights = dash.predictions.map((p: Prediction) => p.weight);
  expect(weights).toEqual([...weights].sort((x: number, y: number) => y - x));

  const cases: Array<[string, string, unknown, number, string, string | undefined]> = [
    ['POST', `/predictions/${a.id}/adopt`, {}, 409, 'conflict', 'params.id'],
    ['POST', `/predictions/${b.id}/adopt`, {}, 409, 'conflict', 'params.id'],
    ['POST', '/predictions/no-such-prediction/adopt', {}, 404, 'not_found', 'params.id'],
    ['POST', `/predictions/${c.id}/adopt`, { force: true }, 400, 'invalid_body', 'body.force'],
    ['POST', `/predictions/${c.id}/adopt`, '{"__proto__":{"x":1}}', 400, 'invalid_body', 'body.__proto__'],
    ['GET', '/predictions?state=ready', undefined, 400, 'invalid_query', 'query.state'],
    ['GET', '/predictions/dashboard?limit=5', undefined, 400, 'invalid_query', 'query.limit'],
  ];
  for (const [method, url, body, status, code, where] of cases) {
    const res = await request(method, url, body);
    expect({ url, status: res.status, code: res.json?.error?.code, where: res.json?.error?.where }).toEqual({ url, status, code, where });
    expect(typeof res.json.error.message).toBe('string');
  }
  expect((await dashboard()).find((p) => p.id === c.id)).toMatchObject({ state: 'ready' });

  const client = new Client({ name: 'sous-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${port}/mcp`)));
  try {
    type Called = { isError?: boolean; structuredContent?: Record<string, any>; content?: Array<{ text?: string }> };
    const active = (await client.callTool({ name: 'sous_predictions_active', arguments: {} })) as Called;
    expect(active.isError).toBeFalsy();
    expect(active.structuredContent!.predictions.map((p: Prediction) => p.id)).toContain(c.id);
    expect(active.content![0]!.text).toContain('continue: Report formats');
    const viaMcp = (await client.callTool({ name: 'sous_predictions_adopt', arguments: { id: c.id } })) as Called;
    expect(viaMcp.structuredContent!.prediction).toMatchObject({ id: c.id, state: 'adopted' });
    const again = (await client.callTool({ name: 'sous_predictions_adopt', arguments: { id: c.id } })) as Called;
    expect(again.isError).toBe(true);
    expect(again.content![0]!.text).toMatch(/only a ready prediction can be adopted/);
    const missing = (await client.callTool({ name: 'sous_predictions_adopt', arguments: {} })) as Called;
    expect(missing.isError).toBe(true);
    const dashMcp = (await client.callTool({ name: 'sous_predictions_dashboard', arguments: {} })) as Called;
    expect(dashMcp.structuredContent!.predictions.find((p: Prediction) => p.id === c.id)).toMatchObject({ state: 'adopted', weight: 1 });
    expect(dashMcp.content![0]!.text).toMatch(/adopted/);
  } finally {
    await client.close();
  }
  for (const g of [first, second, other]) await request('POST', `/goals/${g}/delete`, {});
}, 120_000);

test('the registry survives a daemon restart; a file changed while the daemon was down makes its prediction stale at start', async () => {
  const kept = await declare('Keep the report stable', ['lib/report.ts']);
  const watched = await declare('Watch the lexer', ['src/lexer.ts']);
  const k = await predictionWhere((p) => p.goal_id === kept && p.state === 'ready');
  const w = await predictionWhere((p) => p.goal_id === watched && p.state === 'ready');
  expect((await sous(['down', '--path', repo], { env })).code).toBe(0);
  fs.appendFileSync(path.join(repo, 'src/lexer.ts'), 'export const edited = true;\n');
  try {
    await start();
    expect(await predictionWhere((p) => p.id === w.id && p.state === 'stale')).toMatchObject({ stale_reason: 'file_change', briefing: null });
    expect((await dashboard()).find((p) => p.id === k.id)).toEqual(k);
  } finally {
    git(repo, ['checkout', '--', 'src/lexer.ts']);
  }
}, 120_000);
