/**
 * The intent engine's remaining parts on a real store (PGlite): the `history` source (feedback and
 * adoption raise, negative feedback lowers, a new registry on the same store still serves it),
 * `composer_event_id` attributed to resolutions on a submitted draft, the `category_shift` signal
 * (no clock: only the sequence of resolutions), and the policy bundle's dimensions (goal weighting,
 * drafting, context injection), each changing behaviour. The briefing function stands in for the
 * live index (the daemon tests use the real one).
 */
import { createHash, randomUUID } from 'node:crypto';
import type { DraftIntentSnapshot } from '@sous/protocol';
import type { Store } from '@sous/store';
import { pgliteFactory } from '../../store/test/helpers';
import { DEFAULT_INTENT_POLICY, Goals, Predictions, Resolver, detectShift, ingestComposerSnapshot, type Briefing, type FeedCard, type IntentPolicy } from '../src';

/** Three files per area, so categories and evidence matches have something to compare. */
const AREAS: Record<string, string[]> = { parser: ['src/parser/a.ts', 'src/parser/b.ts', 'src/parser/c.ts'], docs: ['docs/x.md', 'docs/y.md', 'docs/z.md'] };
const itemsFor = (prompt: string) => (/docs/i.test(prompt) ? AREAS.docs! : AREAS.parser!).map((path, i) => ({ path, score: 1 - i / 10, rationale: [`matched ${i}`], lines: { start: 1, end: 5 } }));

describe.each([pgliteFactory()])('intent on a real store ($name)', (factory) => {
  let store: Store;
  beforeAll(async () => {
    store = await factory.open();
  }, 60_000);
  afterAll(async () => {
    await store.close();
    await factory.cleanup();
  });

  async function engine(opts: { workspaceId?: string; policy?: IntentPolicy; cards?: FeedCard[]; commits?: Array<{ subject: string; files: string[] }> } = {}) {
    const workspaceId = opts.workspaceId ?? (await store.workspaces.upsertByRoot({ rootPath: `/tmp/intent-${randomUUID()}` })).id;
    const policy = { current: opts.policy ?? { ...DEFAULT_INTENT_POLICY } };
    const hashOf = async (p: string): Promise<string | null> => `h-${p}`;
    const brief = async (prompt: string): Promise<Briefing> => ({ items: itemsFor(prompt) });
    const predictions = new Predictions({ store, workspaceId, hashOf, brief, policy: () => policy.current, ...(opts.commits ? { commits: async () => opts.commits! } : {}) });
    const resolver = new Resolver({
      store,
      workspaceId,
      brief,
      predictions: () => predictions.active(),
      candidates: (adopted) => predictions.candidates(adopted),
      readyCards: async () => opts.cards ?? [],
      policy: () => policy.current,
      categoryShift: (shift) => predictions.categoryShift(shift),
      feedbackRecorded: () => predictions.history(),
    });
    return { workspaceId, predictions, resolver, goals: new Goals({ store, workspaceId, hashOf }), policy };
  }

  describe('history source', () => {
    test('useful feedback seeds a history prediction a repeat of the request hits; negative feedback lowers it, then drops it', async () => {
      const { workspaceId, predictions, resolver } = await engine();
      const first = await resolver.resolve({ prompt: 'Where is the parser entry point?' });
      expect(first).toMatchObject({ cache: 'miss', match: null });
      expect((await predictions.dashboard()).by_source.history).toBeUndefined();

      await resolver.feedback(first.resolution_id, 'useful');
      const [history] = (await predictions.active()).filter((p) => p.source === 'history');
      expect(history).toMatchObject({ state: 'ready', weight: 0.45, category: 'src/parser', prompt_key: expect.stringMatching(/^[0-9a-f]{64}$/) });
      expect(history!.briefing!.items.map((i) => i.path)).toEqual(AREAS.parser);
      expect(history!.prompt).not.toMatch(/entry point/);

      // The same request retyped (order, case, punctuation) is a hit; another request is not.
      const again = await resolver.resolve({ prompt: 'the parser entry point: where is' });
      expect(again).toMatchObject({ cache: 'hit', match: 'prompt', similarity: 1, prediction_id: history!.id });
      // Another request about the same files matches by evidence only.
      expect((await resolver.resolve({ prompt: 'where is the parser exit point' })).match).toBe('evidence');

      // A new registry and resolver on the same store (a daemon restart) still serve it.
      const restarted = await engine({ workspaceId });
      await restarted.predictions.history();
      expect((await restarted.resolver.resolve({ prompt: 'where is the parser entry point' })).prediction_id).toBe(history!.id);

      await resolver.feedback(again.resolution_id, 'wrong');
      expect((await predictions.active()).find((p) => p.source === 'history')).toMatchObject({ id: history!.id, weight: 0.225 });
      await resolver.feedback(again.resolution_id, 'irrelevant');
      expect((await predictions.active()).filter((p) => p.source === 'history')).toEqual([]);
    });

    test('a submitted draft attributes its composer event to the session\'s resolutions (adoption), which raises history', async () => {
      const { workspaceId, predictions, resolver } = await engine();
      const r = await resolver.resolve({ prompt: 'rename the docs index', composerSessionId: 'sess-a' });
      const other = await resolver.resolve({ prompt: 'rename the docs index', composerSessionId: 'sess-b' });
      expect(r.composer_event_id).toBeNull();
      const snapshot: DraftIntentSnapshot = {
        session_id: 'sess-a',
        snapshot_id: '01JDX7W2Q8S3K4M5N6P7R8T9V0',
        timestamp: '2026-11-26T02:00:00.000Z',
        lifecycle_state: 'submitted',
        text_hash: createHash('sha256').update('x').digest('hex'),
        length_chars: 1,
        capabilities: { level: 'L0', emits: ['submitted'], host_app: 'claude-code', host_kind: 'cli' },
      } as DraftIntentSnapshot;
      const intake = await ingestComposerSnapshot(store, workspaceId, snapshot, 'coding', predictions);
      expect(intake.resolution_ids).toEqual([r.resolution_id]);
      expect(await resolver.explain(r.resolution_id)).toMatchObject({ composer_event_id: intake.composer_event_id, composer_session_id: 'sess-a' });
      expect((await resolver.explain(other.resolution_id)).composer_event_id).toBeNull();
      expect((await predictions.active()).filter((p) => p.source === 'history').map((p) => p.weight)).toEqual([0.45]);
      // A second submitted event of the session keeps the first attribution.
      expect((await ingestComposerSnapshot(store, workspaceId, snapshot, 'coding', predictions)).resolution_ids).toEqual([]);
    });
  });

  describe('category_shift', () => {
    test('detectShift: a new category established after another was is a shift; a one-off request is not', () => {
      expect(detectShift(['docs', 'docs', 'src', 'src'])).toEqual({ from: 'src', to: 'docs' });
      expect(detectShift(['docs', 'src', 'src'])).toBeUndefined();
      expect(detectShift(['src', 'src', 'docs', 'src', 'src'])).toBeUndefined();
      expect(detectShift(['docs', 'docs', 'docs', 'src', 'src'])).toBeUndefined();
      expect(detectShift(['docs', undefined, 'docs', 'src', 'src'])).toEqual({ from: 'src', to: 'docs' });
      expect(detectShift(['docs', 'docs'])).toBeUndefined();
    });

    test('requests moving from src/parser to docs stale the inferred predictions prepared for src/parser; goals stay', async () => {
      const { workspaceId, predictions, resolver, goals } = await engine();
      await predictions.signal('file_change', ['src/parser/a.ts']);
      const goal = await goals.declare({ title: 'Split the parser', related_files: ['src/parser/a.ts'] });
      await predictions.goalChanged(goal.id);
      const arc = (await predictions.active()).find((p) => p.source === 'arc')!;
      expect(arc).toMatchObject({ state: 'ready', category: 'src/parser', weight: 0.6 });

      expect((await resolver.resolve({ prompt: 'fix the tokenizer' })).category_shift).toBeNull();
      expect((await resolver.resolve({ prompt: 'fix the grammar' })).category_shift).toBeNull();
      // One docs request between parser requests is no shift.
      expect((await resolver.resolve({ prompt: 'docs typo' })).category).toBe('docs');
      expect((await resolver.resolve({ prompt: 'fix the lexer' })).category_shift).toBeNull();
      expect((await predictions.active()).map((p) => p.id)).toContain(arc.id);

      expect((await resolver.resolve({ prompt: 'rewrite the docs intro' })).category_shift).toBeNull();
      const shifted = await resolver.resolve({ prompt: 'docs for the install page' });
      expect(shifted.category_shift).toEqual({ from: 'src/parser', to: 'docs', stale: 1 });
      const all = (await predictions.dashboard()).predictions;
      expect(all.find((p) => p.id === arc.id)).toMatchObject({ state: 'stale', stale_reason: 'category_shift', weight: 0.3, briefing: null });
      expect(all.find((p) => p.goal_id === goal.id)).toMatchObject({ state: 'ready', weight: 1 });
      const signals = await store.signals.listRecent('category_shift', { workspaceId });
      expect(signals.map((s) => s.payload)).toEqual([{ from: 'src/parser', to: 'docs', stale: 1 }]);
      // Staying in docs is no further shift.
      expect((await resolver.resolve({ prompt: 'docs again' })).category_shift).toBeNull();
    });
  });

  describe('policy bundle dimensions', () => {
    test('goal weighting sets goal predictions\' weight; a bundle switch re-weighs live ones on the next refresh', async () => {
      const { predictions, goals, policy } = await engine({ policy: { ...DEFAULT_INTENT_POLICY, goalWeighting: 1.4 } });
      const goal = await goals.declare({ title: 'Deep work', related_files: ['src/parser/a.ts'] });
      await predictions.goalChanged(goal.id);
      expect((await predictions.active()).find((p) => p.goal_id === goal.id)!.weight).toBe(1.4);
      policy.current = { ...DEFAULT_INTENT_POLICY, goalWeighting: 0.8 };
      await predictions.refresh();
      expect((await predictions.active()).find((p) => p.goal_id === goal.id)!.weight).toBe(0.8);
    });

    test('drafting (prediction style) scales how many recurring patterns are kept prepared', async () => {
      const commits = ['fix', 'add', 'update', 'remove'].flatMap((verb) => [0, 1, 2].map((i) => ({ subject: `${verb} thing ${i}`, files: [`${verb}dir/f${i}.ts`] })));
      const light = await engine({ commits, policy: { ...DEFAULT_INTENT_POLICY, drafting: 0.8 } });
      await light.predictions.patterns();
      expect((await light.predictions.active()).filter((p) => p.source === 'pattern')).toHaveLength(2);
      const heavy = await engine({ commits, policy: { ...DEFAULT_INTENT_POLICY, drafting: 1.2 } });
      await heavy.predictions.patterns();
      expect((await heavy.predictions.active()).filter((p) => p.source === 'pattern')).toHaveLength(4);
    });

    test('context injection: digest_only, policy_hybrid, top_match_auto_include and adopted_package_only compose different briefings', async () => {
      const card = { id: 'card-1', kind: 'review', title: 'Review docs/x.md', evidence: [{ path: 'docs/x.md' }] } as unknown as FeedCard;
      const { predictions, resolver, goals, policy } = await engine({ cards: [card] });
      const goal = await goals.declare({ title: 'Polish the parser', related_files: ['src/parser/a.ts'] });
      await predictions.goalChanged(goal.id);
      const prepared = (await predictions.active()).find((p) => p.goal_id === goal.id)!;

      policy.current = { ...DEFAULT_INTENT_POLICY, contextInjection: 'policy_hybrid' };
      const hybrid = await resolver.resolve({ prompt: 'docs layout' });
      expect(hybrid).toMatchObject({ cache: 'miss', auto_included: null, cards: [{ id: 'card-1' }] });
      expect(hybrid.briefing).toContain('docs/x.md:1-5 — matched 0');

      policy.current = { ...DEFAULT_INTENT_POLICY, contextInjection: 'digest_only' };
      const digest = await resolver.resolve({ prompt: 'docs layout' });
      expect(digest.cards).toEqual([]);
      expect(digest.briefing.split('\n')).toEqual(['docs/x.md:1-5', 'docs/y.md:1-5', 'docs/z.md:1-5']);

      policy.current = { ...DEFAULT_INTENT_POLICY, contextInjection: 'top_match_auto_include' };
      const top = await resolver.resolve({ prompt: 'docs on how to polish' });
      expect(top).toMatchObject({ cache: 'miss', auto_included: prepared.id });
      expect(top.briefing).toContain(`Also prepared for: ${prepared.prompt}`);
      expect(top.evidence.map((e) => e.path)).toEqual([...AREAS.docs!, ...AREAS.parser!]);

      policy.current = { ...DEFAULT_INTENT_POLICY, contextInjection: 'adopted_package_only' };
      const notAdopted = await resolver.resolve({ prompt: prepared.prompt });
      expect(notAdopted).toMatchObject({ cache: 'miss', cards: [] });
      await predictions.adopt(prepared.id);
      expect(await resolver.resolve({ prompt: prepared.prompt })).toMatchObject({ cache: 'hit', match: 'prompt', prediction_id: prepared.id });
      policy.current = { ...DEFAULT_INTENT_POLICY, contextInjection: 'policy_hybrid' };
      expect((await resolver.resolve({ prompt: prepared.prompt })).cache).toBe('miss');
    });

    test('a prompt whose live evidence lies in a prepared briefing is an evidence hit', async () => {
      const { predictions, resolver, goals } = await engine();
      const goal = await goals.declare({ title: 'Polish the parser', related_files: ['src/parser/a.ts'] });
      await predictions.goalChanged(goal.id);
      const prepared = (await predictions.active()).find((p) => p.goal_id === goal.id)!;
      const r = await resolver.resolve({ prompt: 'why does tokenizing fail on tabs' });
      expect(r).toMatchObject({ cache: 'hit', match: 'evidence', prediction_id: prepared.id });
      expect(r.similarity).toBeLessThan(0.6);
      expect((await resolver.explain(r.resolution_id)).rationale[0]).toMatch(/^Matched prediction .* by evidence/);
      expect((await resolver.resolve({ prompt: 'docs index' })).cache).toBe('miss');
    });
  });
});
