/**
 * The cycle's landing rules on a real repository index and a real store (PGlite and PostgreSQL):
 * thresholds, no duplicates, supersede, sticky dismissal, feedback suppression, retirement,
 * staleness and regeneration, the feed cap, and the privacy scope of evidence. The detector here is
 * a test plugin that proposes what each test tells it to; the cycle around it is the real one.
 */
import { randomUUID } from 'node:crypto';
import { defaultConfig } from '@sous/config';
import { buildRepositoryIndex, scopePolicyFromConfig, type RepositoryIndex } from '@sous/retrieval';
import type { Store } from '@sous/store';
import { pgliteFactory, postgresFactory, type StoreFactory } from '../../store/test/helpers';
import { symbolParserPool } from '../../retrieval/src/symbols/parser-pool';
import { git, makeGitRepo, rmTempDir, writeFile } from '../../../test/support/tmp';
import {
  EngineEvents,
  FEED_CAP,
  PreparedWork,
  createRepositoryView,
  markStale,
  runCycle,
  type Candidate,
  type Detector,
  type EngineEvent,
  type RepositoryView,
} from '../src';

const factories: StoreFactory[] = [pgliteFactory(), postgresFactory()];
const config = defaultConfig();
const policy = scopePolicyFromConfig(config);

/** A detector that proposes whatever the test sets, examining the whole repository. */
function plugin(): Detector & { next: (view: RepositoryView) => Candidate[] } {
  const d = {
    name: 'probe',
    kinds: ['review_note'] as const,
    next: (_view: RepositoryView): Candidate[] => [],
    async detect({ view }: { view: RepositoryView }) {
      return { candidates: d.next(view), covered: 'all' as const };
    },
  };
  return d;
}

function candidate(view: RepositoryView, path: string, claim: string, strength = 0.9, line = 1): Candidate {
  return {
    kind: 'review_note',
    detector: 'probe.rule',
    claim,
    title: `Finding ${claim}`,
    summary: 'A finding.',
    whyNow: 'The file changed.',
    body: 'Details.',
    action: 'Look at it.',
    evidence: [{ path, lineStart: line, lineEnd: line, contentHash: view.file(path)?.sha256 as string, note: 'here' }],
    strength,
    targets: [path],
  };
}

afterAll(() => symbolParserPool().release());

describe.each(factories)('preparation cycle ($name)', (factory) => {
  let store: Store;
  let repo: string;
  let index: RepositoryIndex;

  beforeAll(async () => {
    store = await factory.open();
  });

  afterAll(async () => {
    await store?.close();
    await factory.cleanup();
  });

  beforeEach(async () => {
    repo = makeGitRepo();
    for (let i = 0; i < 8; i++) writeFile(repo, `src/f${i}.ts`, `export const v${i} = ${i};\n`);
    writeFile(repo, 'src/app.env', 'TOKEN=1\n');
    git(repo, ['add', '-A']);
    git(repo, ['commit', '-q', '-m', 'files']);
    index = await buildRepositoryIndex(repo, policy);
  });

  afterEach(() => rmTempDir(repo));

  async function setup() {
    const workspaceId = (await store.workspaces.upsertByRoot({ rootPath: `${repo}-${randomUUID()}` })).id;
    const events = new EngineEvents();
    const seen: EngineEvent[] = [];
    events.subscribe((e) => seen.push(e));
    const detector = plugin();
    const hash = async (path: string) => index.file(path)?.sha256 ?? null;
    const work = new PreparedWork({ store, workspaceId, policy: () => policy, indexedHash: hash, diskHash: hash, events });
    const cycle = () => runCycle({ store, workspaceId, view: createRepositoryView(index, policy), trigger: { kind: 'warm' }, config, detectors: [detector], events });
    return { workspaceId, events, seen, detector, work, cycle, hash };
  }

  it('lands strong candidates as ready, keeps weak ones out of the feed, and caps the feed', async () => {
    const { detector, work, cycle, seen } = await setup();
    detector.next = (view) => [...Array.from({ length: 7 }, (_, i) => candidate(view, `src/f${i}.ts`, `strong-${i}`)), candidate(view, 'src/f7.ts', 'weak', 0.05)];
    const result = await cycle();
    expect(result.candidates).toBe(8);
    expect(result.ready).toHaveLength(7);
    expect(result.held).toBe(1);
    const feed = await work.feed();
    expect(feed.cards).toHaveLength(7);
    expect(feed.cap).toBe(FEED_CAP);
    expect(feed.cards.every((c) => c.title.startsWith('Finding strong'))).toBe(true);
    expect(feed.cards[0]?.actions).toEqual(['inspect', 'export', 'dismiss', 'feedback']);
    // The default feed hides lifecycle and scores; the diagnostic view shows them.
    expect(JSON.stringify(feed.cards)).not.toMatch(/"score"|"state"|claim_key/);
    expect((await work.feed(true)).cards[0]?.diagnostic).toMatchObject({ state: 'ready', detector: 'probe.rule' });
    expect(seen.filter((e) => e.type === 'card.landed')).toHaveLength(7);
    expect(seen.map((e) => e.type)).toContain('cycle.finished');
  });

  it('keeps at most exploration.max_ready_cards ready: the strongest win, the rest wait as candidates and come back when room frees up', async () => {
    const { workspaceId, detector, work } = await setup();
    const small = { ...config, exploration: { ...config.exploration, max_ready_cards: 3 } };
    const cycle = () => runCycle({ store, workspaceId, view: createRepositoryView(index, policy), trigger: { kind: 'warm' }, config: small, detectors: [detector] });
    // Strength decides the order: f0 is the strongest.
    detector.next = (view) => Array.from({ length: 6 }, (_, i) => candidate(view, `src/f${i}.ts`, `c-${i}`, 0.95 - i * 0.05));
    const first = await cycle();
    expect(first.ready).toHaveLength(3);
    expect(first.held).toBe(3);
    const ready = await store.workProducts.list({ workspaceId, states: ['ready'] });
    expect(ready.map((c) => c.claimKey).sort()).toEqual(['probe.rule|c-0', 'probe.rule|c-1', 'probe.rule|c-2']);
    const held = await store.workProducts.listWithEvidence({ workspaceId, states: ['candidate'] });
    expect(held).toHaveLength(3);
    expect(held.every((c) => String(c.details['held']).includes('exploration.max_ready_cards = 3'))).toBe(true);
    // The diagnostic list reaches what the budget holds back.
    expect((await work.list({ states: ['candidate'] })).map((c) => c.title).sort()).toEqual(['Finding c-3', 'Finding c-4', 'Finding c-5']);
    // The same findings again: nothing moves (no card flips in and out of the feed each cycle).
    const again = await cycle();
    expect(again.landed).toBe(0);
    expect((await store.workProducts.list({ workspaceId, states: ['ready'] })).map((c) => c.claimKey).sort()).toEqual(['probe.rule|c-0', 'probe.rule|c-1', 'probe.rule|c-2']);
    // The strongest is fixed (no longer found): the next in line becomes ready.
    detector.next = (view) => Array.from({ length: 5 }, (_, i) => candidate(view, `src/f${i + 1}.ts`, `c-${i + 1}`, 0.9 - i * 0.05));
    await cycle();
    expect((await store.workProducts.list({ workspaceId, states: ['ready'] })).map((c) => c.claimKey).sort()).toEqual(['probe.rule|c-1', 'probe.rule|c-2', 'probe.rule|c-3']);
  });

  it('makes no cards for a detector in exploration.detectors_off, by id or family, and takes its ready cards out of the feed', async () => {
    const { workspaceId, detector, work, cycle } = await setup();
    // A draft that follows a finding of the noisy rule goes off with it.
    const follower = (view: RepositoryView): Candidate => ({ ...candidate(view, 'src/f3.ts', 'after-noisy'), detector: 'draft.follow_up', follows: 'probe.noisy' });
    detector.next = (view) => [candidate(view, 'src/f1.ts', 'kept'), { ...candidate(view, 'src/f2.ts', 'noisy'), detector: 'probe.noisy' }, follower(view)];
    expect((await cycle()).ready).toHaveLength(3);
    const offBy = (off: string[]) => ({ ...config, exploration: { ...config.exploration, detectors_off: off } });
    const run = (off: string[]) => runCycle({ store, workspaceId, view: createRepositoryView(index, policy), trigger: { kind: 'warm' }, config: offBy(off), detectors: [detector] });
    const result = await run(['probe.noisy']);
    expect(result.stale).toBe(2);
    expect((await work.feed()).cards.map((c) => c.title)).toEqual(['Finding kept']);
    const gone = await store.workProducts.list({ workspaceId, states: ['stale'] });
    expect(gone.map((c) => c.detector).sort()).toEqual(['draft.follow_up', 'probe.noisy']);
    expect(gone.find((c) => c.detector === 'probe.noisy')?.stateReason).toBe('its detector is off (exploration.detectors_off)');
    // A family turns off every rule in it.
    await run(['probe']);
    expect((await work.feed()).cards).toEqual([]);
    // Back on: the cards return.
    await run([]);
    expect((await work.feed()).cards).toHaveLength(3);
  });

  it('keeps the cards of a detector in exploration.detectors_held as candidates with the reason, out of the feed and its budget', async () => {
    const { workspaceId, detector, work, cycle } = await setup();
    const follower = (view: RepositoryView): Candidate => ({ ...candidate(view, 'src/f3.ts', 'after-noisy'), detector: 'draft.follow_up', follows: 'probe.noisy' });
    // The held rule's card is the stronger: were it counted in a budget of one, `kept` would wait.
    detector.next = (view) => [candidate(view, 'src/f1.ts', 'kept', 0.8), { ...candidate(view, 'src/f2.ts', 'noisy', 1), detector: 'probe.noisy' }, follower(view)];
    expect((await cycle()).ready).toHaveLength(3);
    const heldBy = (held: string[], max = config.exploration.max_ready_cards) => ({ ...config, exploration: { ...config.exploration, detectors_held: held, max_ready_cards: max } });
    const run = (held: string[], max?: number) => runCycle({ store, workspaceId, view: createRepositoryView(index, policy), trigger: { kind: 'warm' }, config: heldBy(held, max), detectors: [detector] });
    // Held after it landed: the ready card and the draft that follows it step back, found still.
    const result = await run(['probe.noisy']);
    expect(result.ready).toHaveLength(1);
    expect(result.stale).toBe(0);
    expect((await work.feed()).cards.map((c) => c.title)).toEqual(['Finding kept']);
    const held = await work.list({ states: ['candidate'] });
    expect(held.map((c) => c.diagnostic?.detector).sort()).toEqual(['draft.follow_up', 'probe.noisy']);
    expect(held.find((c) => c.diagnostic?.detector === 'probe.noisy')?.diagnostic?.state_reason).toMatch(/^its detector is held back \(exploration\.detectors_held names probe\.noisy/);
    // Held cards take no place in the budget: with room for one card, the one shown is the unheld one.
    await run(['probe'], 1);
    expect((await work.feed()).cards).toEqual([]);
    expect((await work.list({ states: ['candidate'] })).map((c) => c.diagnostic?.detector).sort()).toEqual(['draft.follow_up', 'probe.noisy', 'probe.rule']);
    await run(['probe.noisy'], 1);
    expect((await work.feed()).cards.map((c) => c.title)).toEqual(['Finding kept']);
    // Let out again: the same cards (not new ones) return to the feed.
    const ids = (await work.list({ states: ['candidate'] })).map((c) => c.id).sort();
    await run([]);
    const back = (await work.feed()).cards;
    expect(back).toHaveLength(3);
    expect(ids.every((id) => back.some((c) => c.id === id))).toBe(true);
  });

  it('an empty result is an empty feed', async () => {
    const { work, cycle } = await setup();
    const result = await cycle();
    expect(result.ready).toEqual([]);
    expect((await work.feed()).cards).toEqual([]);
  });

  it('the same claim with the same evidence stays one card; new evidence supersedes it', async () => {
    const { detector, work, cycle, seen } = await setup();
    detector.next = (view) => [candidate(view, 'src/f1.ts', 'same')];
    const first = await cycle();
    const second = await cycle();
    expect(second.ready).toEqual(first.ready);
    expect(second.landed).toBe(0);
    expect(await work.list({})).toHaveLength(1);

    detector.next = (view) => [candidate(view, 'src/f1.ts', 'same', 0.9, 2)];
    const third = await cycle();
    expect(third.superseded).toBe(1);
    const all = await work.list({});
    expect(all.map((c) => c.diagnostic?.state).sort()).toEqual(['ready', 'superseded']);
    expect(seen).toContainEqual(expect.objectContaining({ type: 'card.superseded', id: first.ready[0], by: third.ready[0] }));
    await expect(work.export(first.ready[0] as string)).rejects.toMatchObject({ code: 'conflict' });
  });

  it('a dismissed claim stays hidden when found again', async () => {
    const { detector, work, cycle } = await setup();
    detector.next = (view) => [candidate(view, 'src/f1.ts', 'noise')];
    const [id] = (await cycle()).ready;
    await work.dismiss(id as string);
    expect((await work.feed()).cards).toEqual([]);
    const again = await cycle();
    expect(again.ready).toEqual([]);
    expect(await work.list({})).toHaveLength(1);
    expect((await work.list({ states: ['hidden'] }))[0]?.id).toBe(id);
  });

  it('a detector judged irrelevant or wrong again and again is suppressed in this repository', async () => {
    const { detector, work, cycle } = await setup();
    detector.next = (view) => [candidate(view, 'src/f1.ts', 'a'), candidate(view, 'src/f2.ts', 'b')];
    const [a, b] = (await cycle()).ready;
    await work.feedback(a as string, 'irrelevant');
    await work.feedback(b as string, 'wrong');
    expect((await cycle()).suppressed).toEqual([]);
    await work.feedback(a as string, 'irrelevant');
    const after = await cycle();
    expect(after.suppressed).toEqual(['probe.rule']);
    expect(after.ready).toEqual([]);
    expect((await work.feed()).cards).toEqual([]);
  });

  it('useful feedback raises the score of the detector\'s cards', async () => {
    const { detector, work, cycle } = await setup();
    detector.next = (view) => [candidate(view, 'src/f1.ts', 'a', 0.5)];
    await cycle();
    const before = (await work.list({}))[0]?.diagnostic?.score as number;
    await work.feedback((await work.list({}))[0]?.id as string, 'useful');
    await cycle();
    expect((await work.list({}))[0]?.diagnostic?.score as number).toBeGreaterThan(before);
  });

  it('a claim no longer found goes stale and leaves the feed', async () => {
    const { detector, work, cycle, seen } = await setup();
    detector.next = (view) => [candidate(view, 'src/f1.ts', 'fixed-later')];
    const [id] = (await cycle()).ready;
    detector.next = () => [];
    const result = await cycle();
    expect(result.stale).toBe(1);
    expect((await work.feed()).cards).toEqual([]);
    expect(seen).toContainEqual(expect.objectContaining({ type: 'card.stale', id }));
  });

  it('a changed file makes its cards stale at once; the same content again regenerates the card', async () => {
    const { detector, work, cycle, workspaceId, hash } = await setup();
    detector.next = (view) => [candidate(view, 'src/f1.ts', 'watch')];
    const [id] = (await cycle()).ready;
    writeFile(repo, 'src/f1.ts', 'export const v1 = 100;\n');
    await index.updateFile('src/f1.ts');
    expect(await markStale({ store, workspaceId }, ['src/f1.ts'], hash)).toEqual([id]);
    expect((await work.inspect(id as string)).warnings).toEqual([expect.stringContaining('Stale: src/f1.ts changed')]);
    expect((await work.feed()).cards).toEqual([]);

    writeFile(repo, 'src/f1.ts', 'export const v1 = 1;\n');
    await index.updateFile('src/f1.ts');
    const again = await cycle();
    expect(again.ready).toEqual([id]);
    expect((await work.feed()).cards.map((c) => c.id)).toEqual([id]);
  });

  it('never lands a card citing a file outside the privacy scope', async () => {
    const { detector, work, cycle } = await setup();
    detector.next = (view) => [
      { ...candidate(view, 'src/f1.ts', 'leak'), evidence: [{ path: 'src/app.env', lineStart: 1, lineEnd: 1, note: 'token' }] },
      { ...candidate(view, 'src/f1.ts', 'outside'), evidence: [{ path: 'README.md', note: 'readme' }] },
    ];
    const result = await cycle();
    expect(result.candidates).toBe(0);
    expect(await work.list({})).toEqual([]);
  });

  it('unknown ids are not found', async () => {
    const { work } = await setup();
    await expect(work.inspect('nope')).rejects.toMatchObject({ code: 'not_found' });
    await expect(work.dismiss('nope')).rejects.toMatchObject({ code: 'not_found' });
    await expect(work.adopt('nope')).rejects.toMatchObject({ code: 'not_found' });
  });
});
