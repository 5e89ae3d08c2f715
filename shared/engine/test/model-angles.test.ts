/**
 * Angles: the model's concerns about a recently changed file that no detector flagged. Only what is
 * grounded survives (the quote is found at or near the cited line of the indexed text); everything
 * else in an answer, garbage included, is dropped without an error.
 */
import { defaultConfig } from '@sous/config';
import { createChatClient } from '../../backend/src/chat';
import { buildRepositoryIndex, scopePolicyFromConfig } from '@sous/retrieval';
import { symbolParserPool } from '../../retrieval/src/symbols/parser-pool';
import { createRepositoryView, type RepositoryView } from '../src/view/repository-view';
import { createModelAssist, type ChatClient } from '../src/model/model-assist';
import { ANGLE_STRENGTH, parseAngles } from '../src/model/angles';
import type { ModelContext } from '../src/cycle/run-cycle';
import { startFakeBackend, type FakeBackend, type FakeBackendOptions, type FakeChatRequest } from '../../../test/support/fake-backend';
import { git, makeEmptyGitRepo, rmTempDir, writeFile } from '../../../test/support/tmp';

afterAll(() => symbolParserPool().release());

const MODEL = 'qwen2.5-coder:1.5b';
const APP = [
  "import { KEY } from './keys';",
  '',
  'export function charge(amount: number): string {',
  '  if (amount < 0) throw new Error("negative");',
  '  return `${KEY}:${amount}`;',
  '}',
  '',
].join('\n');

const dirs: string[] = [];
const backends: FakeBackend[] = [];
afterEach(async () => {
  for (const b of backends.splice(0)) await b.close();
  for (const dir of dirs.splice(0)) rmTempDir(dir);
});

async function viewOf(files: Record<string, string>): Promise<RepositoryView> {
  const dir = makeEmptyGitRepo('sous-model-angles-');
  dirs.push(dir);
  for (const [rel, content] of Object.entries(files)) writeFile(dir, rel, content);
  git(dir, ['add', '-A']);
  git(dir, ['commit', '-q', '-m', 'initial']);
  const policy = scopePolicyFromConfig(defaultConfig());
  return createRepositoryView(await buildRepositoryIndex(dir, policy), policy);
}

async function fakeBackend(answer: FakeBackendOptions['answer']): Promise<FakeBackend> {
  const backend = await startFakeBackend({ recordBodies: true, ...(answer ? { answer } : {}) });
  backends.push(backend);
  return backend;
}

const chatFor = (backend: FakeBackend): ChatClient => createChatClient({ name: 'fake', baseUrl: backend.baseUrl, model: MODEL, apiKeyEnv: '' }, { env: {}, timeoutMs: 5_000 });
const signal = (): AbortSignal => new AbortController().signal;
const context = (changed: string[], cites: ModelContext['cites'] = () => false): ModelContext => ({ changed, prepared: () => false, cites });
const askedAbout = (b: FakeBackend): string[] => (b.bodies as FakeChatRequest[]).map((r) => /^File: (.+)$/m.exec(r.messages[1]?.content ?? '')?.[1] ?? '?');
const line = (n: number, quote: string, concern: string): string => JSON.stringify({ line: n, quote, concern });

describe('model angles', () => {
  it('keeps a grounded angle as a bug hypothesis at the quoted line with the file hash, and drops the rest', async () => {
    const view = await viewOf({ 'src/app.ts': APP });
    const answer = [
      '<think>let me look</think>',
      line(4, 'throw new Error("negative")', 'A zero amount is charged without any check.'),
      // Cited one line off: found two lines below, within the slack, and moved to where it is.
      line(3, 'return `${KEY}:${amount}`', 'The key is joined into a string that may be logged.'),
      line(2, 'amount.toFixed(2)', 'Amounts are never rounded.'), // not in the file
      line(1, 'if (amount < 0)', 'Negative amounts throw.'), // in the file, but three lines away
      line(6, '}', 'The function ends abruptly.'), // too short to ground anything
      line(4, 'throw new Error("negative")', 'The same quote again.'), // one angle per quoted text
    ].join('\n');
    const backend = await fakeBackend(() => answer);
    const assist = createModelAssist({ chat: chatFor(backend), gate: 'non_trivial', model: MODEL });

    const { revised, added } = await assist.propose(view, [], signal(), context(['src/app.ts']));

    expect(revised).toEqual([]);
    expect(assist.lastError()).toBeUndefined();
    const hash = view.file('src/app.ts')!.sha256;
    expect(added).toHaveLength(2);
    expect(added.map((a) => a.evidence)).toEqual([
      [{ path: 'src/app.ts', lineStart: 4, lineEnd: 4, contentHash: hash, note: 'the line the concern quotes' }],
      [{ path: 'src/app.ts', lineStart: 5, lineEnd: 5, contentHash: hash, note: 'the line the concern quotes' }],
    ]);
    expect(added[0]).toMatchObject({
      kind: 'bug_hypothesis',
      detector: 'model.angle',
      claim: expect.stringMatching(/^src\/app\.ts\|[0-9a-f]{16}$/),
      title: 'Possible issue at src/app.ts:4: A zero amount is charged without any check.',
      summary: 'A zero amount is charged without any check.',
      action: 'Check src/app.ts:4 before building on it',
      strength: ANGLE_STRENGTH,
      targets: ['src/app.ts'],
      warnings: [`Proposed by the model ${MODEL} from the file's text; check it against line 4.`],
    });
    expect(added[0]!.body).toContain(`_Written by ${MODEL}: a hypothesis to check`);
    // Below every review finding (0.4 and up): an angle lands only when the rest of the score carries it.
    expect(ANGLE_STRENGTH).toBeLessThan(0.4);

    const prompt = (backend.bodies[0] as FakeChatRequest).messages;
    expect(prompt[0]!.content).toContain('JSON lines');
    expect(prompt[1]!.content).toContain('File: src/app.ts');
    expect(prompt[1]!.content).toContain('4 |   if (amount < 0) throw new Error("negative");');
  });

  it('takes no angle from a garbled answer, and says nothing failed', async () => {
    const view = await viewOf({ 'src/app.ts': APP });
    for (const garbage of ['Line 4 looks wrong to me.', '{"line": "four", "quote": 4}', '{not json at all', '[{"line": 4}]', '']) {
      const backend = await fakeBackend(() => garbage);
      const assist = createModelAssist({ chat: chatFor(backend), gate: 'non_trivial', model: MODEL });
      await expect(assist.propose(view, [], signal(), context(['src/app.ts']))).resolves.toEqual({ revised: [], added: [] });
      expect(backend.bodies).toHaveLength(1);
      expect(assist.lastError()).toBeUndefined();
    }
  });

  it('reads JSON lines, a fenced array or objects in prose, and keeps at most three grounded angles a file', async () => {
    expect(parseAngles('```json\n[{"line": 4, "quote": "a { b }", "concern": "c"}, {"line": "5", "quote": "q", "concern": "d"}]\n```')).toEqual([
      { line: 4, quote: 'a { b }', concern: 'c' },
      { line: 5, quote: 'q', concern: 'd' },
    ]);
    expect(parseAngles('First: {"line": 1, "quote": "x", "concern": "y"} and {"line": 0, "quote": "x", "concern": "y"} and {"line": 2, "quote": "x", "concern": ""}')).toEqual([{ line: 1, quote: 'x', concern: 'y' }]);

    const view = await viewOf({ 'src/app.ts': APP });
    const quoted: Array<[number, string]> = [[1, "import { KEY } from './keys'"], [3, 'export function charge'], [4, 'if (amount < 0)'], [5, 'return `${KEY}:${amount}`']];
    const backend = await fakeBackend(() => quoted.map(([n, q], i) => line(n, q, `Concern ${i}.`)).join('\n'));
    const { added } = await createModelAssist({ chat: chatFor(backend), gate: 'non_trivial', model: MODEL }).propose(view, [], signal(), context(['src/app.ts']));
    expect(added.map((a) => a.evidence[0]!.lineStart)).toEqual([1, 3, 4]);
  });

  it('asks only about recently changed, indexed, in-scope, small code files, and not twice about the same version', async () => {
    const big = `export const rows = [\n${Array.from({ length: 400 }, (_, i) => `  { id: ${i}, name: "row number ${i}" },`).join('\n')}\n];\n`;
    const view = await viewOf({ 'src/app.ts': APP, 'src/util.ts': 'export const one = 1;\n', 'src/big.ts': big, 'docs/guide.md': '# Guide\n\nCall `charge`.\n', 'src/local.env': 'TOKEN=1\n' });
    expect(view.file('src/local.env')).toBeUndefined();
    const changed = ['docs/guide.md', 'src/local.env', 'src/big.ts', 'src/gone.ts', 'src/app.ts', 'src/util.ts'];
    const backend = await fakeBackend(() => '');
    const assist = createModelAssist({ chat: chatFor(backend), gate: 'non_trivial', model: MODEL });

    await assist.propose(view, [], signal(), context(changed));
    expect(askedAbout(backend)).toEqual(['src/app.ts']);
    // The next cycle goes on to the next file: src/app.ts was asked about in this version.
    await assist.propose(view, [], signal(), context(changed));
    expect(askedAbout(backend)).toEqual(['src/app.ts', 'src/util.ts']);
    await assist.propose(view, [], signal(), context(changed));
    expect(askedAbout(backend)).toEqual(['src/app.ts', 'src/util.ts']);

    // A new assist (the daemon restarted) skips files an open angle card already cites in this version.
    const fresh = await fakeBackend(() => '');
    const app = view.file('src/app.ts')!.sha256;
    await createModelAssist({ chat: chatFor(fresh), gate: 'non_trivial', model: MODEL }).propose(view, [], signal(), context(['src/app.ts', 'src/util.ts'], (d, p, h) => d === 'model.angle' && p === 'src/app.ts' && h === app));
    expect(askedAbout(fresh)).toEqual(['src/util.ts']);
  });
});
