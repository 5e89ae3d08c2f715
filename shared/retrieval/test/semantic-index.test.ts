/**
 * The semantic index on both store kinds, with a real index of a real repository and the real
 * embedding client talking to our deterministic OpenAI-compatible server over loopback: chunks are
 * embedded and stored, reused while unchanged (also after a restart), re-embedded on change,
 * dropped on delete and on a model change; prompts find files by similarity; a backend that went
 * away leaves queries lexical and says why.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { createEmbeddingClient } from '@sous/backend';
import type { Store } from '@sous/store';
import { buildRepositoryIndex, chunkText, PromptRanker, SemanticIndex, type Embedder, type RepositoryIndex } from '../src';
import { pgliteFactory, postgresFactory, type StoreFactory } from '../../store/test/helpers';
import { startFakeBackend, type FakeBackend } from '../../../test/support/fake-backend';
import { cleanupFixtures, defaultPolicy, fixture, SECRET } from './indexer-fixture';

const factories: Array<[string, () => StoreFactory]> = [
  ['PGlite (embedded)', pgliteFactory],
  ['PostgreSQL', postgresFactory],
];

describe.each(factories)('semantic index in %s', (_name, makeFactory) => {
  const factory = makeFactory();
  let store: Store;
  let backend: FakeBackend;
  const redactPatterns = defaultPolicy().redactPatterns;

  beforeAll(async () => {
    store = await factory.open();
    backend = await startFakeBackend({ synonyms: { cost: 'price', reduction: 'discount', item: 'unit' } });
  }, 60_000);
  afterAll(async () => {
    await backend.close();
    await store.close();
    await factory.cleanup();
    cleanupFixtures();
  });

  const embedder = (model = 'all-minilm', baseUrl = backend.baseUrl): Embedder => createEmbeddingClient({ name: 'fake', baseUrl, model, apiKeyEnv: '' }, { batchSize: 4 });

  async function arrange(): Promise<{ root: string; index: RepositoryIndex; workspaceId: string }> {
    const root = fixture();
    const index = await buildRepositoryIndex(root, defaultPolicy());
    const workspaceId = (await store.workspaces.upsertByRoot({ rootPath: root })).id;
    return { root, index, workspaceId };
  }

  /** Chunks the indexed files have, by path (files with no chunk left out). */
  const chunksOf = (index: RepositoryIndex): Map<string, number> =>
    new Map(index.paths().flatMap((p) => {
      const n = chunkText(index.text(p) ?? '').length;
      return n > 0 ? [[p, n] as [string, number]] : [];
    }));

  test('embeds every indexed file once, stores it, and reuses it while nothing changes', async () => {
    const { index, workspaceId } = await arrange();
    const semantic = new SemanticIndex(store.chunkEmbeddings, workspaceId);
    const expected = chunksOf(index);
    const sent = backend.embedded.length;
    const first = await semantic.update(index, embedder(), { redactPatterns });
    const total = [...expected.values()].reduce((a, b) => a + b, 0);
    // src/pricing/__init__.py is empty: no chunk, nothing sent.
    expect(first).toEqual({ embedded_files: expected.size, embedded_chunks: total, removed_files: 0, unchanged_files: 0, pending_files: 0 });
    expect(expected.size).toBe(index.paths().length - 1);
    expect(backend.embedded.length - sent).toBe(total);
    // What was sent: each chunk's path and its redacted lines, nothing outside the scope.
    const texts = backend.embedded.slice(sent);
    expect(texts.join('\n')).not.toContain(SECRET);
    expect(texts.some((t) => t.startsWith('src/app/config.ts\n') && t.includes('[redacted]'))).toBe(true);
    expect(texts.some((t) => t.includes('prod.env') || t.includes('deployTarget'))).toBe(false);
    expect(new Map((await store.chunkEmbeddings.files(workspaceId, 'all-minilm')).map((f) => [f.path, f.chunks]))).toEqual(expected);
    expect(semantic.summary()).toMatchObject({ model: 'all-minilm', files: expected.size, chunks: total, dims: 128, pending_files: 0 });

    const again = await semantic.update(index, embedder(), { redactPatterns });
    expect(again).toMatchObject({ embedded_files: 0, embedded_chunks: 0, unchanged_files: index.paths().length, pending_files: 0 });
    // A restarted daemon starts from the store: nothing is sent again.
    const restarted = new SemanticIndex(store.chunkEmbeddings, workspaceId);
    expect(await restarted.update(index, embedder(), { redactPatterns })).toMatchObject({ embedded_files: 0, embedded_chunks: 0, pending_files: 0 });
    expect(restarted.summary()).toMatchObject({ files: expected.size, chunks: total });
    expect(backend.embedded.length - sent).toBe(total);
  });

  test('re-embeds a changed file only, and drops a deleted file\'s vectors', async () => {
    const { root, index, workspaceId } = await arrange();
    const semantic = new SemanticIndex(store.chunkEmbeddings, workspaceId);
    await semantic.update(index, embedder(), { redactPatterns });
    const sent = backend.embedded.length;
    fs.writeFileSync(path.join(root, 'src/pricing/discount.py'), 'def apply_discount(total, quantity):\n    return total / max(quantity, 1)\n');
    expect(await index.updateFile('src/pricing/discount.py')).toBe('changed');
    expect(await semantic.update(index, embedder(), { redactPatterns })).toMatchObject({ embedded_files: 1, embedded_chunks: 1, removed_files: 0 });
    expect(backend.embedded.slice(sent)).toEqual(['src/pricing/discount.py\ndef apply_discount(total, quantity):\n    return total / max(quantity, 1)']);

    fs.rmSync(path.join(root, 'src/app/notes.ts'));
    expect(await index.updateFile('src/app/notes.ts')).toBe('removed');
    expect(await semantic.update(index, embedder(), { redactPatterns })).toMatchObject({ embedded_files: 0, removed_files: 1 });
    const stored = (await store.chunkEmbeddings.files(workspaceId, 'all-minilm')).map((f) => f.path);
    expect(stored).not.toContain('src/app/notes.ts');
    expect(stored).toContain('src/pricing/discount.py');
  });

  test('a bounded step leaves the rest pending; another model replaces the vectors', async () => {
    const { index, workspaceId } = await arrange();
    const semantic = new SemanticIndex(store.chunkEmbeddings, workspaceId);
    const step = await semantic.update(index, embedder(), { redactPatterns, maxChunks: 2 });
    expect(step.embedded_chunks).toBeGreaterThanOrEqual(2);
    expect(step.pending_files).toBeGreaterThan(0);
    expect(semantic.summary().pending_files).toBe(step.pending_files);
    expect((await semantic.update(index, embedder(), { redactPatterns })).pending_files).toBe(0);

    const other = await semantic.update(index, embedder('nomic-embed-text'), { redactPatterns });
    expect(other.embedded_files).toBe(chunksOf(index).size);
    expect(await store.chunkEmbeddings.files(workspaceId, 'all-minilm')).toEqual([]);
    expect(semantic.summary().model).toBe('nomic-embed-text');
  });

  test('vectors of another length under the same model name (a re-pulled model) replace all the old ones', async () => {
    const { root, index, workspaceId } = await arrange();
    const semantic = new SemanticIndex(store.chunkEmbeddings, workspaceId);
    await semantic.update(index, embedder(), { redactPatterns });
    const swapped = await startFakeBackend({ embeddingDims: 64 });
    try {
      fs.writeFileSync(path.join(root, 'src/app/handler.ts'), 'export const handled = true;\n');
      await index.updateFile('src/app/handler.ts');
      expect(await semantic.update(index, embedder('all-minilm', swapped.baseUrl), { redactPatterns, maxChunks: 1 })).toMatchObject({ embedded_files: 1 });
      expect(semantic.summary()).toMatchObject({ files: 1, dims: 64 });
      await semantic.update(index, embedder('all-minilm', swapped.baseUrl), { redactPatterns });
      expect(semantic.summary()).toMatchObject({ files: chunksOf(index).size, dims: 64, pending_files: 0 });
      expect(await store.chunkEmbeddings.summary(workspaceId, 'all-minilm')).toEqual({ files: chunksOf(index).size, chunks: semantic.summary().chunks, dims: 64 });
    } finally {
      await swapped.close();
    }
  });

  test('a prompt finds files by similarity; a backend that went away leaves queries lexical and says why', async () => {
    const { index, workspaceId } = await arrange();
    const semantic = new SemanticIndex(store.chunkEmbeddings, workspaceId);
    await semantic.update(index, embedder(), { redactPatterns });
    const ranker = new PromptRanker(semantic, { retryMs: 60_000 });
    expect(ranker.key(embedder())).toBe(`all-minilm#${semantic.version}`);
    expect(ranker.key(embedder('another-model'))).toBeNull();
    expect(ranker.key(undefined)).toBeNull();

    // "cost", "reduction" and "item" are in no file; the fake model folds them into price, discount, unit.
    const prompt = 'cost reduction for each item';
    expect(index.query(prompt, { topN: 5 }).items.map((i) => i.path)).not.toContain('src/pricing/discount.py');
    const hits = await ranker.rank(embedder(), prompt, redactPatterns);
    expect(hits?.[0]).toMatchObject({ path: 'src/pricing/discount.py', startLine: 1, endLine: 3 });
    const fused = index.query(prompt, { topN: 5, semantic: hits ?? [] });
    expect(fused.items[0]!.path).toBe('src/pricing/discount.py');
    expect(fused.items[0]!.rationale.map((r) => r.signal)).toContain('semantic');

    // The prompt is redacted before it leaves.
    const sent = backend.embedded.length;
    await ranker.rank(embedder(), `why does ${SECRET} fail`, redactPatterns);
    expect(backend.embedded.slice(sent)).toEqual(['why does [redacted] fail']);

    const closed = await startFakeBackend();
    await closed.close();
    expect(await ranker.rank(embedder('all-minilm', closed.baseUrl), prompt, redactPatterns)).toBeUndefined();
    expect(ranker.status()).toEqual({ error: expect.stringMatching(/^cannot connect to http:\/\/127\.0\.0\.1:\d+\/v1/), retry_at: expect.any(String) });
    // Until the retry time, queries are not fused and the backend is not asked.
    expect(ranker.key(embedder())).toBeNull();
  });
});
