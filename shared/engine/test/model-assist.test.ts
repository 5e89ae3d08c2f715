import * as http from 'node:http';
import { defaultConfig, type SousConfig } from '@sous/config';
import { backendTargetFromConfig, BackendError, createChatClient } from '../../backend/src/chat';
import { buildRepositoryIndex, scopePolicyFromConfig } from '@sous/retrieval';
import { symbolParserPool } from '../../retrieval/src/symbols/parser-pool';
import { createRepositoryView, type RepositoryView } from '../src/view/repository-view';
import { createModelAssist, type ChatClient } from '../src/model/model-assist';
import { researchBriefPrompt } from '../src/model/prompts';
import type { Candidate } from '../src/work/types';
import { startFakeBackend, type FakeBackend } from '../../../test/support/fake-backend';
import { git, makeEmptyGitRepo, rmTempDir, writeFile } from '../../../test/support/tmp';

afterAll(() => symbolParserPool().release());

const MODEL = 'qwen2.5-coder:1.5b';
const SECRET = 'sk-test0123456789abcdefghijklmnop';
const APP = [
  "import { KEY } from './keys';",
  '',
  'export function charge(amount: number): string {',
  '  if (amount < 0) throw new Error("negative");',
  '  return `${KEY}:${amount}`;',
  '}',
  '',
].join('\n');
const KEYS = `export const KEY = "${SECRET}";\n`;

const dirs: string[] = [];
const backends: FakeBackend[] = [];
afterEach(async () => {
  for (const b of backends.splice(0)) await b.close();
  for (const dir of dirs.splice(0)) rmTempDir(dir);
});

/** A committed repository with `files`. */
function repoWith(files: Record<string, string>): string {
  const dir = makeEmptyGitRepo('sous-model-assist-');
  dirs.push(dir);
  for (const [rel, content] of Object.entries(files)) writeFile(dir, rel, content);
  git(dir, ['add', '-A']);
  git(dir, ['commit', '-q', '-m', 'initial']);
  return dir;
}

function withPrivacy(privacy: Partial<SousConfig['privacy']>): SousConfig {
  const c = defaultConfig();
  return { ...c, privacy: { ...c.privacy, ...privacy } };
}

/** The index built under `indexConfig`, read under `viewConfig` (the same unless a test says otherwise). */
async function viewOf(dir: string, viewConfig: SousConfig = defaultConfig(), indexConfig: SousConfig = viewConfig): Promise<RepositoryView> {
  const index = await buildRepositoryIndex(dir, scopePolicyFromConfig(indexConfig));
  return createRepositoryView(index, scopePolicyFromConfig(viewConfig));
}

async function fakeBackend(options: { apiKey?: string } = {}): Promise<FakeBackend> {
  const backend = await startFakeBackend({ recordBodies: true, ...options });
  backends.push(backend);
  return backend;
}

function chatFor(backend: FakeBackend, apiKeyEnv = '', env: NodeJS.ProcessEnv = {}): ChatClient {
  return createChatClient({ name: 'fake', baseUrl: backend.baseUrl, model: MODEL, apiKeyEnv }, { env, timeoutMs: 5_000 });
}

/** A hand-made finding citing `path` (lines 3-5 unless told). */
function candidate(view: RepositoryView, path: string, strength: number, extra: Partial<Candidate> = {}): Candidate {
  return {
    kind: 'bug_hypothesis',
    detector: 'review.test_rule',
    claim: `${path}|charge`,
    title: `charge may misbehave in ${path}`,
    summary: 'A test finding.',
    whyNow: 'The file changed in the last commit.',
    body: 'Test body.',
    action: 'Look at charge',
    evidence: [{ path, lineStart: 3, lineEnd: 5, ...(view.file(path) ? { contentHash: view.file(path)!.sha256 } : {}), note: 'defines `charge`' }],
    strength,
    targets: [path],
    ...extra,
  };
}

const signal = (): AbortSignal => new AbortController().signal;
const chatCalls = (b: FakeBackend): number => b.requests.filter((r) => r === 'POST /v1/chat/completions').length;
const prompts = (b: FakeBackend): string => JSON.stringify(b.bodies);

describe('model assist: research briefs', () => {
  it('writes a brief for a strong candidate, grounded in the same evidence and weaker than it', async () => {
    const view = await viewOf(repoWith({ 'src/app.ts': APP, 'src/keys.ts': KEYS }));
    const backend = await fakeBackend();
    const assist = createModelAssist({ chat: chatFor(backend), gate: 'non_trivial', model: MODEL });
    const source = candidate(view, 'src/app.ts', 0.9);

    const briefs = await assist.propose(view, [source], signal());

    expect(chatCalls(backend)).toBe(1);
    expect(briefs).toHaveLength(1);
    const brief = briefs[0]!;
    expect(brief).toMatchObject({
      kind: 'research_brief',
      detector: 'model.research_brief',
      claim: 'brief|review.test_rule|src/app.ts|charge',
      title: 'Research brief: charge may misbehave in src/app.ts',
      whyNow: source.whyNow,
      action: 'Read before changing src/app.ts',
      targets: ['src/app.ts'],
    });
    expect(brief.evidence).toEqual(source.evidence);
    expect(brief.strength).toBeCloseTo(0.72);
    expect(brief.body).toMatch(/^fake answer [0-9a-f]{12}/);
    expect(brief.body).toContain(`Written by ${MODEL}`);
    expect(assist.lastError()).toBeUndefined();

    const body = backend.bodies[0] as { model: string; messages: Array<{ role: string; content: string }> };
    expect(body.model).toBe(MODEL);
    expect(body.messages.map((m) => m.role)).toEqual(['system', 'user']);
    expect(body.messages[0]!.content).toContain('research brief');
    expect(body.messages[1]!.content).toContain('Finding: charge may misbehave in src/app.ts');
    expect(body.messages[1]!.content).toContain('### src/app.ts:1-6');
    expect(body.messages[1]!.content).toContain('3 | export function charge(amount: number): string {');
  });

  it('asks about weak candidates only when the gate is always, and never under never', async () => {
    const view = await viewOf(repoWith({ 'src/app.ts': APP }));
    const weak = candidate(view, 'src/app.ts', 0.4);
    const strong = candidate(view, 'src/app.ts', 0.95, { claim: 'src/app.ts|other' });

    const gated = await fakeBackend();
    expect(await createModelAssist({ chat: chatFor(gated), gate: 'non_trivial', model: MODEL }).propose(view, [weak], signal())).toEqual([]);
    expect(gated.requests).toEqual([]);

    const never = await fakeBackend();
    expect(await createModelAssist({ chat: chatFor(never), gate: 'never', model: MODEL }).propose(view, [weak, strong], signal())).toEqual([]);
    expect(never.requests).toEqual([]);

    const always = await fakeBackend();
    expect(await createModelAssist({ chat: chatFor(always), gate: 'always', model: MODEL }).propose(view, [weak], signal())).toHaveLength(1);
    expect(chatCalls(always)).toBe(1);
  });

  it('briefs the strongest candidates first, at most maxCalls, and skips unindexed ones and briefs', async () => {
    const view = await viewOf(repoWith({ 'src/app.ts': APP }));
    const backend = await fakeBackend();
    const assist = createModelAssist({ chat: chatFor(backend), gate: 'non_trivial', model: MODEL });
    const many = [0.6, 0.7, 0.8, 0.9, 1].map((s) => candidate(view, 'src/app.ts', s, { claim: `src/app.ts|c${s}` }));
    const unindexed = candidate(view, 'src/gone.ts', 1, { claim: 'src/gone.ts|x' });
    const already = { ...candidate(view, 'src/app.ts', 1, { claim: 'x' }), kind: 'research_brief' as const };

    const briefs = await assist.propose(view, [...many, unindexed, already], signal());

    expect(chatCalls(backend)).toBe(3);
    expect(briefs.map((b) => b.claim)).toEqual(['brief|review.test_rule|src/app.ts|c1', 'brief|review.test_rule|src/app.ts|c0.9', 'brief|review.test_rule|src/app.ts|c0.8']);
  });

  it('makes no call once the cycle is aborted', async () => {
    const view = await viewOf(repoWith({ 'src/app.ts': APP }));
    const backend = await fakeBackend();
    const controller = new AbortController();
    controller.abort();
    expect(await createModelAssist({ chat: chatFor(backend), gate: 'always', model: MODEL }).propose(view, [candidate(view, 'src/app.ts', 1)], controller.signal)).toEqual([]);
    expect(backend.requests).toEqual([]);
  });
});

describe('model assist: privacy', () => {
  it('never sends a planted secret: the index redacts it, and the prompt is redacted again', async () => {
    const dir = repoWith({ 'src/app.ts': APP, 'src/keys.ts': KEYS });
    const backend = await fakeBackend();
    const assist = createModelAssist({ chat: chatFor(backend), gate: 'non_trivial', model: MODEL });

    const view = await viewOf(dir);
    expect(await assist.propose(view, [candidate(view, 'src/keys.ts', 0.9, { evidence: [{ path: 'src/keys.ts', lineStart: 1, lineEnd: 1, contentHash: view.file('src/keys.ts')!.sha256, note: 'defines `KEY`' }] })], signal())).toHaveLength(1);

    // An index built before the redact pattern existed still holds the key; the prompt must not.
    const stale = await viewOf(dir, defaultConfig(), withPrivacy({ redact_patterns: [] }));
    expect(stale.text('src/keys.ts')).toContain(SECRET);
    expect(await assist.propose(stale, [candidate(stale, 'src/keys.ts', 0.9, { evidence: [{ path: 'src/keys.ts', lineStart: 1, contentHash: stale.file('src/keys.ts')!.sha256, note: 'defines `KEY`' }] })], signal())).toHaveLength(1);

    expect(chatCalls(backend)).toBe(2);
    expect(prompts(backend)).not.toContain('sk-test');
    expect(prompts(backend)).toContain('export const KEY = \\"[redacted]\\"');
  });

  it('never sends an excluded file, even when a candidate cites it', async () => {
    const dir = repoWith({ 'src/app.ts': APP, 'src/local.env': `TOKEN=${SECRET}\nLOCAL_ONLY=excluded-env-marker\n` });
    const backend = await fakeBackend();
    const assist = createModelAssist({ chat: chatFor(backend), gate: 'always', model: MODEL });
    const view = await viewOf(dir);
    expect(view.file('src/local.env')).toBeUndefined();

    const onlyEnv = candidate(view, 'src/local.env', 1);
    const mixed = candidate(view, 'src/app.ts', 1, { evidence: [...candidate(view, 'src/app.ts', 1).evidence, { path: 'src/local.env', lineStart: 1, note: 'sets TOKEN' }] });
    expect(await assist.propose(view, [onlyEnv, mixed], signal())).toEqual([]);
    expect(backend.requests).toEqual([]);
  });

  it('never sends a file a newer exclusion covers, even from an index built before it', async () => {
    const dir = repoWith({ 'src/app.ts': APP, 'src/secret/plan.ts': 'export const plan = "excluded-plan-marker";\n' });
    const excluded = withPrivacy({ excluded_patterns: [...defaultConfig().privacy.excluded_patterns, 'src/secret/**'] });
    const view = await viewOf(dir, excluded, defaultConfig());
    expect(view.text('src/secret/plan.ts')).toContain('excluded-plan-marker');
    const backend = await fakeBackend();
    const assist = createModelAssist({ chat: chatFor(backend), gate: 'always', model: MODEL });

    const cites = candidate(view, 'src/secret/plan.ts', 1, { evidence: [{ path: 'src/secret/plan.ts', lineStart: 1, contentHash: view.file('src/secret/plan.ts')!.sha256, note: 'defines `plan`' }] });
    expect(researchBriefPrompt(view, cites)).toBeUndefined();
    const briefs = await assist.propose(view, [cites, candidate(view, 'src/app.ts', 0.9)], signal());

    expect(briefs.map((b) => b.targets)).toEqual([['src/app.ts']]);
    expect(chatCalls(backend)).toBe(1);
    expect(prompts(backend)).not.toContain('excluded-plan-marker');
    expect(prompts(backend)).not.toContain('src/secret');
  });
});

describe('model assist: backend failures', () => {
  it('returns no briefs and records the error when the backend is unreachable', async () => {
    const view = await viewOf(repoWith({ 'src/app.ts': APP }));
    const closed = await startFakeBackend();
    await closed.close();
    const assist = createModelAssist({ chat: chatFor(closed), gate: 'non_trivial', model: MODEL });

    await expect(assist.propose(view, [candidate(view, 'src/app.ts', 0.9), candidate(view, 'src/app.ts', 0.8, { claim: 'b' })], signal())).resolves.toEqual([]);
    expect(assist.lastError()).toMatch(/^cannot connect to http:\/\/127\.0\.0\.1:\d+\/v1/);
  });

  it('gives up on a backend that does not answer within the timeout', async () => {
    const view = await viewOf(repoWith({ 'src/app.ts': APP }));
    const silent = http.createServer(() => undefined); // accepts, never answers
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', () => r()));
    try {
      const port = (silent.address() as { port: number }).port;
      const chat = createChatClient({ name: 'silent', baseUrl: `http://127.0.0.1:${port}/v1`, model: MODEL, apiKeyEnv: '' }, { env: {}, timeoutMs: 300 });
      const assist = createModelAssist({ chat, gate: 'non_trivial', model: MODEL });
      await expect(assist.propose(view, [candidate(view, 'src/app.ts', 0.9)], signal())).resolves.toEqual([]);
      expect(assist.lastError()).toBe(`no answer from http://127.0.0.1:${port}/v1 within the timeout`);
    } finally {
      silent.closeAllConnections();
      await new Promise<void>((r) => silent.close(() => r()));
    }
  });

  it('refuses to start without the key api_key_env names, before any request', async () => {
    const backend = await fakeBackend({ apiKey: 'local-test-key-123' });
    const make = (): ChatClient => chatFor(backend, 'SOUS_TEST_BACKEND_KEY', {});
    expect(make).toThrow(BackendError);
    expect(make).toThrow('environment variable SOUS_TEST_BACKEND_KEY (api_key_env of backend fake) is not set');
    expect(backend.requests).toEqual([]);
  });

  it('sends the key from the environment, and a refused key never shows in the error', async () => {
    const view = await viewOf(repoWith({ 'src/app.ts': APP }));
    const backend = await fakeBackend({ apiKey: 'local-test-key-123' });
    const good = createModelAssist({ chat: chatFor(backend, 'SOUS_TEST_BACKEND_KEY', { SOUS_TEST_BACKEND_KEY: 'local-test-key-123' }), gate: 'non_trivial', model: MODEL });
    expect(await good.propose(view, [candidate(view, 'src/app.ts', 0.9)], signal())).toHaveLength(1);

    const bad = createModelAssist({ chat: chatFor(backend, 'SOUS_TEST_BACKEND_KEY', { SOUS_TEST_BACKEND_KEY: 'wrong-key-456' }), gate: 'non_trivial', model: MODEL });
    expect(await bad.propose(view, [candidate(view, 'src/app.ts', 0.9)], signal())).toEqual([]);
    expect(bad.lastError()).toMatch(/refused the request \(401\)/);
    expect(bad.lastError()).not.toContain('wrong-key-456');
  });
});

describe('backend target from config', () => {
  it('reads backend.* by default and backends.<profile> by name', () => {
    const config = { ...defaultConfig(), backends: { hosted: { base_url: 'https://api.example.test/v1', model: 'big', api_key_env: 'EXAMPLE_KEY' } } };
    expect(backendTargetFromConfig(config)).toEqual({ name: 'ollama', baseUrl: 'http://127.0.0.1:11434/v1', model: MODEL, apiKeyEnv: '' });
    expect(backendTargetFromConfig(config, 'hosted')).toEqual({ name: 'hosted', baseUrl: 'https://api.example.test/v1', model: 'big', apiKeyEnv: 'EXAMPLE_KEY' });
    expect(() => backendTargetFromConfig(config, 'nope')).toThrow('no backend profile "nope" (configured: hosted)');
  });
});
