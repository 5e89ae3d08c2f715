/**
 * Cutting an indexed file's text into the pieces that get one embedding each. Chunks are whole
 * lines, so a hit points at lines a reader can open and a snippet can show.
 *
 * Why these sizes: small sentence-embedding models (all-minilm, nomic-embed-text, bge-small) read
 * 256 to 512 tokens and drop the rest; ~1,500 characters of code is ~400 tokens, and 60 lines is
 * about one function or a screenful, the unit a question is usually about. Consecutive chunks
 * share up to 10 lines (never more than a quarter of a chunk) so a function cut at a boundary is
 * still whole in one of them.
 */

/** Most lines in one chunk. */
export const CHUNK_MAX_LINES = 60;
/** Most characters in one chunk (a longer single line is cut to this). */
export const CHUNK_MAX_CHARS = 1500;
/** Lines a chunk repeats from the end of the previous one (at most a quarter of that chunk). */
export const CHUNK_OVERLAP_LINES = 10;
/** Chunks taken from one file (~12,000 lines); the rest of a larger file is not embedded. */
export const MAX_CHUNKS_PER_FILE = 200;

/** One chunk: 1-based inclusive lines of the text, and those lines. */
export interface TextChunk {
  startLine: number;
  endLine: number;
  text: string;
}

export interface ChunkOptions {
  maxLines?: number;
  maxChars?: number;
  overlapLines?: number;
  maxChunks?: number;
}

/** The parameters chunks were cut with, for content keys: other parameters mean other chunks. */
export function chunkingKey(options: ChunkOptions = {}): string {
  const o = resolve(options);
  return `lines=${o.maxLines},chars=${o.maxChars},overlap=${o.overlapLines},max=${o.maxChunks}`;
}

function resolve(options: ChunkOptions): Required<ChunkOptions> {
  return {
    maxLines: Math.max(1, Math.floor(options.maxLines ?? CHUNK_MAX_LINES)),
    maxChars: Math.max(1, Math.floor(options.maxChars ?? CHUNK_MAX_CHARS)),
    overlapLines: Math.max(0, Math.floor(options.overlapLines ?? CHUNK_OVERLAP_LINES)),
    maxChunks: Math.max(1, Math.floor(options.maxChunks ?? MAX_CHUNKS_PER_FILE)),
  };
}

/**
 * Line-bounded chunks of `text`: each at most `maxLines` lines and `maxChars` characters (one line
 * at least), overlapping the previous one by up to `overlapLines`. Chunks of blank lines only are
 * left out; an empty text has none.
 */
export function chunkText(text: string, options: ChunkOptions = {}): TextChunk[] {
  const { maxLines, maxChars, overlapLines, maxChunks } = resolve(options);
  const lines = text.split(/\r?\n/);
  // A final newline ends the last line; it does not start another one.
  if (lines.length > 1 && lines.at(-1) === '') lines.pop();
  const n = lines.length;
  const chunks: TextChunk[] = [];
  let start = 0;
  while (start < n && chunks.length < maxChunks) {
    let end = start;
    let chars = 0;
    while (end < n && end - start < maxLines) {
      const length = Math.min((lines[end] as string).length, maxChars) + 1;
      if (end > start && chars + length > maxChars) break;
      chars += length;
      end += 1;
    }
    const body = lines.slice(start, end).map((line) => (line.length > maxChars ? line.slice(0, maxChars) : line));
    if (body.some((line) => line.trim() !== '')) chunks.push({ startLine: start + 1, endLine: end, text: body.join('\n') });
    if (end >= n) break;
    const overlap = Math.min(overlapLines, Math.floor((end - start) / 4));
    start = Math.max(start + 1, end - overlap);
  }
  return chunks;
}

/**
 * What is sent to the embedding model for a chunk: its path on the first line (names carry meaning:
 * `auth/session.ts`), then its lines. Never more than the chunk's own text.
 */
export function embeddingInput(path: string, chunk: TextChunk): string {
  return `${path}\n${chunk.text}`;
}
