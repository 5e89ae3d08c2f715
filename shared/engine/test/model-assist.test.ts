import * as http from 'node:http';
import { defaultConfig, type SousConfig } from '@sous/config';
import { backendTargetFromConfig, BackendError, createChatClient } from '../../backend/src/chat';
import { buildRepositoryIndex, scopePolicyFromConfig } from '@sous/retrieval';
import { symbolParserPool } from '../../retrieval/src/symbols/parser-pool';
import { createRepositoryView, type RepositoryView } from '../src/view/repository-view';
import { createModelAssist, type ChatClient } from '../src/model/model-assist';
import { researchBriefPrompt } from '../src/model/prompts';
import { draftDetector } from '../src/detectors/drafts';
import type { ModelContext } from '../src/cycle/run-cycle';
import type { Candidate } from '../src/work/types';
import { startFakeBackend, type FakeBackend, type FakeBackendOptions, type FakeChatRequest } from '../../../test/support/fake-backend';
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

async function fakeBackend(options: Pick<FakeBackendOptions, 'apiKey' | 'answer'> = {}): Promise<FakeBackend> {
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
/** Which pass a chat request belongs to, by its system prompt. */
function passOf(request: FakeChatRequest): 'brief' | 'rationale' | 'draft' | 'angle' {
  const system = request.messages[0]?.content ?? '';
  if (system.includes('research brief')) return 'brief';
  if (system.includes('why a finding matters')) return 'rationale';
  if (system.includes('next request')) return 'draft';
  if (system.includes('JSON lines')) return 'angle';
  throw new Error('unknown prompt');
}
const passes = (b: FakeBackend): string[] => (b.bodies as FakeChatRequest[]).map(passOf);
/** A context with the given changed files and nothing stored. */
const changedOnly = (changed: string[]): ModelContext => ({ changed, prepared: () => false, cites: () => false });
const chatCalls = (b: FakeBackend): number => b.requests.filter((r) => r === 'POST /v1/chat/completions').length;
const prompts = (b: FakeBackend): string => JSON.stringify(b.bodies);

describe('model assist: research briefs', () => {
  it('writes a brief for a strong candidate, grounded in the same evidence and weaker than it', async () => {
    const view = await viewOf(repoWith({ 'src/app.ts': APP, 'src/keys.ts': KEYS }));
    const backend = await fakeBackend();
    const assist = createModelAssist({ chat: chatFor(backend), gate: 'non_trivial', model: MODEL });
    const source = candidate(view, 'src/app.ts', 0.9);

    const { revised, added: briefs } = await assist.propose(view, [source], signal());

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
    // The finding itself is untouched: it got a brief, so it needs no rationale as well.
    expect(revised).toEqual([source]);

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
    expect((await createModelAssist({ chat: chatFor(gated), gate: 'non_trivial', model: MODEL }).propose(view, [weak], signal())).added).toEqual([]);
    expect(gated.requests).toEqual([]);

    const never = await fakeBackend();
    expect((await createModelAssist({ chat: chatFor(never), gate: 'never', model: MODEL }).propose(view, [weak, strong], signal())).added).toEqual([]);
    expect(never.requests).toEqual([]);

    const always = await fakeBackend();
    expect((await createModelAssist({ chat: chatFor(always), gate: 'always', model: MODEL }).propose(view, [weak], signal())).added).toHaveLength(1);
    expect(chatCalls(always)).toBe(1);
  });

  it('briefs the two strongest findings and writes rationales for the next two, within maxCalls; skips unindexed ones and briefs', async () => {
    const view = await viewOf(repoWith({ 'src/app.ts': APP }));
    const many = [0.6, 0.7, 0.8, 0.9, 1].map((s) => candidate(view, 'src/app.ts', s, { claim: `src/app.ts|c${s}` }));
    const unindexed = candidate(view, 'src/gone.ts', 1, { claim: 'src/gone.ts|x' });
    const already = { ...candidate(view, 'src/app.ts', 1, { claim: 'x' }), kind: 'research_brief' as const };
    const input = [...many, unindexed, already];
    const withRationale = (revised: Candidate[]): string[] => revised.filter((c) => c.body.includes('## Why this matters here')).map((c) => c.claim);

    const backend = await fakeBackend();
    const { revised, added } = await createModelAssist({ chat: chatFor(backend), gate: 'non_trivial', model: MODEL }).propose(view, input, signal());
    expect(chatCalls(backend)).toBe(4);
    expect(added.map((b) => b.claim)).toEqual(['brief|review.test_rule|src/app.ts|c1', 'brief|review.test_rule|src/app.ts|c0.9']);
    expect(withRationale(revised)).toEqual(['src/app.ts|c0.7', 'src/app.ts|c0.8']);

    // A smaller budget is shared in turns: a brief, a rationale, then the second brief.
    const small = await fakeBackend();
    const three = await createModelAssist({ chat: chatFor(small), gate: 'non_trivial', model: MODEL, maxCalls: 3 }).propose(view, input, signal());
    expect(chatCalls(small)).toBe(3);
    expect(three.added.map((b) => b.claim)).toEqual(['brief|review.test_rule|src/app.ts|c1', 'brief|review.test_rule|src/app.ts|c0.9']);
    expect(withRationale(three.revised)).toEqual(['src/app.ts|c0.8']);
  });

  it('makes no call once the cycle is aborted', async () => {
    const view = await viewOf(repoWith({ 'src/app.ts': APP }));
    const backend = await fakeBackend();
    const controller = new AbortController();
    controller.abort();
    expect((await createModelAssist({ chat: chatFor(backend), gate: 'always', model: MODEL }).propose(view, [candidate(view, 'src/app.ts', 1)], controller.signal)).added).toEqual([]);
    expect(backend.requests).toEqual([]);
  });
});

describe('model assist: privacy', () => {
  it('never sends a planted secret: the index redacts it, and the prompt is redacted again', async () => {
    const dir = repoWith({ 'src/app.ts': APP, 'src/keys.ts': KEYS });
    const backend = await fakeBackend();
    const assist = createModelAssist({ chat: chatFor(backend), gate: 'non_trivial', model: MODEL });

    const view = await viewOf(dir);
    expect((await assist.propose(view, [candidate(view, 'src/keys.ts', 0.9, { evidence: [{ path: 'src/keys.ts', lineStart: 1, lineEnd: 1, contentHash: view.file('src/keys.ts')!.sha256, note: 'defines `KEY`' }] })], signal())).added).toHaveLength(1);

    // An index built before the redact pattern existed still holds the key; the prompt must not.
    const stale = await viewOf(dir, defaultConfig(), withPrivacy({ redact_patterns: [] }));
    expect(stale.text('src/keys.ts')).toContain(SECRET);
    expect((await assist.propose(stale, [candidate(stale, 'src/keys.ts', 0.9, { evidence: [{ path: 'src/keys.ts', lineStart: 1, contentHash: stale.file('src/keys.ts')!.sha256, note: 'defines `KEY`' }] })], signal())).added).toHaveLength(1);

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
    expect(await assist.propose(view, [onlyEnv, mixed], signal())).toEqual({ revised: [onlyEnv, mixed], added: [] });
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
    const briefs = (await assist.propose(view, [cites, candidate(view, 'src/app.ts', 0.9)], signal())).added;

    expect(briefs.map((b) => b.targets)).toEqual([['src/app.ts']]);
    expect(chatCalls(backend)).toBe(1);
    expect(prompts(backend)).not.toContain('excluded-plan-marker');
    expect(prompts(backend)).not.toContain('src/secret');
  });
});

describe('model assist: privacy of rationales, drafts and angles', () => {
  it('no prompt of any pass carries an excluded file or a planted key, even from an index that predates both', async () => {
    const dir = repoWith({
      'src/app.ts': APP,
      'src/keys.ts': KEYS,
      'src/local.env': `TOKEN=${SECRET}\nLOCAL_ONLY=excluded-env-marker\n`,
      'src/secret/plan.ts': 'export const plan = "excluded-plan-marker";\n',
    });
    const excluded = withPrivacy({ excluded_patterns: [...defaultConfig().privacy.excluded_patterns, 'src/secret/**'] });
    // Indexed before the redact patterns and the src/secret exclusion existed; read under both.
    const view = await viewOf(dir, excluded, withPrivacy({ redact_patterns: [] }));
    expect(view.text('src/keys.ts')).toContain(SECRET);
    expect(view.text('src/secret/plan.ts')).toContain('excluded-plan-marker');
    const keysHash = view.file('src/keys.ts')!.sha256;
    const onKeys = { path: 'src/keys.ts', lineStart: 1, lineEnd: 1, contentHash: keysHash, note: 'defines `KEY`' };
    const drift = driftCard(view, 'src/keys.ts', 0.9, { evidence: [onKeys] });
    const draft: Candidate = { ...driftCard(view, 'src/keys.ts', 0.9, { claim: 'follow-up|keys', evidence: [onKeys] }), kind: 'prediction_draft', detector: 'draft.follow_up', body: '## Draft prompt\n\nRotate\n\n## Briefing\n\nWhy', draft: { prompt: `Rotate the key ${SECRET} in src/keys.ts` } };
    const planHash = view.file('src/secret/plan.ts')!.sha256;
    const onPlan = driftCard(view, 'src/secret/plan.ts', 1, { claim: 'plan', evidence: [{ path: 'src/secret/plan.ts', lineStart: 1, contentHash: planHash, note: 'defines `plan`' }] });
    const onEnv = driftCard(view, 'src/local.env', 1, { claim: 'env', evidence: [{ path: 'src/local.env', lineStart: 1, note: 'sets TOKEN' }] });
    const backend = await fakeBackend({ answer: (r) => (passOf(r) === 'angle' ? `{"line": 1, "quote": "export const KEY", "concern": "The key ${SECRET} is committed."}` : undefined) });
    const assist = createModelAssist({ chat: chatFor(backend), gate: 'always', model: MODEL });

    const { revised, added } = await assist.propose(view, [onPlan, onEnv, drift, draft], signal(), changedOnly(['src/secret/plan.ts', 'src/local.env', 'src/keys.ts']));

    expect(passes(backend).sort()).toEqual(['angle', 'draft', 'rationale']);
    const sent = prompts(backend);
    expect(sent).not.toContain('sk-test');
    expect(sent).not.toMatch(/excluded-plan-marker|excluded-env-marker|src\/secret|local\.env/);
    expect(sent).toContain('Rotate the key [redacted] in src/keys.ts');
    expect(revised.slice(0, 2)).toEqual([onPlan, onEnv]);
    // What the model wrote back is redacted too before it reaches a card.
    expect(added).toHaveLength(1);
    expect(added[0]!.summary).toBe('The key [redacted] is committed.');
    expect(revised[3]!.draft!.prompt).toMatch(/^fake answer /);
    expect(JSON.stringify([revised, added])).not.toContain(SECRET);
  });
});

describe('model assist: backend failures', () => {
  it('returns no briefs and records the error when the backend is unreachable', async () => {
    const view = await viewOf(repoWith({ 'src/app.ts': APP }));
    const closed = await startFakeBackend();
    await closed.close();
    const assist = createModelAssist({ chat: chatFor(closed), gate: 'non_trivial', model: MODEL });

    await expect(assist.propose(view, [candidate(view, 'src/app.ts', 0.9), candidate(view, 'src/app.ts', 0.8, { claim: 'b' })], signal())).resolves.toMatchObject({ added: [] });
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
      await expect(assist.propose(view, [candidate(view, 'src/app.ts', 0.9)], signal())).resolves.toMatchObject({ added: [] });
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
    expect((await good.propose(view, [candidate(view, 'src/app.ts', 0.9)], signal())).added).toHaveLength(1);

    const bad = createModelAssist({ chat: chatFor(backend, 'SOUS_TEST_BACKEND_KEY', { SOUS_TEST_BACKEND_KEY: 'wrong-key-456' }), gate: 'non_trivial', model: MODEL });
    expect((await bad.propose(view, [candidate(view, 'src/app.ts', 0.9)], signal())).added).toEqual([]);
    expect(bad.lastError()).toMatch(/refused the request \(401\)/);
    expect(bad.lastError()).not.toContain('wrong-key-456');
  });
});

const MATH = 'export function total(a: number, b: number): number {\n  return a + b;\n}\n';
const REPORT = "import { total } from './math';\n\nexport const sum = total(1, 2);\n";

/** The heuristic draft to update the stale caller of `total` (math.ts gained a parameter, uncommitted). */
async function staleCallerDraft(files: Record<string, string> = {}): Promise<{ view: RepositoryView; draft: Candidate }> {
  const dir = repoWith({ 'src/math.ts': MATH, 'src/report.ts': REPORT, ...files });
  writeFile(dir, 'src/math.ts', 'export function total(a: number, b: number, c: number): number {\n  return a + b + c;\n}\n');
  const view = await viewOf(dir);
  const found = await draftDetector.detect({ view, trigger: { kind: 'uncommitted' }, frontier: { entries: [], priority: () => 0 }, signal: signal() });
  expect(found.candidates).toHaveLength(1);
  return { view, draft: found.candidates[0]! };
}

/** A docs-drift-like card (no brief for its kind) citing `path` lines 3-5. */
function driftCard(view: RepositoryView, path: string, strength: number, extra: Partial<Candidate> = {}): Candidate {
  return candidate(view, path, strength, { kind: 'docs_drift', detector: 'docs_drift.test_rule', claim: `docs/api.md|${path}`, body: 'The guide names a removed function.', ...extra });
}

const without = <T extends object, K extends keyof T>(o: T, key: K): Omit<T, K> => {
  const { [key]: _dropped, ...rest } = o;
  return rest;
};

describe('model assist: rationales', () => {
  it('attaches a short rationale to a strong card, cleaned and redacted, and leaves its score and evidence alone', async () => {
    const view = await viewOf(repoWith({ 'src/app.ts': APP }));
    const words = Array.from({ length: 120 }, (_, i) => `w${i}`).join(' ');
    const backend = await fakeBackend({ answer: () => `<think>private reasoning</think>\n## Why\nA negative amount throws, but the key ${SECRET} is joined into every charge string. ${words}` });
    const assist = createModelAssist({ chat: chatFor(backend), gate: 'non_trivial', model: MODEL });
    const source = driftCard(view, 'src/app.ts', 0.8);

    const { revised, added } = await assist.propose(view, [source], signal());

    expect(passes(backend)).toEqual(['rationale']);
    expect(added).toEqual([]);
    const card = revised[0]!;
    expect(without(card, 'body')).toEqual(without(source, 'body'));
    expect(card.body.startsWith(`${source.body}\n\n## Why this matters here\n\nA negative amount throws, but the key [redacted] is joined`)).toBe(true);
    expect(card.body).toContain(`_Written by ${MODEL} from the cited lines; the evidence is the ground truth._`);
    const rationale = card.body.split('## Why this matters here\n\n')[1]!.split('\n\n')[0]!;
    expect(rationale.split(' ')).toHaveLength(80);
    expect(rationale.endsWith('…')).toBe(true);
    expect(card.body).not.toMatch(/private reasoning|## Why\n|sk-test/);

    const prompt = (backend.bodies[0] as FakeChatRequest).messages;
    expect(prompt[0]!.content).toContain('At most 80 words');
    expect(prompt[1]!.content).toContain('3 | export function charge(amount: number): string {');
  });

  it('never writes about a leaked key, and gives a finding a brief or a rationale, not both', async () => {
    const view = await viewOf(repoWith({ 'src/app.ts': APP, 'src/keys.ts': KEYS }));
    const backend = await fakeBackend();
    const assist = createModelAssist({ chat: chatFor(backend), gate: 'non_trivial', model: MODEL });
    const secret = candidate(view, 'src/keys.ts', 1, { kind: 'review_note', detector: 'review.secret_added', claim: 'src/keys.ts|1' });
    const finding = candidate(view, 'src/app.ts', 0.9);
    const drift = driftCard(view, 'src/app.ts', 0.8);

    const { revised, added } = await assist.propose(view, [secret, finding, drift], signal());

    expect(passes(backend).sort()).toEqual(['brief', 'rationale']);
    expect(added.map((b) => b.claim)).toEqual(['brief|review.test_rule|src/app.ts|charge']);
    expect(revised[0]).toEqual(secret);
    expect(revised[1]).toEqual(finding);
    expect(revised[2]!.body).toMatch(/^The guide names a removed function\.\n\n## Why this matters here\n\nfake answer [0-9a-f]{12}\n\n_Written by/);
    expect(prompts(backend)).not.toContain('src/keys.ts');
  });
});

describe('model assist: drafts', () => {
  it("rewrites a prediction draft's request from its evidence; the title, briefing and score stay", async () => {
    const { view, draft } = await staleCallerDraft();
    const request = 'Update the call `total(1, 2)` in src/report.ts line 3 to pass the new third argument `c`, then run the tests.';
    const backend = await fakeBackend({ answer: (r) => (passOf(r) === 'draft' ? `\`\`\`\nRequest: ${request}\n\`\`\`` : undefined) });
    const assist = createModelAssist({ chat: chatFor(backend), gate: 'non_trivial', model: MODEL });

    const { revised, added } = await assist.propose(view, [draft], signal());

    expect(passes(backend)).toEqual(['draft']);
    expect(added).toEqual([]);
    const rewritten = revised[0]!;
    expect(rewritten.draft).toEqual({ prompt: request });
    expect(rewritten).toMatchObject({ title: draft.title, strength: draft.strength, claim: draft.claim, evidence: draft.evidence });
    expect(rewritten.body.startsWith(`## Draft prompt\n\n${request}\n\n_Written by ${MODEL} from the cited lines; check it before adopting._\n\n## Briefing\n\n`)).toBe(true);
    expect(rewritten.body).toContain('- `src/report.ts:3`');
    expect(rewritten.body).not.toContain(draft.draft!.prompt);
    expect(rewritten.warnings).toEqual([...draft.warnings!, `Draft prompt written by the model ${MODEL}; read it before adopting.`]);
    const prompt = (backend.bodies[0] as FakeChatRequest).messages[1]!.content;
    expect(prompt).toContain(`Draft request: ${draft.draft!.prompt}`);
    expect(prompt).toContain('3 | export const sum = total(1, 2);');
  });

  it('keeps the heuristic draft when the backend fails or answers nothing', async () => {
    const { view, draft } = await staleCallerDraft();
    const failing = await fakeBackend({
      answer: () => {
        throw new Error('model crashed');
      },
    });
    const down = createModelAssist({ chat: chatFor(failing), gate: 'non_trivial', model: MODEL });
    expect(await down.propose(view, [draft], signal())).toEqual({ revised: [draft], added: [] });
    expect(chatCalls(failing)).toBe(1);
    expect(down.lastError()).toEqual(expect.any(String));

    const silent = await fakeBackend({ answer: () => '<think>nothing to add</think>\n' });
    const empty = createModelAssist({ chat: chatFor(silent), gate: 'non_trivial', model: MODEL });
    expect(await empty.propose(view, [draft], signal())).toEqual({ revised: [draft], added: [] });
    expect(empty.lastError()).toBe('the model returned an empty draft');
  });
});

describe('model assist: the gate and what is already prepared', () => {
  it('skips weak candidates and large files under non_trivial, makes no request under never, and asks about all under always', async () => {
    const big = `export const rows = [\n${Array.from({ length: 400 }, (_, i) => `  { id: ${i}, name: "row number ${i}" },`).join('\n')}\n];\n`;
    const { view, draft } = await staleCallerDraft({ 'src/app.ts': APP, 'src/big.ts': big });
    expect(view.file('src/big.ts')!.bytes).toBeGreaterThan(5_000);
    const weak = [driftCard(view, 'src/app.ts', 0.5), { ...draft, strength: 0.5 }];
    const context = changedOnly(['src/big.ts']);

    const gated = await fakeBackend();
    const result = await createModelAssist({ chat: chatFor(gated), gate: 'non_trivial', model: MODEL }).propose(view, weak, signal(), context);
    expect(result).toEqual({ revised: weak, added: [] });
    expect(gated.requests).toEqual([]);

    const never = await fakeBackend();
    const strong = [driftCard(view, 'src/app.ts', 0.9), candidate(view, 'src/app.ts', 0.9), draft];
    expect(await createModelAssist({ chat: chatFor(never), gate: 'never', model: MODEL }).propose(view, strong, signal(), changedOnly(['src/app.ts']))).toEqual({ revised: strong, added: [] });
    expect(never.requests).toEqual([]);

    // Under always the same weak cards and the large file are asked about; the file is cut to fit the prompt.
    const always = await fakeBackend();
    await createModelAssist({ chat: chatFor(always), gate: 'always', model: MODEL }).propose(view, weak, signal(), context);
    expect(passes(always)).toEqual(['draft', 'rationale', 'angle']);
    const angle = (always.bodies as FakeChatRequest[]).find((r) => passOf(r) === 'angle')!;
    expect(angle.messages[1]!.content).toContain('File: src/big.ts');
    expect(angle.messages[1]!.content).toContain('… (cut to fit)');
  });

  it('asks nothing about a card already stored with the same claim and evidence', async () => {
    const view = await viewOf(repoWith({ 'src/app.ts': APP }));
    const finding = candidate(view, 'src/app.ts', 0.9);
    const drift = driftCard(view, 'src/app.ts', 0.8);
    const backend = await fakeBackend();
    const stored: ModelContext = { changed: [], prepared: (c) => c.claim === drift.claim || c.claim === `brief|review.test_rule|${finding.claim}`, cites: () => false };

    const result = await createModelAssist({ chat: chatFor(backend), gate: 'always', model: MODEL }).propose(view, [finding, drift], signal(), stored);

    // The finding's brief is stored, so the finding gets the rationale instead; the drift card is stored as it is.
    expect(passes(backend)).toEqual(['rationale']);
    expect(result.added).toEqual([]);
    expect(result.revised[0]!.body).toContain('## Why this matters here');
    expect(result.revised[1]).toEqual(drift);
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
