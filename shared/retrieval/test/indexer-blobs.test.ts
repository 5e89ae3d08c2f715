/**
 * How the index holds file texts: short ones as they are, long ones deflated, and every one given
 * back exactly (snippets and the store need the very same text).
 */
import { buildRepositoryIndex } from '../src/indexer';
import { packText, PACK_MIN_CHARS, UNPACKED_CACHE_CHARS, unpackText } from '../src/indexer/blobs';
import { cleanupFixtures, commit, defaultPolicy, fixture } from './indexer-fixture';

afterEach(cleanupFixtures);

/** A long source file with non-ASCII text, and one line worth finding. */
function longSource(): { text: string; line: string } {
  const line = 'export function reconcileQuarterlyLedger(): string { return "Σ total — naïve café 📒"; }';
  const lines = Array.from({ length: 400 }, (_, i) => `export const ledgerEntry${i} = 'entry ${i}: crème brûlée';`);
  lines[250] = line;
  return { text: `${lines.join('\n')}\n`, line };
}

describe('packed texts', () => {
  test('a short text is held as it is; a long one deflated to less, and both come back exactly', () => {
    const short = 'export const x = 1;\n';
    expect(packText(short)).toBe(short);
    const { text } = longSource();
    expect(text.length).toBeGreaterThan(PACK_MIN_CHARS);
    const packed = packText(text);
    expect(Buffer.isBuffer(packed)).toBe(true);
    expect(packed.length).toBeLessThan(Buffer.byteLength(text) / 2);
    expect(unpackText(packed)).toBe(text);
    expect(unpackText(packText(short))).toBe(short);
  });

  test('texts read again, after many others pushed them out of the recently inflated ones, come back exactly', () => {
    // Twice the cache's capacity of distinct texts, each read twice in a row, then all again.
    const size = Math.floor(UNPACKED_CACHE_CHARS / 16);
    const texts = Array.from({ length: 32 }, (_, i) => `// file ${i}\n${`export const v${i} = ${i};\n`.repeat(Math.ceil(size / 24))}`);
    const packed = texts.map(packText);
    texts.forEach((text, i) => {
      expect(unpackText(packed[i]!)).toBe(text);
      expect(unpackText(packed[i]!)).toBe(text);
    });
    texts.forEach((text, i) => expect(unpackText(packed[i]!)).toBe(text));
  });

  test('snippets and stored rows of a long file quote its text exactly', async () => {
    const dir = fixture();
    const { text, line } = longSource();
    commit(dir, { 'src/app/ledger.ts': text }, '2024-05-01T00:00:00Z');
    const index = await buildRepositoryIndex(dir, defaultPolicy());

    const item = index.query('reconcileQuarterlyLedger', { topN: 1 }).items[0];
    expect(item?.path).toBe('src/app/ledger.ts');
    expect(item?.snippet.text).toContain(line);
    expect(text).toContain(item?.snippet.text);

    const stored = index.takeChanges().upserted.find((f) => f.path === 'src/app/ledger.ts');
    expect(stored?.text).toBe(text);
  });
});
