import { codeTokens, type WeightedTerm } from '../src/ranking';
import { bestSnippet, SnippetTerms, type Snippet } from '../src/ranking/snippet';

/**
 * The plain definition `bestSnippet` must keep, as it read before it searched texts for the terms:
 * split into lines, score each line (distinct query terms among the `codeTokens` of its text, in
 * order), slide a window over every start.
 */
function plainSnippet(text: string, terms: readonly WeightedTerm[], maxLines: number): Snippet {
  const lines = text.split(/\r?\n/);
  const size = Math.max(1, Math.min(maxLines, lines.length));
  const weights = new Map<string, number>();
  for (const { term, weight } of terms) weights.set(term, Math.max(weights.get(term) ?? 0, weight));
  const scores = lines.map((line) => {
    let score = 0;
    const seen = new Set<string>();
    for (const token of codeTokens(line)) {
      if (!weights.has(token) || seen.has(token)) continue;
      seen.add(token);
      score += weights.get(token) ?? 0;
    }
    return score;
  });
  const firstAtOrAfter = (i: number): number => scores.findIndex((s, j) => j >= i && s > 0);
  const lastAtOrBefore = (i: number): number => {
    for (let j = i; j >= 0; j -= 1) if ((scores[j] ?? 0) > 0) return j;
    return -1;
  };
  let best = { start: 0, sum: -1, offCentre: Number.POSITIVE_INFINITY };
  let sum = scores.slice(0, size).reduce((a, b) => a + b, 0);
  for (let start = 0; start + size <= lines.length; start += 1) {
    if (start > 0) sum += (scores[start + size - 1] ?? 0) - (scores[start - 1] ?? 0);
    if (sum < best.sum - 1e-9) continue;
    const end = start + size - 1;
    const first = firstAtOrAfter(start);
    const offCentre = first < 0 || first > end ? 0 : Math.abs(first - start - (end - lastAtOrBefore(end)));
    if (sum > best.sum + 1e-9 || offCentre < best.offCentre) best = { start, sum, offCentre };
  }
  const picked = lines.slice(best.start, best.start + size);
  return { startLine: best.start + 1, endLine: best.start + picked.length, text: picked.join('\n') };
}

/** A small deterministic generator (no flaky inputs). */
function generator(seed: number): { next: () => number; pick: <T>(items: readonly T[]) => T } {
  let state = seed;
  const next = (): number => {
    state = (state * 1103515245 + 12345) % 2147483648;
    return state / 2147483648;
  };
  const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)] as T;
  return { next, pick };
}

const WORDS = [
  'user', 'users', 'entries', 'getUserName', 'HTTPServer', 'parseHTTPResponse2', 'MAX_RETRIES', 'cacheEntries', '_private$',
  'case', 'sourceMap', 'SourceMapConsumer', 'utf8', 'v8', 'ay', 'Ay', 'class', 'status', 'because', 'make', 'isKey', 'KEYS',
  'bias', '9abc', 'the', 'const', 'naïve', 'İstanbul', 'filler', 'x',
];
const TERMS = [
  'user', 'entry', 'cache', 'getusername', 'http', 'server', 'max_retry', 'retry', 'case', 'map', 'source', 'consumer',
  'sourcemapconsumer', 'utf8', 'v8', 'ay', 'class', 'status', 'key', 'bia', 'private', 'filler', 'foo-bar', 'istanbul',
];
const SEPARATORS = [' ', '.', '(', ', ', ' = ', '-', '/', '+', '\t', '"'];

/** Code-like text: CRLF or LF, empty lines, long base64 and minified runs, sparse matches. */
function randomText(g: ReturnType<typeof generator>): string {
  const lines: string[] = [];
  const count = Math.floor(g.next() * (g.next() < 0.5 ? 60 : 300));
  const sparse = g.next() < 0.5;
  for (let i = 0; i < count; i += 1) {
    const r = g.next();
    if (r < 0.08) lines.push('');
    else if (sparse && r < 0.85) lines.push(`  step(${i});`);
    else if (r < 0.12) {
      let run = '';
      while (run.length < 300 + g.next() * 1500) run += g.pick([...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/', ...WORDS]);
      lines.push(run);
    } else {
      let line = '';
      for (let j = Math.floor(g.next() * 8); j > 0; j -= 1) line += g.pick(WORDS) + g.pick(SEPARATORS);
      lines.push(line);
    }
  }
  const text = lines.join(g.next() < 0.3 ? '\r\n' : '\n');
  return g.next() < 0.1 ? `${text}\r` : text;
}

function randomTerms(g: ReturnType<typeof generator>): WeightedTerm[] {
  const terms: WeightedTerm[] = [];
  for (let k = Math.floor(g.next() * 6); k > 0; k -= 1) terms.push({ term: g.pick(TERMS), weight: g.pick([1, 1.5, 3, 0.1, 1 / 3, 2 / 3, 0]) });
  return terms;
}

describe('bestSnippet', () => {
  test('equals the plain definition on generated code', () => {
    const g = generator(7);
    for (let i = 0; i < 400; i += 1) {
      const text = randomText(g);
      const terms = randomTerms(g);
      const maxLines = g.pick([1, 2, 3, 5, 8, 40]);
      expect({ i, snippet: bestSnippet(text, terms, maxLines) }).toEqual({ i, snippet: plainSnippet(text, terms, maxLines) });
    }
  });

  test('finds terms inside long identifiers (minified code, base64), overlapping matches too', () => {
    const g = generator(11);
    const letters = ['a', 'b', 's', 'y', 'i', 'e', 'A', 'B', 'S', 'Y', 'I', 'E', '_', '1', '$'];
    for (let i = 0; i < 200; i += 1) {
      const lines = Array.from({ length: 1 + Math.floor(g.next() * 12) }, () => {
        let id = g.pick(['a', 'B', '_', '9']);
        for (let n = 300 + Math.floor(g.next() * 400); n > 0; n -= 1) id += g.pick(letters);
        return g.next() < 0.6 ? `v = ${id};` : 'step();';
      });
      const terms = [{ term: g.pick(['ay', 'sy', 'ab', 'aby', 'bab', 'abs', 'ie', 'es']), weight: 1 }, { term: g.pick(['ba', 'bay', 'sab', 'a_b']), weight: 1 / 3 }];
      const text = lines.join('\n');
      const maxLines = g.pick([1, 2, 3]);
      expect({ i, snippet: bestSnippet(text, terms, maxLines) }).toEqual({ i, snippet: plainSnippet(text, terms, maxLines) });
    }
  });

  test('one SnippetTerms serves many files like bestSnippet for each', () => {
    const g = generator(3);
    const terms = [{ term: 'user', weight: 3 }, { term: 'cache', weight: 1.5 }, { term: 'case', weight: 1 }];
    const shared = new SnippetTerms(terms);
    for (let i = 0; i < 50; i += 1) {
      const text = randomText(g);
      expect(shared.best(text, 5)).toEqual(bestSnippet(text, terms, 5));
    }
  });

  test('keeps CRLF out of the snippet text, a final lone CR in', () => {
    expect(bestSnippet('a\r\nuser\r\nb', [{ term: 'user', weight: 1 }], 2)).toEqual({ startLine: 1, endLine: 2, text: 'a\nuser' });
    expect(bestSnippet('a\r\nuser\r', [{ term: 'user', weight: 1 }], 1)).toEqual({ startLine: 2, endLine: 2, text: 'user\r' });
    expect(bestSnippet('', [{ term: 'user', weight: 1 }])).toEqual({ startLine: 1, endLine: 1, text: '' });
  });

  test('a part of a long identifier counts on its line', () => {
    const text = ['one', `v = ${'x'.repeat(300)}_loadUserEntries_${'q'.repeat(20)};`, 'three'].join('\n');
    expect(bestSnippet(text, [{ term: 'entry', weight: 1 }], 1)).toMatchObject({ startLine: 2, endLine: 2 });
  });
});
