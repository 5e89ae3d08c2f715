/**
 * Fusion: reciprocal rank fusion of the lexical and semantic rankings, with a `semantic` rationale;
 * a file scores its best chunk; a query with no semantic ranking is the lexical answer exactly.
 */
import { buildRepositoryIndex, cosineSimilarity, fileRanking, fuseRankings, RRF_K, type RankedFile, type RepositoryIndex } from '../src';
import { cleanupFixtures, defaultPolicy, fixture, resultPaths } from './indexer-fixture';

const lexical = (path: string, weight: number): RankedFile => ({ path, score: weight, rationale: [{ signal: 'lexical', detail: 'bm25', weight }] });
const hit = (path: string, similarity: number, startLine = 1, endLine = 60) => ({ path, similarity, startLine, endLine });

describe('reciprocal rank fusion', () => {
  test('a file scores 1/(k+rank) in each list it is in; both lists beat one', () => {
    const fused = fuseRankings([lexical('a', 2), lexical('b', 1)], [hit('b', 0.9, 40, 98), hit('c', 0.8)]);
    expect(fused.map((f) => f.path)).toEqual(['b', 'a', 'c']);
    expect(fused[0]!.score).toBeCloseTo(1 / (RRF_K + 2) + 1 / (RRF_K + 1), 6);
    expect(fused[0]!.rationale).toEqual([
      { signal: 'lexical', detail: 'bm25', weight: 1 },
      { signal: 'semantic', detail: 'embedding similarity 0.90, chunk lines 40-98', weight: 0.9 },
    ]);
    // a is first in one list (1/61), c second in the other (1/62).
    expect(fused[1]!.score).toBeCloseTo(1 / (RRF_K + 1), 6);
    expect(fused[2]).toEqual({ path: 'c', score: Math.round((1 / (RRF_K + 2)) * 1e6) / 1e6, rationale: [{ signal: 'semantic', detail: 'embedding similarity 0.80, chunk lines 1-60', weight: 0.8 }] });
  });

  test('equal ranks: the lexical file first, then the more similar one', () => {
    expect(fuseRankings([lexical('lex', 1)], [hit('sem', 0.99)]).map((f) => f.path)).toEqual(['lex', 'sem']);
    expect(fuseRankings([], [hit('x', 0.5), hit('y', 0.4)]).map((f) => f.path)).toEqual(['x', 'y']);
  });

  test('k is an option', () => {
    expect(fuseRankings([lexical('a', 1)], [], { k: 0 })[0]!.score).toBe(1);
  });
});

describe('the semantic file ranking', () => {
  test('a file scores its best chunk; files under the floor are left out', () => {
    const ranking = fileRanking(
      [
        { path: 'a', startLine: 1, endLine: 60, similarity: 0.5 },
        { path: 'a', startLine: 51, endLine: 110, similarity: 0.7 },
        { path: 'b', startLine: 1, endLine: 9, similarity: 0.6 },
        { path: 'c', startLine: 1, endLine: 9, similarity: 0.1 },
      ],
      { minSimilarity: 0.2 },
    );
    expect(ranking).toEqual([hit('a', 0.7, 51, 110), hit('b', 0.6, 1, 9)]);
  });

  test('cosine similarity', () => {
    expect(cosineSimilarity([1, 0], [2, 0])).toBeCloseTo(1, 6);
    expect(cosineSimilarity([1, 0], [0, 3])).toBeCloseTo(0, 6);
    expect(cosineSimilarity([0, 0], [1, 0])).toBe(0);
  });
});

describe('a query with a semantic ranking', () => {
  let index: RepositoryIndex;
  beforeAll(async () => {
    index = await buildRepositoryIndex(fixture(), defaultPolicy());
  });
  afterAll(() => cleanupFixtures());

  const withoutTime = (r: ReturnType<RepositoryIndex['query']>) => ({ ...r, stats: { ...r.stats, took_ms: 0 } });

  test('without one (or with an empty one) the answer is the lexical answer, unchanged', () => {
    for (const prompt of ['loadUserProfile returns undefined for new accounts', 'ZeroDivisionError in apply_discount', 'nothing matches zzz']) {
      const plain = withoutTime(index.query(prompt, { topN: 5 }));
      expect(withoutTime(index.query(prompt, { topN: 5, semantic: [] }))).toEqual(plain);
      expect(JSON.stringify(withoutTime(index.query(prompt, { topN: 5, semantic: [] })))).toBe(JSON.stringify(plain));
    }
  });

  test('a file only the semantic side found is fused in, with its best chunk as the snippet', () => {
    const prompt = 'loadUserProfile returns undefined for new accounts';
    const lexicalPaths = resultPaths(index.query(prompt, { topN: 5 }));
    expect(lexicalPaths).not.toContain('src/pricing/discount.py');
    const fused = index.query(prompt, { topN: 5, semantic: [hit('src/pricing/discount.py', 0.83, 2, 3), hit('src/app/gone.ts', 0.9)] });
    const item = fused.items.find((i) => i.path === 'src/pricing/discount.py');
    expect(item?.rationale).toEqual([{ signal: 'semantic', detail: 'embedding similarity 0.83, chunk lines 2-3', weight: 0.83 }]);
    expect(item?.snippet).toEqual({ startLine: 2, endLine: 3, text: '    """Price per unit after the discount."""\n    return total / quantity' });
    // A vector of a file the index no longer holds is not answered.
    expect(resultPaths(fused)).not.toContain('src/app/gone.ts');
    // The lexical best file is still first: it is first in one list, the semantic-only file is second in the other.
    expect(fused.items[0]!.path).toBe(lexicalPaths[0]);
    expect(fused.items).toHaveLength(5);
  });
});
