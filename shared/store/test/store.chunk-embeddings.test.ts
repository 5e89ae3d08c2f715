/**
 * Chunk embeddings of the semantic stage, on PGlite and PostgreSQL: files replaced whole, removed by
 * path or by model, vectors paged, nearest chunks by cosine, and how similarity is computed here
 * (pgvector where the server has it; this machine's PostgreSQL has not, so arrays in process).
 */
import { randomUUID } from 'node:crypto';
import { StoreError, VECTOR_PAGE_ROWS, type Store } from '@sous/store';
import { pgliteFactory, postgresFactory, rejection, type StoreFactory } from './helpers';

const factories: StoreFactory[] = [pgliteFactory(), postgresFactory()];

describe.each(factories)('chunk embeddings in the store ($name)', (factory) => {
  let store: Store;

  beforeAll(async () => {
    store = await factory.open();
  });

  afterAll(async () => {
    await store?.close();
    await factory.cleanup();
  });

  async function workspace(): Promise<string> {
    return (await store.workspaces.upsertByRoot({ rootPath: `/tmp/sous-chunks/${randomUUID()}` })).id;
  }

  const chunk = (startLine: number, endLine: number, embedding: number[]) => ({ startLine, endLine, embedding });

  it('says how similarity is computed: pgvector when enabled, else arrays in process', async () => {
    const support = await store.chunkEmbeddings.vectorSupport();
    if (factory.name === 'pglite') expect(support).toEqual({ kind: 'array', detail: expect.stringMatching(/PGlite.*in process/) });
    else if (support.kind === 'array') expect(support.detail).toMatch(/pgvector is (not installed|installed but not enabled).*in process/);
    else expect(support.detail).toMatch(/^pgvector \S+: similarity is computed in PostgreSQL$/);
  });

  it('replaces a file\'s chunks whole and lists files with their content key', async () => {
    const ws = await workspace();
    const repo = store.chunkEmbeddings;
    await repo.replaceFiles(ws, 'm1', [
      { path: 'src/a.ts', contentKey: 'ka1', chunks: [chunk(1, 60, [1, 0, 0]), chunk(51, 90, [0, 1, 0])] },
      { path: 'src/b.ts', contentKey: 'kb1', chunks: [chunk(1, 3, [0, 0, 1])] },
    ]);
    expect(await repo.files(ws, 'm1')).toEqual([
      { path: 'src/a.ts', contentKey: 'ka1', chunks: 2 },
      { path: 'src/b.ts', contentKey: 'kb1', chunks: 1 },
    ]);
    // A changed file: its old chunks go, the new ones come, the other file stays.
    await repo.replaceFiles(ws, 'm1', [{ path: 'src/a.ts', contentKey: 'ka2', chunks: [chunk(1, 10, [0.5, 0.5, 0])] }]);
    expect(await repo.files(ws, 'm1')).toEqual([
      { path: 'src/a.ts', contentKey: 'ka2', chunks: 1 },
      { path: 'src/b.ts', contentKey: 'kb1', chunks: 1 },
    ]);
    const vectors = await repo.vectors(ws, 'm1');
    expect(vectors.map((v) => [v.path, v.chunk, v.startLine, v.endLine])).toEqual([
      ['src/a.ts', 0, 1, 10],
      ['src/b.ts', 0, 1, 3],
    ]);
    expect(vectors[0]!.embedding).toEqual([0.5, 0.5, 0]);
    expect(await repo.summary(ws, 'm1')).toEqual({ files: 2, chunks: 2, dims: 3 });
    // A file whose text now has no chunk is cleared.
    await repo.replaceFiles(ws, 'm1', [{ path: 'src/b.ts', contentKey: 'kb2', chunks: [] }]);
    expect((await repo.files(ws, 'm1')).map((f) => f.path)).toEqual(['src/a.ts']);
    expect(await repo.summary(await workspace(), 'm1')).toEqual({ files: 0, chunks: 0, dims: null });
  });

  it('pages through vectors in (path, chunk) order', async () => {
    const ws = await workspace();
    const repo = store.chunkEmbeddings;
    await repo.replaceFiles(ws, 'm1', [
      { path: 'a', contentKey: 'k', chunks: [chunk(1, 2, [1, 0]), chunk(2, 3, [0, 1]), chunk(3, 4, [1, 1])] },
      { path: 'b', contentKey: 'k', chunks: [chunk(1, 2, [1, 0])] },
    ]);
    const first = await repo.vectors(ws, 'm1', { limit: 2 });
    expect(first.map((v) => `${v.path}#${v.chunk}`)).toEqual(['a#0', 'a#1']);
    const rest = await repo.vectors(ws, 'm1', { after: first[1]!, limit: 2 });
    expect(rest.map((v) => `${v.path}#${v.chunk}`)).toEqual(['a#2', 'b#0']);
    expect(VECTOR_PAGE_ROWS).toBeGreaterThan(2);
  });

  it('removes chunks by path (every model) and by model (the configured one changed)', async () => {
    const ws = await workspace();
    const repo = store.chunkEmbeddings;
    for (const model of ['m1', 'm2']) {
      await repo.replaceFiles(ws, model, [
        { path: 'gone.ts', contentKey: 'k', chunks: [chunk(1, 2, [1, 0])] },
        { path: 'kept.ts', contentKey: 'k', chunks: [chunk(1, 2, [0, 1])] },
      ]);
    }
    expect(await repo.removePaths(ws, ['gone.ts'])).toBe(2);
    expect((await repo.files(ws, 'm1')).map((f) => f.path)).toEqual(['kept.ts']);
    expect(await repo.removeOtherModels(ws, 'm2')).toBe(1);
    expect(await repo.files(ws, 'm1')).toEqual([]);
    expect((await repo.files(ws, 'm2')).map((f) => f.path)).toEqual(['kept.ts']);
  });

  it('finds the nearest chunks by cosine, within one workspace, model and vector length', async () => {
    const ws = await workspace();
    const other = await workspace();
    const repo = store.chunkEmbeddings;
    await repo.replaceFiles(ws, 'm1', [
      { path: 'src/login.ts', contentKey: 'k', chunks: [chunk(1, 40, [0.9, 0.1, 0]), chunk(31, 70, [0, 0, 1])] },
      { path: 'src/report.ts', contentKey: 'k', chunks: [chunk(1, 20, [0.1, 0.9, 0])] },
      { path: 'src/flat.ts', contentKey: 'k', chunks: [chunk(1, 5, [0, 0, -1])] },
    ]);
    await repo.replaceFiles(ws, 'm2', [{ path: 'src/other-model.ts', contentKey: 'k', chunks: [chunk(1, 2, [1, 0, 0])] }]);
    await repo.replaceFiles(other, 'm1', [{ path: 'src/other-workspace.ts', contentKey: 'k', chunks: [chunk(1, 2, [1, 0, 0])] }]);
    const hits = await repo.nearest(ws, 'm1', [1, 0, 0], 3);
    expect(hits.map((h) => [h.path, h.startLine, h.endLine])).toEqual([
      ['src/login.ts', 1, 40],
      ['src/report.ts', 1, 20],
      // Orthogonal chunks tie at 0; the order among them is by path, then line.
      ['src/flat.ts', 1, 5],
    ]);
    expect(hits[0]!.similarity).toBeCloseTo(0.9 / Math.hypot(0.9, 0.1), 5);
    expect(hits[1]!.similarity).toBeCloseTo(0.1 / Math.hypot(0.1, 0.9), 5);
    expect(await repo.nearest(ws, 'm1', [1, 0], 3)).toEqual([]);
    expect(await repo.nearest(ws, 'm1', [1, 0, 0], 0)).toEqual([]);
  });

  it('refuses an empty vector with a StoreError', async () => {
    const ws = await workspace();
    const err = await rejection(store.chunkEmbeddings.replaceFiles(ws, 'm1', [{ path: 'a', contentKey: 'k', chunks: [chunk(1, 2, [])] }]));
    expect(err).toBeInstanceOf(StoreError);
    expect((err as StoreError).code).toBe('store_invalid_value');
    expect(await store.chunkEmbeddings.files(ws, 'm1')).toEqual([]);
  });
});
