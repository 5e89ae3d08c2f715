/**
 * The embedding client against our deterministic OpenAI-compatible server over loopback: vectors
 * in input order, batches of the configured size, and every failure a one-line BackendError
 * (missing key before any request, unreachable, a server error, a timeout).
 */
import * as http from 'node:http';
import { BackendError, createEmbeddingClient } from '@sous/backend';
import { bagOfWords, startFakeBackend, type FakeBackend } from '../../../test/support/fake-backend';

const target = (baseUrl: string, apiKeyEnv = '') => ({ name: 'fake', baseUrl, model: 'all-minilm', apiKeyEnv });

async function failure(promise: Promise<unknown>): Promise<BackendError> {
  try {
    await promise;
  } catch (err) {
    expect(err).toBeInstanceOf(BackendError);
    return err as BackendError;
  }
  throw new Error('expected a BackendError');
}

describe('the embedding client', () => {
  let backend: FakeBackend;
  beforeAll(async () => {
    backend = await startFakeBackend();
  });
  afterAll(() => backend.close());

  test('one vector per text, in order, sent in batches of the configured size', async () => {
    const client = createEmbeddingClient(target(backend.baseUrl), { batchSize: 2 });
    const before = backend.requests.length;
    const texts = ['alpha beta', 'gamma', 'delta epsilon', 'zeta', 'eta theta'];
    const vectors = await client.embed(texts);
    expect(backend.requests.slice(before)).toEqual(['POST /v1/embeddings', 'POST /v1/embeddings', 'POST /v1/embeddings']);
    expect(vectors).toHaveLength(5);
    vectors.forEach((v, i) => expect(v).toEqual(bagOfWords(texts[i]!, 128).map((x) => expect.closeTo(x, 6))));
    expect(await client.embed([])).toEqual([]);
    expect(client.model).toBe('all-minilm');
  });

  test('a named but unset key variable fails before any request', () => {
    let err: unknown;
    try {
      createEmbeddingClient(target(backend.baseUrl, 'SOUS_TEST_UNSET_KEY'), { env: {} });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(BackendError);
    expect(err).toMatchObject({ code: 'missing_key', message: expect.stringContaining('SOUS_TEST_UNSET_KEY') });
  });

  test('a server error, an unreachable server and a silent one are one-line BackendErrors', async () => {
    backend.failEmbeddings = true;
    try {
      const err = await failure(createEmbeddingClient(target(backend.baseUrl)).embed(['x']));
      expect(err).toMatchObject({ code: 'failed', message: expect.stringMatching(/answered 500: .*embedding model not loaded/) });
    } finally {
      backend.failEmbeddings = false;
    }

    const closed = await startFakeBackend();
    await closed.close();
    expect(await failure(createEmbeddingClient(target(closed.baseUrl)).embed(['x']))).toMatchObject({ code: 'unreachable', message: expect.stringMatching(/^cannot connect to /) });

    // A server that accepts the request and never answers: the per-call timeout ends it.
    const silent = http.createServer(() => undefined);
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', () => r()));
    try {
      const url = `http://127.0.0.1:${(silent.address() as { port: number }).port}/v1`;
      const started = Date.now();
      const err = await failure(createEmbeddingClient(target(url)).embed(['x'], { timeoutMs: 300 }));
      expect(err).toMatchObject({ code: 'timeout', message: expect.stringMatching(/^no answer from .* within the timeout$/) });
      expect(Date.now() - started).toBeLessThan(5000);
    } finally {
      silent.closeAllConnections();
      await new Promise<void>((r) => silent.close(() => r()));
    }
  });
});
