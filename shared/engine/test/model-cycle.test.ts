/**
 * The model's share of a real cycle (real repository index, real detectors, PGlite store, our fake
 * OpenAI-compatible backend): rationales ride on their cards without moving a score, the draft that
 * adopt hands over is the model's, a grounded angle lands as a card, and later cycles spend no call
 * on what is already stored, with or without a model.
 */
import { randomUUID } from 'node:crypto';
import { defaultConfig } from '@sous/config';
import { buildRepositoryIndex, scopePolicyFromConfig, type RepositoryIndex } from '@sous/retrieval';
import type { Store } from '@sous/store';
import { createChatClient } from '../../backend/src/chat';
import { pgliteFactory } from '../../store/test/helpers';
import { symbolParserPool } from '../../retrieval/src/symbols/parser-pool';
import { startFakeBackend, type FakeBackend, type FakeChatRequest } from '../../../test/support/fake-backend';
import { git, makeGitRepo, rmTempDir, writeFile } from '../../../test/support/tmp';
import { PreparedWork, createModelAssist, createRepositoryView, defaultDetectors, runCycle, type ModelAssist } from '../src';

const MODEL = 'qwen2.5-coder:1.5b';
const RATIONALE = 'Readers who follow the guide open a file that is no longer there.';
const REQUEST = 'Update the call `total(1, 2)` in src/report.ts line 2 to pass a third term, then run the tests.';
// The defaults: this cycle checks rationales on the move's patch too (moves' patches are on).
const config = defaultConfig();
// The review finding the model writes a brief and a draft for is a stale caller, held by default: let it into the feed.
config.exploration.detectors_held = config.exploration.detectors_held.filter((d) => d !== 'review.stale_callers');
const policy = scopePolicyFromConfig(config);
const factory = pgliteFactory();

/** Which pass a chat request belongs to, by its system prompt. */
function passOf(request: FakeChatRequest): string {
  const system = request.messages[0]?.content ?? '';
  return system.includes('research brief') ? 'brief' : system.includes('why a finding matters') ? 'rationale' : system.includes('next request') ? 'draft' : system.includes('JSON lines') ? 'angle' : '?';
}

describe('the model in a preparation cycle', () => {
  let store: Store;
  let repo: string;
  let index: RepositoryIndex;
  let backend: FakeBackend;

  beforeAll(async () => {
    store = await factory.open();
    backend = await startFakeBackend({
      recordBodies: true,
      answer: (r) => {
        const pass = passOf(r);
        if (pass === 'rationale') return RATIONALE;
        if (pass === 'draft') return REQUEST;
        if (pass === 'angle') return r.messages[1]!.content.includes('File: src/math.ts') ? '{"line": 2, "quote": "return a + b + c;", "concern": "Callers that pass two terms now add undefined and get NaN."}' : 'none';
        return undefined;
      },
    });
    repo = makeGitRepo();
    // A doc linking a file a later commit moved: a docs drift card and its patch with the default detectors.
    writeFile(repo, 'src/config.ts', 'export function parseConfig(text: string): Record<string, string> {\n  return JSON.parse(text);\n}\n');
    writeFile(repo, 'docs/guide.md', '# Guide\n\nRead the settings with [the config reader](../src/config.ts) before starting.\n');
    writeFile(repo, 'src/math.ts', 'export function total(a: number, b: number): number {\n  return a + b;\n}\n');
    writeFile(repo, 'src/report.ts', "import { total } from './math';\nexport const sum = total(1, 2);\n");
    git(repo, ['add', '-A']);
    git(repo, ['commit', '-q', '-m', 'config, guide, math']);
    git(repo, ['mv', 'src/config.ts', 'src/settings.ts']);
    git(repo, ['commit', '-q', '-m', 'Move the config reader']);
    writeFile(repo, 'src/math.ts', 'export function total(a: number, b: number, c: number): number {\n  return a + b + c;\n}\n');
    index = await buildRepositoryIndex(repo, policy);
  });

  afterAll(async () => {
    await backend?.close();
    await store?.close();
    await factory.cleanup();
    rmTempDir(repo);
    symbolParserPool().release();
  });

  async function workspace(): Promise<{ work: PreparedWork; cycle: (model?: ModelAssist) => ReturnType<typeof runCycle> }> {
    const workspaceId = (await store.workspaces.upsertByRoot({ rootPath: `${repo}-${randomUUID()}` })).id;
    const hash = async (path: string) => index.file(path)?.sha256 ?? null;
    const work = new PreparedWork({ store, workspaceId, policy: () => policy, indexedHash: hash, diskHash: hash });
    const cycle = (model?: ModelAssist) =>
      runCycle({ store, workspaceId, view: createRepositoryView(index, policy), trigger: { kind: 'warm' }, config, detectors: defaultDetectors(), ...(model ? { model } : {}) });
    return { work, cycle };
  }

  it('attaches rationales without moving scores, hands over the model draft, lands a grounded angle, and asks nothing twice', async () => {
    const heuristic = await workspace();
    await heuristic.cycle();
    const scoreOf = async (work: PreparedWork, kind: 'docs_drift' | 'virtual_diff') => (await work.list({ kinds: [kind] }))[0]?.diagnostic?.score;

    const { work, cycle } = await workspace();
    const assist = createModelAssist({ chat: createChatClient({ name: 'fake', baseUrl: backend.baseUrl, model: MODEL, apiKeyEnv: '' }, { env: {} }), gate: 'non_trivial', model: MODEL });
    await cycle(assist);
    const calls = (backend.bodies as FakeChatRequest[]).map(passOf);
    expect(calls).toEqual(['brief', 'draft', 'rationale', 'angle', 'rationale']);

    // Rationales on the docs drift and its patch: in the body, and the scores are the heuristic ones.
    for (const kind of ['docs_drift', 'virtual_diff'] as const) {
      const [card] = await work.list({ kinds: [kind] });
      expect(await scoreOf(work, kind)).toBe(await scoreOf(heuristic.work, kind));
      const body = String((await work.inspect(card!.id)).body);
      expect(body).toContain(`## Why this matters here\n\n${RATIONALE}\n\n_Written by ${MODEL} from the cited lines`);
    }

    // The angle: grounded at line 2 of the uncommitted math.ts, and ready (relevance 1 carries 0.35 strength).
    const [angle] = await work.list({ kinds: ['bug_hypothesis'] });
    expect(angle).toMatchObject({ title: 'Possible issue at src/math.ts:2: Callers that pass two terms now add undefined and get NaN.', diagnostic: { state: 'ready', detector: 'model.angle' } });
    expect(angle!.evidence).toEqual([{ path: 'src/math.ts', line_start: 2, line_end: 2, commit: null, note: 'the line the concern quotes', content_hash: index.file('src/math.ts')!.sha256 }]);

    // A second cycle: cards with model text are not asked about again; the strong card the first
    // cycle's budget left without a rationale gets it now, and the next changed file is asked for angles.
    const [draft] = await work.list({ kinds: ['prediction_draft'], states: ['ready'] });
    await cycle(assist);
    expect((backend.bodies as FakeChatRequest[]).slice(calls.length).map(passOf)).toEqual(['rationale', 'angle']);
    const third = backend.bodies.length;
    await cycle(assist);
    expect((backend.bodies as FakeChatRequest[]).slice(third).map(passOf)).not.toContain('rationale');

    // A third, without a model: the kept draft still hands over the prompt its body shows.
    await cycle();
    expect((await work.list({ kinds: ['prediction_draft'], states: ['ready'] })).map((d) => d.id)).toEqual([draft!.id]);
    const adopted = await work.adopt(draft!.id);
    expect(adopted.prompt).toBe(REQUEST);
    expect(adopted.briefing).toContain(`## Draft prompt\n\n${REQUEST}\n\n_Written by ${MODEL}`);
    expect(adopted.briefing).toContain('`src/report.ts:2`');
  });

  it('adds the model text to cards stored while the backend was down, and adopt hands over the new draft', async () => {
    const { work, cycle } = await workspace();
    await cycle();
    const [drift] = await work.list({ kinds: ['docs_drift'] });
    const [draft] = await work.list({ kinds: ['prediction_draft'], states: ['ready'] });
    expect(String((await work.inspect(drift!.id)).body)).not.toContain('## Why this matters here');

    const assist = createModelAssist({ chat: createChatClient({ name: 'fake', baseUrl: backend.baseUrl, model: MODEL, apiKeyEnv: '' }, { env: {} }), gate: 'non_trivial', model: MODEL });
    await cycle(assist);
    // Same cards (no duplicate, nothing superseded), now with what the model wrote.
    expect((await work.list({ kinds: ['docs_drift'] })).map((c) => c.id)).toEqual([drift!.id]);
    expect(String((await work.inspect(drift!.id)).body)).toContain(`## Why this matters here\n\n${RATIONALE}`);
    expect((await work.list({ kinds: ['prediction_draft'], states: ['ready'] })).map((d) => d.id)).toEqual([draft!.id]);
    const adopted = await work.adopt(draft!.id);
    expect(adopted.prompt).toBe(REQUEST);
    expect(adopted.briefing).toContain(`## Draft prompt\n\n${REQUEST}`);
  });
});
