/**
 * The chat-completions proxy end to end (spec 4.4, 5.2–5.4; docs/proxy.md): the real `openai` npm
 * client pointed at `sous proxy`, in front of deterministic fake upstreams of ours, with a real daemon
 * (`sous up`, embedded PGlite) preparing the repository's context. Streaming and non-streaming, tool
 * calls and array content parts arrive upstream untouched; the prepared briefing is visible in what
 * the upstream received, as one added system message; a miss is prepared so the next similar prompt
 * hits; routing by default, model prefix and X-Sous-Backend; upstream errors and timeouts come back
 * OpenAI-shaped; bad input is a 4xx JSON error naming the field.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import OpenAI from 'openai';
import { CLI, embeddedEnv, freePort, sous } from './support/cli';
import { startFakeUpstream, type FakeUpstream, type ReceivedRequest } from './support/fake-upstream';
import { rawRequest, type RawResponse } from './support/http';
import { git, makeGitRepo, rmTempDir, writeFile } from './support/tmp';
import { until } from './support/wait';

let repo: string;
let bare: string;
let passthroughRepo: string;
let env: NodeJS.ProcessEnv;
let daemonPort: number;
let proxyPort: number;
let fallback: FakeUpstream;
let routed: FakeUpstream;
let alt: FakeUpstream;
const proxies: ChildProcess[] = [];
const ALT_KEY = 'alt-upstream-key-from-env';

function writeConfig(dir: string, extra = ''): void {
  fs.mkdirSync(path.join(dir, '.sous'), { recursive: true });
  fs.writeFileSync(
    path.join(dir, '.sous', 'config.toml'),
    `[backend]\nbase_url = "${fallback.baseUrl}"\n\n[gateway]\nupstream_timeout_seconds = 2\n\n[gateway.routes]\n"fake-" = "${routed.baseUrl}"\n\n` +
      `[backends.alt]\nbase_url = "${alt.baseUrl}"\nmodel = "alt-model"\napi_key_env = "FAKE_ALT_KEY"\n\n[backends.down]\nbase_url = "http://127.0.0.1:1/v1"\nmodel = "x"\n${extra}`,
  );
}

/** Starts `sous proxy` for `dir` and waits for its health answer. */
async function startProxy(dir: string): Promise<number> {
  const port = await freePort();
  const child = spawn(process.execPath, [CLI, 'proxy', '--path', dir, '--port', String(port)], { env: { ...env, FAKE_ALT_KEY: ALT_KEY }, stdio: ['ignore', 'ignore', 'pipe'] });
  proxies.push(child);
  await until(async () => ((await rawRequest({ port, path: '/healthz' }).catch(() => undefined))?.status === 200 ? true : undefined), 30_000, 50);
  return port;
}

function client(port: number, headers: Record<string, string> = {}): OpenAI {
  return new OpenAI({ baseURL: `http://127.0.0.1:${port}/v1`, apiKey: 'any-non-empty-key', defaultHeaders: headers, maxRetries: 0, timeout: 20_000 });
}

function post(port: number, body: unknown, headers: Record<string, string> = {}): Promise<RawResponse> {
  return rawRequest({ port, method: 'POST', path: '/v1/chat/completions', headers: { 'content-type': 'application/json', ...headers }, body: typeof body === 'string' ? body : JSON.stringify(body), timeoutMs: 20_000 });
}

/** The request an upstream received whose last user message carries `marker`. */
function receivedWith(upstream: FakeUpstream, marker: string): ReceivedRequest {
  const found = upstream.received.filter((r) => r.path === '/v1/chat/completions' && JSON.stringify(r.body?.messages?.at(-1) ?? '').includes(marker));
  expect(found).toHaveLength(1);
  return found[0] as ReceivedRequest;
}

const injected = (r: ReceivedRequest): string[] => (r.body.messages as Array<{ role: string; content: unknown }>).filter((m) => m.role === 'system' && String(m.content).startsWith('Repository context prepared by Sous')).map((m) => String(m.content));

const TOOLS = [{ type: 'function' as const, function: { name: 'read_file', description: 'Read a file', parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] } } }];

let prediction: { id: string; prompt: string };

beforeAll(async () => {
  [fallback, routed, alt] = await Promise.all([startFakeUpstream({ name: 'fallback' }), startFakeUpstream({ name: 'routed' }), startFakeUpstream({ name: 'alt', models: ['alt-model'] })]);
  repo = makeGitRepo();
  writeFile(repo, 'src/parser.ts', 'export function parseGrammar(source: string): string[] {\n  return source.split("\\n");\n}\n');
  writeFile(repo, 'src/lexer.ts', 'export function lexTokens(text: string): string[] {\n  return text.split(" ");\n}\n');
  git(repo, ['add', '-A']);
  git(repo, ['commit', '-q', '-m', 'proxy files']);
  writeConfig(repo);
  env = embeddedEnv();
  daemonPort = await freePort();
  expect((await sous(['up', '--path', repo, '--port', String(daemonPort), '--json'], { env })).code).toBe(0);
  await until(async () => ((await rawRequest({ port: daemonPort, path: '/status' })).json?.index?.state === 'ready' ? true : undefined), 60_000, 100);
  const goal = await rawRequest({ port: daemonPort, method: 'POST', path: '/goals', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ title: 'Split the parser grammar', related_files: ['src/parser.ts'] }) });
  expect(goal.status).toBe(201);
  prediction = await until(async () => ((await rawRequest({ port: daemonPort, path: '/predictions' })).json.predictions as Array<{ id: string; prompt: string; goal_id: string; state: string }>).find((p) => p.goal_id === goal.json.goal.id && p.state === 'ready'), 30_000, 100);
  proxyPort = await startProxy(repo);
  // The first request that may inject opens the prepared context; wait until it holds the prediction.
  await post(proxyPort, { model: 'fake-warmup', messages: [{ role: 'user', content: 'warm up the proxy' }] });
  await until(async () => (((await rawRequest({ port: proxyPort, path: '/healthz' })).json.prepared_context?.entries ?? 0) >= 1 ? true : undefined), 20_000, 50);

  bare = makeGitRepo();
  writeConfig(bare, '\n[proxy]\nallow_repo_override = true\n');
  passthroughRepo = makeGitRepo();
  writeConfig(passthroughRepo, '\n[gateway.passthrough]\nenabled = true\n');
}, 180_000);

afterAll(async () => {
  for (const child of proxies) child.kill('SIGTERM');
  await Promise.all(proxies.map((c) => (c.exitCode === null ? new Promise((r) => c.once('exit', r)) : undefined)));
  await sous(['down', '--path', repo], { env });
  await Promise.all([fallback?.close(), routed?.close(), alt?.close()]);
  for (const dir of [repo, bare, passthroughRepo]) if (dir) rmTempDir(dir);
  if (env?.SOUS_HOME) rmTempDir(env.SOUS_HOME);
}, 60_000);

test('non-streaming with tools through the openai client: the briefing is one added system message, the rest arrives untouched', async () => {
  const messages = [
    { role: 'system' as const, content: 'You are terse.' },
    { role: 'user' as const, content: prediction.prompt },
  ];
  const { data, response } = await client(proxyPort, { 'x-sous-client': 'agent-a' }).chat.completions.create({ model: 'fake-coder', messages, tools: TOOLS, temperature: 0.1 }).withResponse();
  expect(data.choices[0]?.finish_reason).toBe('tool_calls');
  expect(data.choices[0]?.message.tool_calls?.[0]).toMatchObject({ id: 'call_1', type: 'function', function: { name: 'read_file', arguments: '{"path":"src/parser.ts"}' } });
  expect(data.system_fingerprint).toBe('routed');
  expect(response.headers.get('x-sous-context')).toBe('hit');
  expect(Number(response.headers.get('x-sous-overhead-ms'))).toBeGreaterThanOrEqual(0);

  const got = receivedWith(routed, prediction.prompt);
  expect(got.body.tools).toEqual(TOOLS);
  expect(got.body.temperature).toBe(0.1);
  expect(got.body.model).toBe('fake-coder');
  // The client's system message first, then Sous's, then the user's words exactly as sent.
  expect(got.body.messages).toHaveLength(3);
  expect(got.body.messages[0]).toEqual(messages[0]);
  expect(got.body.messages[2]).toEqual(messages[1]);
  const [briefing] = injected(got);
  expect(briefing).toContain('src/parser.ts');
  expect(briefing).toContain(`Prepared for: ${prediction.prompt}`);
  // The proxy's own key never travels upstream: a route has no key of its own, so the client's goes as it came.
  expect(got.headers.authorization).toBe('Bearer any-non-empty-key');
  expect(got.headers['x-sous-client']).toBeUndefined();

  const traces = await rawRequest({ port: proxyPort, path: '/v1/traces?client=agent-a' });
  expect(traces.json.traces[0]).toMatchObject({ model: 'fake-coder', upstream: 'route:fake-', policy: 'policy_hybrid', context: 'hit', entry_id: `prediction:${prediction.id}`, similarity: 1, status: 200 });
  expect(traces.json.traces[0].paths[0]).toBe('src/parser.ts');
  expect(traces.json.traces[0].injected_tokens).toBeLessThanOrEqual(traces.json.traces[0].budget_tokens);
}, 60_000);

test('streaming passes SSE through: text chunks and tool-call deltas arrive as the upstream sent them', async () => {
  const openai = client(proxyPort);
  const stream = await openai.chat.completions.create({ model: 'fake-stream', stream: true, messages: [{ role: 'user', content: `${prediction.prompt} streamed` }] });
  const parts: string[] = [];
  for await (const chunk of stream) parts.push(chunk.choices[0]?.delta?.content ?? '');
  expect(parts.filter((p) => p !== '')).toHaveLength(4);
  expect(parts.join('')).toBe(routed.answer);
  const got = receivedWith(routed, 'streamed');
  expect(got.body.stream).toBe(true);
  expect(injected(got)).toHaveLength(1);

  const tools = await openai.chat.completions.create({ model: 'fake-stream', stream: true, tools: TOOLS, messages: [{ role: 'user', content: 'stream a tool call please' }] });
  let args = '';
  let name = '';
  let finish: string | null = null;
  for await (const chunk of tools) {
    const call = chunk.choices[0]?.delta?.tool_calls?.[0];
    name += call?.function?.name ?? '';
    args += call?.function?.arguments ?? '';
    finish = chunk.choices[0]?.finish_reason ?? finish;
  }
  expect({ name, args, finish }).toEqual({ name: 'read_file', args: '{"path":"src/parser.ts"}', finish: 'tool_calls' });
  expect(receivedWith(routed, 'stream a tool call').body.tools).toEqual(TOOLS);
}, 60_000);

test('array content parts are forwarded untouched and their text is what is matched', async () => {
  const content = [
    { type: 'text' as const, text: prediction.prompt },
    { type: 'image_url' as const, image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } },
    { type: 'text' as const, text: 'array-parts-marker' },
  ];
  await client(proxyPort).chat.completions.create({ model: 'fake-parts', messages: [{ role: 'user', content }] });
  const got = receivedWith(routed, 'array-parts-marker');
  expect(got.body.messages.at(-1)).toEqual({ role: 'user', content });
  // The prompt is the text parts joined: close enough to the prediction's to be injected.
  expect(injected(got)).toHaveLength(1);
  expect(got.body.messages).toHaveLength(2);
}, 30_000);

test('a miss goes on without injection and is prepared, so the next similar prompt hits; traces are kept per client', async () => {
  const first = await client(proxyPort, { 'x-sous-client': 'agent-miss' }).chat.completions.create({ model: 'fake-miss', messages: [{ role: 'user', content: 'where are lexTokens defined' }] }).withResponse();
  expect(first.response.headers.get('x-sous-context')).toBe('miss');
  expect(injected(receivedWith(routed, 'where are lexTokens defined'))).toEqual([]);
  // The daemon resolved the missed prompt in the background, recorded for this client.
  await until(async () => ((await rawRequest({ port: daemonPort, path: '/v1/resolutions/last?client=agent-miss' })).status === 200 ? true : undefined), 20_000, 50);
  const next = await until(async () => {
    const r = await client(proxyPort, { 'x-sous-client': 'agent-miss' }).chat.completions.create({ model: 'fake-miss', messages: [{ role: 'user', content: 'lexTokens: where are they defined' }] }).withResponse();
    return r.response.headers.get('x-sous-context') === 'hit' ? r : undefined;
  }, 20_000, 100);
  expect(next.data.choices[0]?.message.content).toBe(routed.answer);
  const hits = routed.received.filter((r) => JSON.stringify(r.body?.messages?.at(-1) ?? '').includes('lexTokens: where are they defined'));
  expect(injected(hits.at(-1) as ReceivedRequest)[0]).toContain('src/lexer.ts');

  const mine = (await rawRequest({ port: proxyPort, path: '/v1/traces', headers: { 'x-sous-client': 'agent-miss' } })).json;
  expect(mine.client).toBe('agent-miss');
  expect(mine.traces.map((t: { context: string }) => t.context)).toEqual(expect.arrayContaining(['miss', 'hit']));
  expect(mine.traces.every((t: { model: string }) => t.model === 'fake-miss')).toBe(true);
  const other = (await rawRequest({ port: proxyPort, path: '/v1/traces?client=agent-a' })).json;
  expect(other.traces.some((t: { model: string }) => t.model === 'fake-miss')).toBe(false);
}, 60_000);

test('routing: backend.* by default, gateway.routes by model prefix, X-Sous-Backend by profile with its key from the environment', async () => {
  const byDefault = await client(proxyPort).chat.completions.create({ model: 'plain-model', messages: [{ role: 'user', content: 'default-route-marker' }] });
  expect(byDefault.system_fingerprint).toBe('fallback');
  expect(receivedWith(fallback, 'default-route-marker').body.model).toBe('plain-model');

  const byPrefix = await client(proxyPort).chat.completions.create({ model: 'fake-anything', messages: [{ role: 'user', content: 'prefix-route-marker' }] });
  expect(byPrefix.system_fingerprint).toBe('routed');

  const byHeader = await client(proxyPort, { 'x-sous-backend': 'alt' }).chat.completions.create({ model: 'fake-anything', messages: [{ role: 'user', content: 'header-route-marker' }] });
  expect(byHeader.system_fingerprint).toBe('alt');
  const got = receivedWith(alt, 'header-route-marker');
  expect(got.headers.authorization).toBe(`Bearer ${ALT_KEY}`);
  expect(got.headers['x-sous-backend']).toBeUndefined();

  const models = await client(proxyPort, { 'x-sous-backend': 'alt' }).models.list();
  expect(models.data.map((m) => m.id)).toEqual(['alt-model']);
  expect((await client(proxyPort).models.list()).data.map((m) => m.id)).toEqual(['fake-model']);

  const unknown = await post(proxyPort, { model: 'x', messages: [{ role: 'user', content: 'hi' }] }, { 'x-sous-backend': 'nope' });
  expect(unknown.status).toBe(400);
  expect(unknown.json.error).toMatchObject({ code: 'invalid_request', type: 'invalid_request_error', where: 'header.x-sous-backend' });
  expect(unknown.json.error.message).toMatch(/configured: alt, down/);
}, 60_000);

test('upstream errors and timeouts come back OpenAI-shaped', async () => {
  const openai = client(proxyPort);
  await expect(openai.chat.completions.create({ model: 'fake-status-429', messages: [{ role: 'user', content: 'rate' }] })).rejects.toMatchObject({ status: 429, message: expect.stringContaining('scripted 429 from routed') });

  const html = await post(proxyPort, { model: 'fake-html-502', messages: [{ role: 'user', content: 'html' }] });
  expect(html.status).toBe(502);
  expect(html.json.error).toMatchObject({ code: 'upstream_error', type: 'api_error' });
  expect(html.json.error.message).toMatch(/upstream route:fake- answered 502: <html>/);

  const started = Date.now();
  const hang = await post(proxyPort, { model: 'fake-hang', messages: [{ role: 'user', content: 'hang' }] });
  expect(hang.status).toBe(504);
  expect(hang.json.error).toMatchObject({ code: 'upstream_timeout', type: 'api_error', param: 'upstream' });
  expect(hang.json.error.message).toMatch(/did not answer within 2 s/);
  expect(Date.now() - started).toBeLessThan(15_000);

  // A client that hangs up ends the upstream request too (no model generating for nobody).
  const before = routed.abandoned;
  const gone = new AbortController();
  const leaving = client(proxyPort, { 'x-sous-client': 'agent-leaving' }).chat.completions.create({ model: 'fake-hang', messages: [{ role: 'user', content: 'leaving' }] }, { signal: gone.signal });
  await until(() => (routed.received.some((r) => JSON.stringify(r.body?.messages ?? '').includes('leaving')) ? true : undefined), 10_000, 20);
  gone.abort();
  await expect(leaving).rejects.toThrow();
  await until(() => (routed.abandoned > before ? true : undefined), 10_000, 20);
  // Ended by the client leaving (499), not by the upstream timeout (504).
  expect((await until(async () => (await rawRequest({ port: proxyPort, path: '/v1/traces?client=agent-leaving' })).json.traces[0], 10_000, 50)).status).toBe(499);

  // A stream the upstream drops midway ends with an error event the client reports, after what had arrived.
  const cut = await openai.chat.completions.create({ model: 'fake-cut', stream: true, messages: [{ role: 'user', content: 'cut' }] });
  const seen: string[] = [];
  await expect(
    (async () => {
      for await (const chunk of cut) seen.push(chunk.choices[0]?.delta?.content ?? '');
    })(),
  ).rejects.toThrow(/upstream route:fake- .*cannot be reached/);
  expect(seen).toEqual(['partial']);

  await expect(client(proxyPort, { 'x-sous-backend': 'down', 'x-sous-client': 'agent-down' }).chat.completions.create({ model: 'x', messages: [{ role: 'user', content: 'down' }] })).rejects.toMatchObject({ status: 502, code: 'upstream_unreachable' });
  // A failed request is traced with the status the client got.
  expect((await rawRequest({ port: proxyPort, path: '/v1/traces?client=agent-down' })).json.traces[0]).toMatchObject({ upstream: 'profile:down', status: 502 });
}, 60_000);

test('bad input is a 4xx JSON error naming what and where', async () => {
  const noModel = await post(proxyPort, { messages: [{ role: 'user', content: 'hi' }] });
  expect(noModel.status).toBe(400);
  expect(noModel.json.error).toMatchObject({ code: 'invalid_request', where: 'body.model', param: 'body.model' });
  const noMessages = await post(proxyPort, { model: 'x', messages: [] });
  expect(noMessages.status).toBe(400);
  expect(noMessages.json.error.where).toBe('body.messages');
  const noRole = await post(proxyPort, { model: 'x', messages: [{ content: 'hi' }] });
  expect(noRole.json.error.where).toBe('body.messages.0.role');
  const streamText = await post(proxyPort, { model: 'x', stream: 'yes', messages: [{ role: 'user', content: 'hi' }] });
  expect(streamText.json.error.where).toBe('body.stream');
  const badJson = await post(proxyPort, '{"model":');
  expect(badJson.status).toBe(400);
  expect(badJson.json.error.code).toBe('invalid_json');
  const override = await post(proxyPort, { model: 'x', messages: [{ role: 'user', content: 'hi' }] }, { 'x-sous-repo': bare });
  expect(override.status).toBe(403);
  expect(override.json.error.message).toMatch(/proxy.allow_repo_override/);
  const badClient = await post(proxyPort, { model: 'x', messages: [{ role: 'user', content: 'hi' }] }, { 'x-sous-client': 'bad client!' });
  expect(badClient.status).toBe(400);
  expect(badClient.json.error.where).toBe('header.x-sous-client');
}, 30_000);

test('proxy.allow_repo_override lets a request name another repository; passthrough forwards without injection', async () => {
  const overridePort = await startProxy(bare);
  // No daemon for `bare`: a request goes on without context.
  const own = await post(overridePort, { model: 'fake-x', messages: [{ role: 'user', content: prediction.prompt }] });
  expect(own.status).toBe(200);
  expect(own.headers['x-sous-context']).toBe('miss');
  const other = await until(async () => {
    const r = await post(overridePort, { model: 'fake-x', messages: [{ role: 'user', content: `${prediction.prompt} override-marker` }] }, { 'x-sous-repo': repo });
    return r.headers['x-sous-context'] === 'hit' ? r : undefined;
  }, 20_000, 100);
  expect(other.status).toBe(200);
  const relative = await post(overridePort, { model: 'fake-x', messages: [{ role: 'user', content: 'hi' }] }, { 'x-sous-repo': 'relative/path' });
  expect(relative.status).toBe(400);

  const passPort = await startProxy(passthroughRepo);
  const pass = await post(passPort, { model: 'fake-x', messages: [{ role: 'user', content: `${prediction.prompt} passthrough-marker` }] }, { 'x-sous-repo': repo });
  // Passthrough never injects (and so never reads X-Sous-Repo).
  expect(pass.status).toBe(200);
  expect(pass.headers['x-sous-context']).toBe('off');
  expect(injected(receivedWith(routed, 'passthrough-marker'))).toEqual([]);
  expect((await rawRequest({ port: passPort, path: '/healthz' })).json).toMatchObject({ status: 'ok', service: 'proxy', policy: 'passthrough', prepared_context: null });
}, 60_000);

test('the proxy writes no prompt: a unique word sent through it appears in no log under .sous', async () => {
  const word = `zebraquill${Date.now()}`;
  const r = await post(proxyPort, { model: 'fake-private', messages: [{ role: 'user', content: `explain ${word} please` }] }, { 'x-sous-client': 'agent-private' });
  expect(r.status).toBe(200);
  // Let the missed prompt be prepared by the daemon (and logged, if anything logged it).
  await until(async () => ((await rawRequest({ port: daemonPort, path: '/v1/resolutions/last?client=agent-private' })).status === 200 ? true : undefined), 20_000, 50);
  const logs = path.join(repo, '.sous', 'logs');
  const files = fs.readdirSync(logs).map((f) => path.join(logs, f));
  expect(files.some((f) => path.basename(f).startsWith('proxy'))).toBe(true);
  for (const file of files) expect({ file, found: fs.readFileSync(file, 'utf8').includes(word) }).toEqual({ file, found: false });
}, 60_000);
