/**
 * Changing what is redacted or excluded rewrites what the store holds, on both store kinds: after a
 * restart under the new privacy settings, or a rebuild while running, no text read under the old
 * ones is left in the index tables (queried directly), and vectors embedded from those texts go too.
 */
import { sql } from 'drizzle-orm';
import type { Store } from '@sous/store';
import { defaultConfig } from '@sous/config';
import { createScopePolicy, IndexReplica, LiveIndex, storeIndexFeed, type ScopePolicy } from '../src';
import { pgliteFactory, postgresFactory, type StoreFactory } from '../../store/test/helpers';
import { cleanupFixtures, fixture, write } from './indexer-fixture';

const factories: Array<[string, () => StoreFactory]> = [
  ['PGlite (embedded)', pgliteFactory],
  ['PostgreSQL', postgresFactory],
];

/** Format-valid fake values, built at run time so this file holds nothing a scanner would flag. */
const GITHUB = ['ghp', '_', 'Zq7'.repeat(12)].join('');
const PASSWORD = ['s3cr3t', '-', 'Horse', '-', '42x'].join('');
const PEM_BODY = ['MIIEow', 'IBAAKCAQEA', 'x7Kq'.repeat(10)].join('');

/** The defaults of the release before credential formats: one `sk-` pattern, five exclusions. */
const OLD = { allowedPaths: ['**'], excludedPatterns: ['*.env', '*.key', '*.pem', 'credentials*', 'secrets*'], redactPatterns: ['(?<![A-Za-z0-9_-])sk-[A-Za-z0-9_-]{20,}'] };
/** Today's defaults over the whole repository. */
const NOW = (): ScopePolicy => {
  const privacy = defaultConfig().privacy;
  return createScopePolicy({ allowedPaths: ['**'], excludedPatterns: privacy.excluded_patterns, redactPatterns: privacy.redact_patterns });
};

function plant(root: string): void {
  write(root, 'src/app/settings.ts', `export const githubToken = '${GITHUB}';\nexport const password = "${PASSWORD}";\nexport const retries = 3;\n`);
  write(root, 'id_rsa', `-----BEGIN RSA PRIVATE KEY-----\n${PEM_BODY}\n-----END RSA PRIVATE KEY-----\n`);
}

describe.each(factories)('privacy changes rewrite the stored index in %s', (_name, makeFactory) => {
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

  async function startLive(root: string, policy: ScopePolicy): Promise<{ live: LiveIndex; workspaceId: string }> {
    const workspace = await store.workspaces.upsertByRoot({ rootPath: root });
    const live = new LiveIndex({ root, policy, store, workspaceId: workspace.id, watch: false });
    running.push(live);
    await live.start();
    return { live, workspaceId: workspace.id };
  }

  /** Every text the index tables hold for the workspace, and the live file rows. */
  async function stored(workspaceId: string): Promise<{ texts: string; files: string[]; vectors: string[] }> {
    const rows = <T>(r: unknown): T[] => (r as { rows: T[] }).rows;
    const blobs = rows<{ text: string; key: string }>(await store.db.execute(sql`SELECT key, text FROM index_blobs WHERE workspace_id = ${workspaceId}`));
    const files = rows<{ path: string }>(await store.db.execute(sql`SELECT path FROM index_files WHERE workspace_id = ${workspaceId} AND NOT removed ORDER BY path`));
    const vectors = rows<{ path: string }>(await store.db.execute(sql`SELECT DISTINCT path FROM chunk_embeddings WHERE workspace_id = ${workspaceId} ORDER BY path`));
    return { texts: blobs.map((b) => b.text).join('\n'), files: files.map((f) => f.path), vectors: vectors.map((v) => v.path) };
  }

  /** Vectors as the semantic stage would have stored them for these files under the old redaction. */
  async function embedOld(workspaceId: string, paths: string[]): Promise<void> {
    await store.chunkEmbeddings.replaceFiles(
      workspaceId,
      'test-model',
      paths.map((path) => ({ path, contentKey: `old:${path}`, chunks: [{ startLine: 1, endLine: 1, embedding: [0.1, 0.2, 0.3] }] })),
    );
  }

  test('a restart under the new defaults leaves no text read under the old ones, and drops their vectors', async () => {
    const root = fixture();
    plant(root);
    const first = await startLive(root, createScopePolicy(OLD));
    const before = await stored(first.workspaceId);
    // The old defaults stored both secrets and the private key verbatim: what this test is about.
    expect(before.texts).toContain(GITHUB);
    expect(before.texts).toContain(PEM_BODY);
    expect(before.files).toContain('id_rsa');
    await embedOld(first.workspaceId, ['src/app/settings.ts', 'id_rsa', 'src/app/user.ts']);
    await first.live.stop();

    const second = await startLive(root, NOW());
    const after = await stored(second.workspaceId);
    for (const secret of [GITHUB, PASSWORD, PEM_BODY]) expect(after.texts).not.toContain(secret);
    expect(after.texts).toContain("export const githubToken = 'ghp_[redacted]';");
    expect(after.texts).toContain('export const password = "[redacted]";');
    expect(after.texts).toContain('export const retries = 3;');
    expect(after.files).not.toContain('id_rsa');
    expect(after.files).toContain('src/app/settings.ts');
    // Vectors embedded from the old texts are gone; the semantic stage embeds the new ones.
    expect(after.vectors).toEqual([]);

    // What a replica (the context process) reads from the store is the new text only.
    const replica = new IndexReplica(storeIndexFeed(store.repositoryIndex, second.workspaceId));
    await replica.sync();
    const answer = JSON.stringify(replica.query('githubToken password settings', { topN: 20 }));
    expect(answer).toContain('src/app/settings.ts');
    for (const secret of [GITHUB, PASSWORD, PEM_BODY]) expect(answer).not.toContain(secret);
  }, 120_000);

  test('a rebuild under new patterns while running rewrites the stored texts at once', async () => {
    const root = fixture();
    plant(root);
    const { live, workspaceId } = await startLive(root, createScopePolicy(OLD));
    expect((await stored(workspaceId)).texts).toContain(PASSWORD);
    await embedOld(workspaceId, ['src/app/settings.ts']);

    await live.rebuild(NOW());
    const after = await stored(workspaceId);
    for (const secret of [GITHUB, PASSWORD, PEM_BODY]) expect(after.texts).not.toContain(secret);
    expect(after.files).not.toContain('id_rsa');
    expect(after.vectors).toEqual([]);
    expect(JSON.stringify(live.query('githubToken password', { topN: 10 }))).not.toContain(GITHUB);
  }, 120_000);

  test('a scope change that keeps the redaction keeps the vectors of files still indexed', async () => {
    const root = fixture();
    const first = await startLive(root, NOW());
    await embedOld(first.workspaceId, ['src/app/user.ts', 'docs/guide.md']);
    await first.live.stop();
    const narrower = createScopePolicy({ allowedPaths: ['src/**'], excludedPatterns: defaultConfig().privacy.excluded_patterns, redactPatterns: defaultConfig().privacy.redact_patterns });
    const second = await startLive(root, narrower);
    // Re-embedding costs a model call per chunk: a file whose text did not change keeps its vectors.
    expect((await stored(second.workspaceId)).vectors).toEqual(['src/app/user.ts']);
  }, 120_000);
});
