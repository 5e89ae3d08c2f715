/**
 * The pure parts of the semantic stage: chunks of whole lines within the line and character
 * bounds, overlapping a little; the planner's content keys (redaction counts) and its plan.
 */
import { CHUNK_MAX_CHARS, CHUNK_MAX_LINES, chunkText, contentKey, embeddingInput, planEmbeddings } from '../src';

const lines = (n: number, width = 10): string => Array.from({ length: n }, (_, i) => `l${i + 1}`.padEnd(width, '.')).join('\n');

describe('chunking an indexed text', () => {
  test('a short file is one chunk of all its lines; a final newline adds no line', () => {
    expect(chunkText('a\nb\nc\n')).toEqual([{ startLine: 1, endLine: 3, text: 'a\nb\nc' }]);
    expect(chunkText('a\r\nb')).toEqual([{ startLine: 1, endLine: 2, text: 'a\nb' }]);
  });

  test('an empty or blank file has no chunk', () => {
    expect(chunkText('')).toEqual([]);
    expect(chunkText('\n   \n\t\n')).toEqual([]);
  });

  test('long files are cut every 60 lines with a 10-line overlap', () => {
    const chunks = chunkText(lines(150));
    expect(chunks.map((c) => [c.startLine, c.endLine])).toEqual([
      [1, 60],
      [51, 110],
      [101, 150],
    ]);
    expect(chunks[1]!.text.split('\n')[0]).toBe('l51.......');
    for (const c of chunks) expect(c.endLine - c.startLine + 1).toBeLessThanOrEqual(CHUNK_MAX_LINES);
  });

  test('long lines end a chunk at 1,500 characters; the overlap stays under a quarter of a chunk', () => {
    const chunks = chunkText(lines(40, 299)); // 300 characters a line with its newline: 5 lines a chunk
    expect(chunks[0]).toMatchObject({ startLine: 1, endLine: 5 });
    expect(chunks[1]).toMatchObject({ startLine: 5, endLine: 9 });
    for (const c of chunks) expect(c.text.length).toBeLessThanOrEqual(CHUNK_MAX_CHARS);
    expect(chunks.at(-1)!.endLine).toBe(40);
  });

  test('a single line longer than a chunk is cut to it (a minified file is one chunk per line)', () => {
    const chunks = chunkText(`${'x'.repeat(5000)}\nshort`);
    expect(chunks.map((c) => [c.startLine, c.endLine, c.text.length])).toEqual([
      [1, 1, CHUNK_MAX_CHARS],
      [2, 2, 5],
    ]);
  });

  test('a file yields at most maxChunks chunks', () => {
    expect(chunkText(lines(1000), { maxChunks: 3 })).toHaveLength(3);
  });

  test('what is sent for a chunk is its path, then its lines', () => {
    expect(embeddingInput('src/a.ts', { startLine: 3, endLine: 4, text: 'x\ny' })).toBe('src/a.ts\nx\ny');
  });
});

describe('planning what to embed', () => {
  test('a content key changes with the bytes and with the redaction, not with anything else', () => {
    const a = contentKey('abc', [/sk-[a-z]+/]);
    expect(contentKey('abc', [/sk-[a-z]+/])).toBe(a);
    expect(contentKey('abd', [/sk-[a-z]+/])).not.toBe(a);
    expect(contentKey('abc', [])).not.toBe(a);
    expect(a).toMatch(/^[0-9a-f]{64}$/);
  });

  test('new and changed files are embedded, deleted ones dropped, the rest left alone', () => {
    const plan = planEmbeddings(
      [
        { path: 'src/b.ts', contentKey: 'b2' },
        { path: 'src/a.ts', contentKey: 'a1' },
        { path: 'src/new.ts', contentKey: 'n1' },
      ],
      [
        { path: 'src/a.ts', contentKey: 'a1' },
        { path: 'src/b.ts', contentKey: 'b1' },
        { path: 'src/gone.ts', contentKey: 'g1' },
      ],
    );
    expect(plan).toEqual({ embed: ['src/b.ts', 'src/new.ts'], remove: ['src/gone.ts'], unchanged: 1 });
  });
});
