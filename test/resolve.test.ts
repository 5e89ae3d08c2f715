/**
 * Resolve end to end (spec 2.5; docs/resolve.md): a real daemon (`sous up`, embedded PGlite) on a
 * temporary git repository, over HTTP and MCP. A prompt matching a ready prediction's anticipated
 * prompt is served from its prepared briefing (`cache: "hit"`); an unrelated prompt is ranked by the
 * live index (`miss`); X-Sous-Client (or `client`) is recorded per resolution; bad input is a 4xx in
 * the one JSON error shape; and the raw prompt is written nowhere under `.sous` (store files, logs)
 * while its sha256 is.
 */
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { embeddedEnv, freePort, pinBundle, sous, upAndIndexed } from './support/cli';
import { rawRequest, type RawResponse } from './support/http';
import { git, makeGitRepo, rmTempDir, writeFile } from './support/tmp';
import { until } from './support/wait';
import { openStore, resolutions } from '@sous/store';
import { promptKey } from '@sous/engine';

let repo: string;
let env: NodeJS.ProcessEnv;
let port: number;

function request(method: string, urlPath: string, body?: unknown, headers: Record<string, string> = {}): Promise<RawResponse> {
  const text = body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body);
  return rawRequest({ port, method, path: urlPath, headers: { ...(text !== undefined ? { 'content-type': 'application/json' } : {}), ...headers }, ...(text !== undefined ? { body: text } : {}) });
}

async function readyPrediction(goalId: string): Promise<{ id: string; prompt: string }> {
  return until(async () => ((await request('GET', '/predictions')).json.predictions as Array<{ id: string; prompt: string; goal_id: string; state: string }>).find((p) => p.goal_id === goalId && p.state === 'ready'), 30_000, 100);
}

/** Every file under `dir`, recursively. */
function filesUnder(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? filesUnder(path.join(dir, e.name)) : e.isFile() ? [path.join(dir, e.name)] : []));
}

beforeAll(async () => {
  repo = makeGitRepo();
  writeFile(repo, 'src/parser.ts', 'export function parseGrammar(source: string): string[] {\n  return source.split("\\n");\n}\n');
  writeFile(repo, 'src/lexer.ts', 'export function lexTokens(text: string): string[] {\n  return text.split(" ");\n}\n');
  git(repo, ['add', '-A']);
  git(repo, ['commit', '-q', '-m', 'resolve files']);
  env = embeddedEnv();
  port = await freePort();
  await pinBundle(repo, env);
  await upAndIndexed(repo, port, env);
}, 120_000);

afterAll(async () => {
  await sous(['down', '--path', repo], { env });
  rmTempDir(repo);
  if (env.SOUS_HOME) rmTempDir(env.SOUS_HOME);
}, 60_000);

test('a prompt matching a ready prediction is a hit served from its briefing; an unrelated one is a miss ranked now; the client is recorded', async () => {
  const goal = await request('POST', '/goals', { title: 'Split the parser grammar', related_files: ['src/parser.ts'] });
  expect(goal.status).toBe(201);
  const prediction = await readyPrediction(goal.json.goal.id);

  const hit = await request('POST', '/v1/resolve', { prompt: prediction.prompt }, { 'x-sous-client': 'agent-a' });
  expect(hit.status).toBe(200);
  expect(hit.json).toMatchObject({ cache: 'hit', similarity: 1, prediction_id: prediction.id, predicted_response: null, client: 'agent-a', briefing_token_budget: 2000 });
  expect(hit.json.resolution_id).toEqual(expect.any(String));
  expect(hit.json.evidence.map((e: { path: string }) => e.path)).toContain('src/parser.ts');
  expect(hit.json.briefing).toContain(`Prepared for: ${prediction.prompt}`);
  expect(hit.json.briefing_token_used).toBeGreaterThan(0);
  expect(hit.json.briefing_token_used).toBeLessThanOrEqual(2000);

  // Word order and case do not matter; the body's client wins over the header.
  const near = await request('POST', '/v1/resolve', { prompt: 'split the PARSER grammar, continue', client: 'agent-b' }, { 'x-sous-client': 'agent-a' });
  expect(near.json).toMatchObject({ cache: 'hit', prediction_id: prediction.id, client: 'agent-b' });

  const miss = await request('POST', '/v1/resolve', { prompt: 'where are lexTokens defined', budget_tokens: 100 });
  expect(miss.status).toBe(200);
  expect(miss.json).toMatchObject({ cache: 'miss', prediction_id: null, predicted_response: null, client: null, briefing_token_budget: 100 });
  expect(miss.json.similarity).toBeLessThan(0.6);
  expect(miss.json.evidence[0].path).toBe('src/lexer.ts');
  expect(miss.json.alternatives_considered.map((a: { prediction_id: string }) => a.prediction_id)).toContain(prediction.id);
  expect(miss.json.briefing_token_used).toBeLessThanOrEqual(100);
}, 120_000);

test('explain, the last resolution per client, feedback and suggest', async () => {
  const goal = await request('POST', '/goals', { title: 'Tidy the lexer tokens', related_files: ['src/lexer.ts'] });
  const prediction = await readyPrediction(goal.json.goal.id);
  const suggested = await request('GET', '/v1/suggest?limit=10');
  expect(suggested.status).toBe(200);
  expect(suggested.json.suggestions).toContainEqual({ prediction_id: prediction.id, prompt: prediction.prompt, weight: 1, source: 'goal' });
  expect((await request('GET', '/v1/suggest?limit=1')).json.suggestions).toHaveLength(1);

  const a = await request('POST', '/v1/resolve', { prompt: prediction.prompt }, { 'x-sous-client': 'iso-a' });
  const b = await request('POST', '/v1/resolve', { prompt: 'where are lexTokens defined' }, { 'x-sous-client': 'iso-b' });
  const explained = await request('GET', `/v1/resolutions/${a.json.resolution_id}`);
  expect(explained.status).toBe(200);
  expect(explained.json).toMatchObject({ resolution_id: a.json.resolution_id, client: 'iso-a', cache: 'hit', similarity: 1, threshold: 0.6, prediction_id: prediction.id, feedback: [] });
  expect(explained.json.prompt_sha256).toBe(createHash('sha256').update(prediction.prompt, 'utf8').digest('hex'));
  expect(explained.json.evidence.map((e: { path: string }) => e.path)).toContain('src/lexer.ts');
  expect(explained.json.rationale[0]).toMatch(/^Served from prediction/);

  // Each client sees its own last resolution, whatever came after from another client.
  expect((await request('GET', '/v1/resolutions/last?client=iso-a')).json.resolution_id).toBe(a.json.resolution_id);
  expect((await request('GET', '/v1/resolutions/last?client=iso-b')).json).toMatchObject({ resolution_id: b.json.resolution_id, cache: 'miss' });
  expect((await request('GET', '/v1/resolutions/last')).json.resolution_id).toBe(b.json.resolution_id);
  const none = await request('GET', '/v1/resolutions/last?client=nobody');
  expect(none.status).toBe(404);
  expect(none.json.error.code).toBe('not_found');

  // The CLI shows the same, per client.
  const cliA = await sous(['inspect', '--last', '--client', 'iso-a', '--path', repo, '--json'], { env });
  expect(cliA.code).toBe(0);
  expect(JSON.parse(cliA.stdout)).toMatchObject({ resolution_id: a.json.resolution_id, client: 'iso-a', cache: 'hit' });
  const cliLast = await sous(['inspect', '--last', '--path', repo], { env });
  expect(cliLast.code).toBe(0);
  expect(cliLast.stdout).toContain(`Resolution ${b.json.resolution_id}`);
  expect(cliLast.stdout).toMatch(/cache miss/);
  expect(cliLast.stdout).toContain('src/lexer.ts');
  const cliNone = await sous(['inspect', '--last', '--client', 'nobody', '--path', repo], { env });
  expect(cliNone.code).toBe(2);
  expect(cliNone.stderr).toMatch(/no resolution yet for client "nobody"/);

  const fb = await request('POST', `/v1/resolutions/${a.json.resolution_id}/feedback`, { value: 'useful' }, { 'x-sous-client': 'iso-a' });
  expect(fb.status).toBe(200);
  expect(fb.json.feedback).toMatchObject({ resolution_id: a.json.resolution_id, value: 'useful' });
  expect((await request('GET', `/v1/resolutions/${a.json.resolution_id}`)).json.feedback).toEqual([expect.objectContaining({ value: 'useful', client: 'iso-a' })]);

  const bad: Array<[string, string, unknown, number, string, string | undefined]> = [
    ['GET', '/v1/resolutions/no-such-id', undefined, 404, 'not_found', 'params.id'],
    ['POST', '/v1/resolutions/no-such-id/feedback', { value: 'useful' }, 404, 'not_found', 'params.id'],
    ['POST', `/v1/resolutions/${a.json.resolution_id}/feedback`, { value: 'great' }, 400, 'invalid_body', 'body.value'],
    ['GET', '/v1/suggest?limit=0', undefined, 400, 'invalid_query', 'query.limit'],
    ['GET', '/v1/resolutions/last?client=a%20b', undefined, 400, 'invalid_query', 'query.client'],
  ];
  for (const [method, url, body, status, code, where] of bad) {
    const res = await request(method, url, body);
    expect({ url, status: res.status, code: res.json?.error?.code, where: res.json?.error?.where }).toEqual({ url, status, code, where });
  }
}, 120_000);

test('MCP sous_resolve answers like the HTTP endpoint and rejects a missing prompt', async () => {
  const client = new Client({ name: 'sous-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${port}/mcp`)));
  try {
    type Called = { isError?: boolean; structuredContent?: Record<string, any>; content?: Array<{ text?: string }> };
    const r = (await client.callTool({ name: 'sous_resolve', arguments: { prompt: 'where are lexTokens defined' } })) as Called;
    expect(r.isError).toBeFalsy();
    expect(r.structuredContent).toMatchObject({ cache: 'miss', client: 'mcp' });
    expect(r.content![0]!.text).toContain('src/lexer.ts');
    const explained = (await client.callTool({ name: 'sous_explain', arguments: { id: r.structuredContent!.resolution_id } })) as Called;
    expect(explained.structuredContent).toMatchObject({ resolution_id: r.structuredContent!.resolution_id, client: 'mcp', cache: 'miss' });
    const fb = (await client.callTool({ name: 'sous_feedback', arguments: { id: r.structuredContent!.resolution_id, value: 'partial' } })) as Called;
    expect(fb.structuredContent!.feedback).toMatchObject({ value: 'partial' });
    const suggest = (await client.callTool({ name: 'sous_suggest', arguments: { limit: 3 } })) as Called;
    expect(suggest.isError).toBeFalsy();
    expect(Array.isArray(suggest.structuredContent!.suggestions)).toBe(true);
    const bad = (await client.callTool({ name: 'sous_resolve', arguments: {} })) as Called;
    expect(bad.isError).toBe(true);
  } finally {
    await client.close();
  }
}, 60_000);

test('bad input is a 4xx in the one JSON error shape', async () => {
  const cases: Array<[unknown, Record<string, string>, number, string, string]> = [
    [{}, {}, 400, 'invalid_body', 'body.prompt'],
    [{ prompt: '   ' }, {}, 400, 'invalid_body', 'body.prompt'],
    [{ prompt: 'x', budget_tokens: 'lots' }, {}, 400, 'invalid_body', 'body.budget_tokens'],
    [{ prompt: 'x', budget_tokens: 10 }, {}, 400, 'invalid_body', 'body.budget_tokens'],
    [{ prompt: 'x', extra: 1 }, {}, 400, 'invalid_body', 'body.extra'],
    [{ prompt: 'x', client: 'a b' }, {}, 400, 'invalid_body', 'body.client'],
    [{ prompt: 'x' }, { 'x-sous-client': 'a b' }, 400, 'invalid_request', 'headers.x-sous-client'],
  ];
  for (const [body, headers, status, code, where] of cases) {
    const res = await request('POST', '/v1/resolve', body, headers);
    expect({ body, status: res.status, code: res.json?.error?.code, where: res.json?.error?.where }).toEqual({ body, status, code, where });
    expect(typeof res.json.error.message).toBe('string');
  }
  const notJson = await request('POST', '/v1/resolve', '{"prompt":');
  expect(notJson.status).toBe(400);
  expect(notJson.json.error.code).toBe('invalid_json');
}, 60_000);

test('sous forget clears resolutions, predictions and feedback; goals stay', async () => {
  const goal = await request('POST', '/goals', { title: 'Forget me not', related_files: ['src/parser.ts'] });
  await readyPrediction(goal.json.goal.id);
  const r = await request('POST', '/v1/resolve', { prompt: 'where are lexTokens defined' }, { 'x-sous-client': 'forgetful' });
  expect((await request('POST', `/v1/resolutions/${r.json.resolution_id}/feedback`, { value: 'wrong' })).status).toBe(200);
  const out = await sous(['forget', '--path', repo, '--json'], { env });
  expect(out.code).toBe(0);
  const { forgotten } = JSON.parse(out.stdout);
  expect(forgotten.resolutions).toBeGreaterThanOrEqual(1);
  expect(forgotten.predictions).toBeGreaterThanOrEqual(1);
  expect(forgotten.feedback).toBeGreaterThanOrEqual(1);
  expect((await request('GET', `/v1/resolutions/${r.json.resolution_id}`)).status).toBe(404);
  expect((await request('GET', '/v1/resolutions/last')).status).toBe(404);
  expect((await request('GET', '/goals')).json.goals.map((g: { id: string }) => g.id)).toContain(goal.json.goal.id);
  const again = await sous(['forget', '--path', repo], { env });
  expect(again.code).toBe(0);
  expect(again.stdout).toMatch(/Forgot 0 resolution\(s\), \d+ prediction\(s\), 0 feedback record\(s\)\./);
  expect((await request('POST', '/v1/forget', { all: true })).json.error).toMatchObject({ code: 'invalid_body', where: 'body.all' });
}, 120_000);

const sha = (text: string): string => createHash('sha256').update(text, 'utf8').digest('hex');

test('a submitted draft attributes its composer event to the resolution made for its session: HTTP, CLI inspect and MCP show it', async () => {
  const r = await request('POST', '/v1/resolve', { prompt: 'where is parseGrammar used', composer_session_id: 'compose-1' }, { 'x-sous-client': 'composer-agent' });
  expect(r.status).toBe(200);
  expect(r.json).toMatchObject({ composer_session_id: 'compose-1', composer_event_id: null });
  const snapshot = {
    session_id: 'compose-1',
    snapshot_id: '01JDX7W2Q8S3K4M5N6P7R8T9V1',
    timestamp: '2026-11-26T02:00:00.000Z',
    lifecycle_state: 'submitted',
    text_hash: sha('draft'),
    length_chars: 5,
    capabilities: { level: 'L0', emits: ['submitted'], host_app: 'claude-code', host_kind: 'cli' },
  };
  const intake = await request('POST', '/signals/composer', snapshot);
  expect(intake.status).toBe(201);
  expect(intake.json.resolution_ids).toEqual([r.json.resolution_id]);
  const eventId = intake.json.composer_event_id as string;

  expect((await request('GET', `/v1/resolutions/${r.json.resolution_id}`)).json).toMatchObject({ composer_event_id: eventId, composer_session_id: 'compose-1' });
  const cli = await sous(['inspect', '--last', '--client', 'composer-agent', '--path', repo, '--json'], { env });
  expect(JSON.parse(cli.stdout)).toMatchObject({ resolution_id: r.json.resolution_id, composer_event_id: eventId });
  const text = await sous(['inspect', '--last', '--client', 'composer-agent', '--path', repo], { env });
  expect(text.stdout).toContain(`composer event ${eventId}`);
  const client = new Client({ name: 'sous-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${port}/mcp`)));
  try {
    const explained = (await client.callTool({ name: 'sous_explain', arguments: { id: r.json.resolution_id } })) as { structuredContent?: Record<string, unknown> };
    expect(explained.structuredContent).toMatchObject({ composer_event_id: eventId });
  } finally {
    await client.close();
  }
  // Adoption is positive history: the request is now anticipated, and asking it again is a hit.
  const key = promptKey('where is parseGrammar used');
  const history = await until(async () => ((await request('GET', '/predictions')).json.predictions as Array<{ id: string; source: string; prompt_key: string | null; state: string }>).find((p) => p.source === 'history' && p.prompt_key === key && p.state === 'ready'), 10_000, 100);
  const again = await request('POST', '/v1/resolve', { prompt: 'parseGrammar used: where is?' });
  expect(again.json).toMatchObject({ cache: 'hit', match: 'prompt', prediction_id: history.id });
}, 120_000);

test('useful feedback over HTTP seeds a history prediction that survives a daemon restart; the bundle\'s dimensions act after sous setup apply', async () => {
  const first = await request('POST', '/v1/resolve', { prompt: 'how does lexTokens split words' });
  expect((await request('POST', `/v1/resolutions/${first.json.resolution_id}/feedback`, { value: 'useful' })).status).toBe(200);
  const key = promptKey('how does lexTokens split words');
  const mine = ((await request('GET', '/predictions')).json.predictions as Array<{ id: string; source: string; weight: number; prompt_key: string | null; evidence: Record<string, string> }>).find((p) => p.prompt_key === key);
  expect(mine).toMatchObject({ source: 'history', weight: 0.45, state: 'ready' });
  expect(Object.keys(mine!.evidence)).toContain('src/lexer.ts');

  expect((await sous(['down', '--path', repo], { env })).code).toBe(0);
  await upAndIndexed(repo, port, env);
  const afterRestart = await request('POST', '/v1/resolve', { prompt: 'how does lexTokens split words' });
  expect(afterRestart.json).toMatchObject({ cache: 'hit', match: 'prompt', prediction_id: mine!.id });

  // deep_research weighs goals 1.4; local_lightweight injects a digest only (no rationale, no cards).
  const apply = async (bundle: string) => {
    expect((await sous(['setup', 'apply', bundle, '--tier', 'capable', '--path', repo, '--json'], { env })).code).toBe(0);
    await until(async () => ((await request('GET', '/status')).json.policy.bundle === bundle ? true : undefined), 15_000, 100);
  };
  try {
    await apply('deep_research');
    const goal = await request('POST', '/goals', { title: 'Weighted by the bundle', related_files: ['src/parser.ts'] });
    const weighted = await until(async () => ((await request('GET', '/predictions')).json.predictions as Array<{ goal_id: string; state: string; weight: number }>).find((p) => p.goal_id === goal.json.goal.id && p.state === 'ready'), 30_000, 100);
    expect(weighted.weight).toBe(1.4);
    await apply('local_lightweight');
    const digest = await request('POST', '/v1/resolve', { prompt: 'where are lexTokens defined' });
    expect(digest.json.briefing.split('\n')[0]).toMatch(/^src\/lexer\.ts:\d+-\d+$/);
    expect((await request('GET', `/v1/resolutions/${digest.json.resolution_id}`)).json.context_injection).toBe('digest_only');
  } finally {
    await apply('local_balanced');
  }
}, 180_000);

test('the raw prompt is stored and logged nowhere; its sha256 is stored', async () => {
  const prompt = 'quuxzorbleflange where is parseGrammar';
  const res = await request('POST', '/v1/resolve', { prompt }, { 'x-sous-client': 'agent-secret' });
  expect(res.status).toBe(200);
  expect((await sous(['down', '--path', repo], { env })).code).toBe(0);
  const files = filesUnder(path.join(repo, '.sous')).concat(filesUnder(env.SOUS_HOME!));
  const hash = createHash('sha256').update(prompt, 'utf8').digest('hex');
  let hashSeen = false;
  for (const file of files) {
    const bytes = fs.readFileSync(file);
    expect({ file, leaked: bytes.includes('quuxzorbleflange') }).toEqual({ file, leaked: false });
    if (bytes.includes(hash)) hashSeen = true;
  }
  // The search can see stored text: the prompt's hash is in the store files.
  expect(hashSeen).toBe(true);
  // The table itself: the row is there by its hash, and none of the prompt's words (not even the
  // identifier it names, which the index's rationale would quote) is in any column.
  const store = await openStore({ dataDir: path.join(repo, '.sous', 'data') });
  try {
    const rows = await store.db.select().from(resolutions);
    const mine = rows.filter((r) => r.promptHash === hash);
    expect(mine).toHaveLength(1);
    expect(mine[0]!.details).toMatchObject({ client: 'agent-secret', cache: 'miss' });
    expect(mine[0]!.evidence.map((e) => e.path)).toContain('src/parser.ts');
    const stored = JSON.stringify(rows);
    expect(stored).not.toContain('quuxzorbleflange');
    expect(stored).not.toContain('parseGrammar');
  } finally {
    await store.close();
  }
  expect((await sous(['up', '--path', repo, '--port', String(port), '--json'], { env })).code).toBe(0);
}, 120_000);
