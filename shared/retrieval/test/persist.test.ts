/**
 * The index in the store, on both store kinds: the daemon's live index writes, a replica (the
 * context API's view) reads; a restart reads only what moved; the watcher applies saves and HEAD
 * moves and records `file_change` and `commit` signals.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Store } from '@sous/store';
import { buildRepositoryIndex, createScopePolicy, IndexReplica, IndexWriter, LiveIndex, storeIndexFeed } from '../src';
import { pgliteFactory, postgresFactory, type StoreFactory } from '../../store/test/helpers';
import { until } from '../../../test/support/wait';
import { cleanupFixtures, commit, defaultPolicy, fixture, git, resultPaths, SECRET, write } from './indexer-fixture';

const factories: Array<[string, () => StoreFactory]> = [
  ['PGlite (embedded)', pgliteFactory],
  ['PostgreSQL', postgresFactory],
];

describe.each(factories)('repository index in %s', (_name, makeFactory) => {
  const factory = makeFactory();
  let store: Store;
  const running: LiveIndex[] = [];

  beforeAll(async () => {
    store = await factory.open();
  }, 60_000);
  afterAll(async () => {
    await store.close();
    await factory.cleanup();
  });
  afterEach(async () => {
    for (const live of running.splice(0)) await live.stop();
    cleanupFixtures();
  });

  async function startLive(root: string, watch: false | { polling?: boolean } = false, policy = defaultPolicy()): Promise<{ live: LiveIndex; workspaceId: string }> {
    const workspace = await store.workspaces.upsertByRoot({ rootPath: root });
    const live = new LiveIndex({ root, policy, store, workspaceId: workspace.id, watch });
    running.push(live);
    await live.start();
    return { live, workspaceId: workspace.id };
  }

  test('a replica built from the store alone answers like the live index, with the same privacy', async () => {
    const root = fixture();
    const { live, workspaceId } = await startLive(root);
    expect(live.status()).toMatchObject({ state: 'ready', files_indexed: 10, watch: 'off' });

    const replica = new IndexReplica(storeIndexFeed(store.repositoryIndex, workspaceId));
    expect(await replica.sync()).toBe(true);
    expect(replica.status()).toMatchObject({ state: 'ready', files_indexed: 10, generation: live.status().generation, head: live.status().head });
    for (const prompt of ['loadUserProfile returns undefined for new accounts', 'ZeroDivisionError in apply_discount', 'billingApiKey deployTarget']) {
      const fromStore = replica.query(prompt, { topN: 5 });
      expect(resultPaths(fromStore)).toEqual(resultPaths(live.query(prompt, { topN: 5 })));
      expect(resultPaths(fromStore)).not.toContain('src/prod.env');
      expect(resultPaths(fromStore)).not.toContain('scripts/deploy.ts');
      expect(JSON.stringify(fromStore)).not.toContain(SECRET);
    }
    // Nothing new: a second sync applies nothing.
    expect(await replica.sync()).toBe(false);
    // A poll that knows HEAD gets no signals (they are large); one that does not know it gets them.
    const feed = storeIndexFeed(store.repositoryIndex, workspaceId);
    const head = live.status().head ?? null;
    const generation = live.status().generation;
    expect((await feed.changesSince(generation, head)).delta.signals).toBeUndefined();
    const moved = await feed.changesSince(generation, 'an-older-head');
    expect(moved.delta.signals?.head).toBe(head);
    expect(Object.keys(moved.delta.signals?.recency ?? {}).length).toBeGreaterThan(0);
  }, 60_000);

  test('a long file held deflated in memory is stored, served and quoted whole', async () => {
    const root = fixture();
    const line = 'export function settleQuarterlyLedger(): string { return "Σ total — naïve café 📒"; }';
    const lines = Array.from({ length: 300 }, (_, i) => `export const ledgerEntry${i} = 'entry ${i}: crème brûlée';`);
    lines[200] = line;
    const text = `${lines.join('\n')}\n`;
    commit(root, { 'src/app/ledger.ts': text }, '2024-05-01T00:00:00Z');
    const { live, workspaceId } = await startLive(root);

    const feed = storeIndexFeed(store.repositoryIndex, workspaceId);
    expect((await feed.changesSince(0)).delta.upserted.find((f) => f.path === 'src/app/ledger.ts')?.text).toBe(text);
    const replica = new IndexReplica(feed);
    await replica.sync();
    for (const answer of [live.query('settleQuarterlyLedger', { topN: 1 }), replica.query('settleQuarterlyLedger', { topN: 1 })]) {
      expect(answer.items[0]?.path).toBe('src/app/ledger.ts');
      expect(answer.items[0]?.snippet.text).toContain(line);
    }
  }, 60_000);

  test('a replica pages through many writes a few generations at a time and ends equal to the writer', async () => {
    const root = fixture();
    const workspace = await store.workspaces.upsertByRoot({ rootPath: root });
    const index = await buildRepositoryIndex(root, defaultPolicy());
    const writer = new IndexWriter(store.repositoryIndex, workspace.id, index);
    await writer.flush('ready');
    for (let i = 0; i < 5; i++) {
      write(root, `src/app/page${i}.ts`, `export function pagedThing${i}() {}\n`);
      await index.updateFile(`src/app/page${i}.ts`);
      await writer.flush('ready');
    }
    await index.removeFile('src/app/notes.ts');
    const last = await writer.flush('ready');
    const pages: number[] = [];
    const feed = storeIndexFeed(store.repositoryIndex, workspace.id, 2);
    const counting = { changesSince: async (g: number, h?: string | null) => { const c = await feed.changesSince(g, h); pages.push(c.generation); return c; } };
    const replica = new IndexReplica(counting);
    await replica.sync();
    expect(replica.status().generation).toBe(last.generation);
    expect(pages.length).toBeGreaterThan(2);
    expect(replica.status().files_indexed).toBe(index.size);
    for (let i = 0; i < 5; i++) expect(resultPaths(replica.query(`pagedThing${i}`, { topN: 1 }))).toEqual([`src/app/page${i}.ts`]);
    expect(resultPaths(replica.query('loadUserProfile may return undefined', { topN: 10 }))).not.toContain('src/app/notes.ts');
  }, 60_000);

  test('a restart reads only the files that moved while it was down, and records the commit', async () => {
    const root = fixture();
    const first = await startLive(root);
    const headBefore = first.live.status().head;
    await first.live.stop();

    commit(root, { 'src/app/user.ts': '// renamed\nexport function loadMemberProfile(id: string) { return id; }\n', 'src/app/audit.ts': 'export function auditTrail() {}\n' }, '2024-04-01T00:00:00Z');
    git(root, ['rm', '-q', 'src/app/notes.ts']);
    git(root, ['commit', '-q', '-m', 'drop notes'], { GIT_AUTHOR_DATE: '2024-04-02T00:00:00Z', GIT_COMMITTER_DATE: '2024-04-02T00:00:00Z' });

    const second = await startLive(root);
    expect(second.workspaceId).toBe(first.workspaceId);
    // Two files moved (one changed, one added); the deletion needs no read; the other 8 are trusted by size and mtime.
    expect(second.live.status().reads).toBe(2);
    expect(resultPaths(second.live.query('loadMemberProfile', { topN: 3 }))[0]).toBe('src/app/user.ts');
    expect(resultPaths(second.live.query('loadUserProfile may return undefined', { topN: 10 }))).not.toContain('src/app/notes.ts');

    const commits = await store.signals.listRecent('commit', { workspaceId: first.workspaceId });
    expect(commits[0]?.payload).toMatchObject({ previous: headBefore, head: second.live.status().head });

    const replica = new IndexReplica(storeIndexFeed(store.repositoryIndex, first.workspaceId));
    await replica.sync();
    expect(replica.status().files_indexed).toBe(10);
    expect(resultPaths(replica.query('auditTrail', { topN: 3 }))[0]).toBe('src/app/audit.ts');
  }, 60_000);

  test('a restart under a changed privacy scope re-reads everything and drops what the new scope excludes', async () => {
    const root = fixture();
    const first = await startLive(root);
    await first.live.stop();
    const narrower = createScopePolicy({ allowedPaths: ['src/**'], excludedPatterns: ['**/*.env', 'src/pricing/**'], redactPatterns: ['sk-[A-Za-z0-9]{20,}', 'billing\\.example\\.com'] });
    const second = await startLive(root, false, narrower);
    expect(second.live.status().reads).toBe(second.live.status().files_indexed);
    const replica = new IndexReplica(storeIndexFeed(store.repositoryIndex, first.workspaceId));
    await replica.sync();
    const answer = replica.query('apply_discount billingEndpoint guide', { topN: 20 });
    expect(resultPaths(answer).filter((p) => p.startsWith('src/pricing/') || p.startsWith('docs/'))).toEqual([]);
    expect(JSON.stringify(answer)).not.toContain('billing.example.com');
  }, 60_000);

  test('the watcher applies a save, a new file and a deletion, stores them and records file_change', async () => {
    const root = fixture();
    const { live, workspaceId } = await startLive(root, {});
    expect(live.status().watch).toBe('native');
    const replica = new IndexReplica(storeIndexFeed(store.repositoryIndex, workspaceId));
    await replica.sync();

    write(root, 'src/app/handler.ts', 'export function reconcileLedgerEntries() {}\n');
    await until(async () => {
      await replica.sync();
      return resultPaths(replica.query('reconcileLedgerEntries', { topN: 1 }))[0] === 'src/app/handler.ts' ? true : undefined;
    });
    const signals = await until(async () => {
      const rows = await store.signals.listRecent('file_change', { workspaceId });
      return rows.some((r) => (r.payload.paths as string[]).includes('src/app/handler.ts')) ? rows : undefined;
    });
    expect(JSON.stringify(signals)).not.toContain('reconcileLedgerEntries');

    write(root, 'src/app/fresh.py', 'def settle_invoice():\n    pass\n');
    fs.rmSync(path.join(root, 'src/app/config.ts'));
    await until(async () => {
      await replica.sync();
      const found = resultPaths(replica.query('settle_invoice billingEndpoint', { topN: 10 }));
      return found.includes('src/app/fresh.py') && !found.includes('src/app/config.ts') ? true : undefined;
    });
    // An ignored file never enters, even when saved under an allowed path.
    write(root, '.gitignore', 'src/generated/\n');
    write(root, 'src/generated/out.ts', 'export function generatedThing() {}\n');
    write(root, 'src/app/marker.ts', 'export function markerAfterIgnored() {}\n');
    await until(async () => {
      await replica.sync();
      return resultPaths(replica.query('markerAfterIgnored', { topN: 1 }))[0] === 'src/app/marker.ts' ? true : undefined;
    });
    await live.settled();
    expect(resultPaths(live.query('generatedThing', { topN: 10 }))).not.toContain('src/generated/out.ts');
  }, 60_000);

  test('polling mode (watch limit exhausted, network file systems) still sees saves and deletions by re-listing', async () => {
    const root = fixture();
    const { live, workspaceId } = await startLive(root, { polling: true });
    expect(live.status().watch).toBe('polling');
    const replica = new IndexReplica(storeIndexFeed(store.repositoryIndex, workspaceId));
    write(root, 'src/app/polled.ts', 'export function seenByPolling() {}\n');
    fs.rmSync(path.join(root, 'src/app/notes.ts'));
    await until(async () => {
      await replica.sync();
      const found = resultPaths(replica.query('seenByPolling loadUserProfile', { topN: 10 }));
      return found.includes('src/app/polled.ts') && !found.includes('src/app/notes.ts') ? true : undefined;
    }, 10_000);
    const rows = await store.signals.listRecent('file_change', { workspaceId });
    expect(rows.some((r) => (r.payload.paths as string[]).includes('src/app/polled.ts'))).toBe(true);
    // Idle ticks write nothing: the generation stays put while nothing changes.
    await live.settled();
    const generation = live.status().generation;
    await new Promise((r) => setTimeout(r, 1500));
    expect(live.status().generation).toBe(generation);
  }, 60_000);

  test('a live index stopped while it is still starting keeps no watcher (its watches would keep the process alive)', async () => {
    const root = fixture();
    const workspace = await store.workspaces.upsertByRoot({ rootPath: root });
    const live = new LiveIndex({ root, policy: defaultPolicy(), store, workspaceId: workspace.id, watch: {} });
    const started = live.start();
    await live.stop();
    await started.catch(() => undefined);
    await live.settled();
    expect(live.status().watch).toBe('off');
  }, 60_000);

  test('HEAD moving (a commit made while watching) records a commit signal and refreshes git signals', async () => {
    const root = fixture();
    const { live, workspaceId } = await startLive(root, {});
    const before = live.status().head;
    commit(root, { 'src/app/ledger.ts': 'export function postLedger() {}\n' }, '2024-05-01T00:00:00Z');
    const row = await until(async () => {
      const rows = await store.signals.listRecent('commit', { workspaceId });
      return rows.find((r) => r.payload.previous === before);
    }, 10_000);
    expect(row.payload.head).not.toBe(before);
    expect(live.status().head).toBe(row.payload.head);
  }, 60_000);
});
