/**
 * `exploration.confirm_held` in real cycles (real repository and index, real detectors, PGlite store,
 * our fake OpenAI-compatible backend): a held docs-drift name reaches the feed only when the user
 * lets the model check it and the model answers STALE; a KEEP keeps it a candidate and says why; a
 * verdict is given once per version of the evidence, survives cycles without a model, and a failed
 * call gives none.
 */
import { randomUUID } from 'node:crypto';
import { defaultConfig, type SousConfig } from '@sous/config';
import { buildRepositoryIndex, scopePolicyFromConfig, type RepositoryIndex } from '@sous/retrieval';
import type { Store } from '@sous/store';
import { createChatClient } from '../../backend/src/chat';
import { pgliteFactory } from '../../store/test/helpers';
import { symbolParserPool } from '../../retrieval/src/symbols/parser-pool';
import { startFakeBackend, type FakeBackend, type FakeChatRequest } from '../../../test/support/fake-backend';
import { git, makeGitRepo, rmTempDir, writeFile } from '../../../test/support/tmp';
import { PreparedWork, createModelAssist, createRepositoryView, defaultDetectors, runCycle, type ModelAssist } from '../src';
import { readVerdict } from '../src/model/check-held';

const MODEL = 'qwen2.5-coder:7b';
const factory = pgliteFactory();
const MODES = ['legacyMode', 'strictMode', 'fastMode'] as const;
const CONFIG = (modes: readonly string[]) => ['export function parseConfig(text: string): string {', '  return text.trim();', '}', ...modes.flatMap((m) => ['', `export function ${m}(): boolean {`, '  return false;', '}'])].join('\n') + '\n';

/** A check request, by its system prompt. */
const isCheck = (r: FakeChatRequest): boolean => (r.messages[0]?.content ?? '').startsWith('You check one finding');

describe('held findings the model checks (exploration.confirm_held)', () => {
  let store: Store;
  let repo: string;
  let index: RepositoryIndex;
  let backend: FakeBackend;
  /** Mode names whose check answers with a failure (a backend that lost its model). */
  const failing = new Set<string>();

  beforeAll(async () => {
    store = await factory.open();
    backend = await startFakeBackend({
      recordBodies: true,
      answer: (r) => {
        if (!isCheck(r)) return 'none';
        const user = r.messages[1]?.content ?? '';
        if ([...failing].some((m) => user.includes(m))) throw new Error('model not loaded');
        // strictMode is, say, the framework's own option: the model keeps the doc as it is.
        if (user.includes('strictMode')) return 'KEEP. The page names the framework option strictMode, not the removed function.';
        return '**STALE** - the page still tells readers to call a function the commit removed.';
      },
    });
    repo = makeGitRepo();
    writeFile(repo, 'src/config.ts', CONFIG(MODES));
    for (const m of MODES) writeFile(repo, `docs/${m}.md`, `# ${m}\n\nTurn on \`${m}()\` for old repositories.\n`);
    git(repo, ['add', '-A']);
    git(repo, ['commit', '-q', '-m', 'config and docs']);
    // One commit per removal: one card each.
    for (const [i, m] of MODES.entries()) {
      writeFile(repo, 'src/config.ts', CONFIG(MODES.slice(i + 1)));
      git(repo, ['commit', '-q', '-am', `Drop ${m}`]);
    }
    // A flag declared by its bare name in an option table, then dropped.
    writeFile(repo, 'src/cli.ts', `export const options = {\n  'dry-run': { type: 'boolean', describe: 'print only' },\n  verbose: { type: 'boolean' },\n};\n`);
    writeFile(repo, 'docs/cli.md', '# CLI\n\nRun `sous sync --dry-run` first.\n');
    git(repo, ['add', '-A']);
    git(repo, ['commit', '-q', '-m', 'cli and its docs']);
    writeFile(repo, 'src/cli.ts', `export const options = {\n  verbose: { type: 'boolean' },\n};\n`);
    git(repo, ['commit', '-q', '-am', 'Drop dry runs']);
    index = await buildRepositoryIndex(repo, scopePolicyFromConfig(defaultConfig()));
  });

  afterAll(async () => {
    await backend?.close();
    await store?.close();
    await factory.cleanup();
    rmTempDir(repo);
    symbolParserPool().release();
  });

  async function workspace(confirm: string[]) {
    const config: SousConfig = defaultConfig();
    config.exploration.confirm_held = confirm;
    const policy = scopePolicyFromConfig(config);
    const workspaceId = (await store.workspaces.upsertByRoot({ rootPath: `${repo}-${randomUUID()}` })).id;
    const hash = async (path: string) => index.file(path)?.sha256 ?? null;
    const work = new PreparedWork({ store, workspaceId, policy: () => policy, indexedHash: hash, diskHash: hash });
    const cycle = (model?: ModelAssist) =>
      runCycle({ store, workspaceId, view: createRepositoryView(index, policy), trigger: { kind: 'warm' }, config, detectors: defaultDetectors(), ...(model ? { model } : {}) });
    /** The name cards by mode: state, state reason, and the warnings inspect shows. */
    const names = async () => {
      const cards = await work.list({ kinds: ['docs_drift'], states: ['ready', 'candidate'] });
      const out: Record<string, { state: string; reason: string | null; warnings: string[] }> = {};
      for (const card of cards) {
        const mode = MODES.find((m) => card.title.includes(`\`${m}\``));
        if (mode === undefined || card.diagnostic?.detector !== 'docs_drift.removed_name') continue;
        out[mode] = { state: card.diagnostic.state, reason: card.diagnostic.state_reason, warnings: (await work.inspect(card.id)).warnings as string[] };
      }
      return out;
    };
    return { cycle, names, work };
  }

  const assist = () => createModelAssist({ chat: createChatClient({ name: 'fake', baseUrl: backend.baseUrl, model: MODEL, apiKeyEnv: '' }, { env: {} }), gate: 'non_trivial', model: MODEL });
  const checksSince = (from: number): FakeChatRequest[] => (backend.bodies as FakeChatRequest[]).slice(from).filter(isCheck);

  it('asks nothing by default: the held names stay candidates', async () => {
    const { cycle, names } = await workspace([]);
    const from = backend.bodies.length;
    await cycle(assist());
    expect(checksSince(from)).toEqual([]);
    const cards = await names();
    expect(Object.keys(cards).sort()).toEqual([...MODES].sort());
    for (const m of MODES) expect(cards[m]).toMatchObject({ state: 'candidate', reason: expect.stringContaining('exploration.detectors_held names docs_drift.removed_name') });
  });

  it('shows what the model confirms, keeps what it does not, and asks once per finding, a few per cycle', async () => {
    const { cycle, names } = await workspace(['docs_drift.removed_name']);
    const model = assist();
    let from = backend.bodies.length;
    await cycle(model);
    // Two checks a cycle (CHECK_CALLS_PER_CYCLE); the third finding waits for the next one.
    const first = checksSince(from);
    expect(first).toHaveLength(2);
    // The prompt holds the doc's line and what the removing commit took out.
    const prompt = first[0]!.messages[1]!.content;
    const asked = MODES.find((m) => prompt.includes(`Turn on \`${m}()\``))!;
    expect(prompt).toContain(`-export function ${asked}(): boolean {`);

    from = backend.bodies.length;
    await cycle(model);
    expect(checksSince(from)).toHaveLength(1);
    from = backend.bodies.length;
    await cycle(model);
    expect(checksSince(from)).toEqual([]);

    const cards = await names();
    for (const m of ['legacyMode', 'fastMode']) {
      expect(cards[m]!.state).toBe('ready');
      expect(cards[m]!.warnings.join('\n')).toContain(`the model ${MODEL} confirmed this finding from the cited lines (exploration.confirm_held): the page still tells readers to call a function the commit removed.`);
    }
    expect(cards['strictMode']).toMatchObject({ state: 'candidate', reason: expect.stringContaining(`the model ${MODEL} did not confirm it: The page names the framework option strictMode, not the removed function.`) });

    // Without a model the verdicts stored with the cards still hold.
    await cycle();
    expect(Object.fromEntries(Object.entries(await names()).map(([m, c]) => [m, c.state]))).toEqual({ legacyMode: 'ready', fastMode: 'ready', strictMode: 'candidate' });
  });

  it('gives no verdict when the call fails: the finding stays held and is asked about again', async () => {
    const { cycle, names } = await workspace(['docs_drift.removed_name']);
    const model = assist();
    failing.add('legacyMode');
    failing.add('strictMode');
    failing.add('fastMode');
    try {
      const from = backend.bodies.length;
      await cycle(model);
      // The first failure stops the pass: the backend is down for this cycle.
      expect(checksSince(from)).toHaveLength(1);
      expect(model.lastError()).toContain('model not loaded');
      for (const c of Object.values(await names())) expect(c.state).toBe('candidate');
    } finally {
      failing.clear();
    }
    const from = backend.bodies.length;
    await cycle(model);
    const checked = checksSince(from).map((r) => MODES.find((m) => r.messages[1]!.content.includes(`Turn on \`${m}()\``)));
    expect(checked).toHaveLength(2);
    const ready = Object.entries(await names()).filter(([, c]) => c.state === 'ready').map(([m]) => m);
    expect(ready.sort()).toEqual(checked.filter((m) => m !== 'strictMode').sort());
  });

  it("checks a held flag with a flag's instructions and the line of the option table that declared it", async () => {
    const { cycle, work } = await workspace(['docs_drift.removed_flag']);
    const from = backend.bodies.length;
    await cycle(assist());
    const checks = checksSince(from);
    expect(checks).toHaveLength(1);
    const [system, user] = checks[0]!.messages.map((m) => m.content);
    expect(system).toContain('a flag of another program such as git');
    expect(user).toContain("-  'dry-run': { type: 'boolean', describe: 'print only' },");
    expect(user).toContain('Run `sous sync --dry-run` first.');
    const flag = (await work.list({ kinds: ['docs_drift'], states: ['ready', 'candidate'] })).find((c) => c.diagnostic?.detector === 'docs_drift.removed_flag');
    expect(flag?.diagnostic?.state).toBe('ready');
  });

  it('spends no call on a finding that would stay a candidate anyway (its detector suppressed by feedback)', async () => {
    const { cycle, names, work } = await workspace(['docs_drift.removed_name']);
    await cycle();
    const card = (await work.list({ kinds: ['docs_drift'], states: ['candidate'] })).find((c) => c.diagnostic?.detector === 'docs_drift.removed_name')!;
    // Three "wrong" judgements: the user has told Sous these cards are not worth showing.
    for (let i = 0; i < 3; i++) await store.feedback.record({ workProductId: card.id, value: 'wrong' });
    const from = backend.bodies.length;
    await cycle(assist());
    expect(checksSince(from)).toEqual([]);
    for (const c of Object.values(await names())) expect(c.state).toBe('candidate');
  });

  it('reads STALE or KEEP on the first word, in any dress, and refutes anything else', () => {
    const view = createRepositoryView(index, scopePolicyFromConfig(defaultConfig()));
    expect(readVerdict('**STALE** — the doc still calls it.', 'm', view)).toEqual({ verdict: 'confirmed', model: 'm', why: 'the doc still calls it.' });
    expect(readVerdict('<think>hmm</think>\nkeep: another library', 'm', view)).toEqual({ verdict: 'refuted', model: 'm', why: 'another library' });
    expect(readVerdict('Stale', 'm', view)).toEqual({ verdict: 'confirmed', model: 'm', why: 'no reason given' });
    expect(readVerdict('I think the doc is stale.', 'm', view)).toMatchObject({ verdict: 'refuted', why: expect.stringContaining('unclear') });
    expect(readVerdict('STALEMATE', 'm', view).verdict).toBe('refuted');
  });
});
