/**
 * Content-addressed cache of parsed file contents. Identical contents (copies, or a file switching
 * back and forth between branches) are parsed once: the key is the sha256 of the bytes on disk plus
 * the language (the same bytes parse differently as Python and as text).
 */
import { createHash } from 'node:crypto';
import { deflateRawSync, inflateRawSync } from 'node:zlib';
import type { DegradeReason } from '../scope';
import type { FileSymbols } from '../symbols';
import { symbolParserPool } from '../symbols/parser-pool';

/** Unreferenced blobs kept for a later switch back (a branch switch), oldest dropped first. */
export const DEFAULT_ORPHAN_BLOBS = 512;

/** Texts shorter than this (in characters) are held as they are: deflating them saves little. */
export const PACK_MIN_CHARS = 2048;

/**
 * A text as the index holds it: short ones as strings, longer ones deflated. Source code deflates to
 * about a quarter, and the index needs the whole text only for a query's few snippets and for
 * writing it to the store, so it is inflated on demand (`unpackText`).
 */
export type PackedText = string | Buffer;

/** `text` as held in memory (fast deflate; about 65 MB/s). */
export function packText(text: string): PackedText {
  if (text.length < PACK_MIN_CHARS) return text;
  // zlib's result is a view of a 16 KiB chunk; a copy of the right size does not keep the rest.
  return Buffer.from(deflateRawSync(text, { level: 1 }));
}

/**
 * Characters of recently inflated texts kept (about 4 MB): a query's snippets, the next query's
 * about the same code, and the preparation cycle read the same few files again and again, and
 * inflating and decoding them was a third of a query's time.
 */
export const UNPACKED_CACHE_CHARS = 4 * 1024 * 1024;

/** Recently inflated texts by their packed buffer, least recently used first. */
const unpacked = new Map<Buffer, string>();
let unpackedChars = 0;

/** The text `packText` packed. */
export function unpackText(packed: PackedText): string {
  if (typeof packed === 'string') return packed;
  const known = unpacked.get(packed);
  if (known !== undefined) {
    unpacked.delete(packed);
    unpacked.set(packed, known);
    return known;
  }
  const text = inflateRawSync(packed).toString('utf8');
  if (text.length <= UNPACKED_CACHE_CHARS / 8) {
    unpacked.set(packed, text);
    unpackedChars += text.length;
    for (const [oldest, oldText] of unpacked) {
      if (unpackedChars <= UNPACKED_CACHE_CHARS) break;
      unpacked.delete(oldest);
      unpackedChars -= oldText.length;
    }
  }
  return text;
}

/** One distinct content: its (redacted) text, packed, and symbols. */
export interface Blob {
  readonly key: string;
  /** Redacted text as read (`unpackText` gives it back); never log it. */
  readonly content: PackedText;
  readonly symbols: FileSymbols;
  /** Why the content is indexed in a degraded form (the same bytes always give the same reason). */
  readonly degraded?: DegradeReason;
}

interface Entry {
  blob: Promise<Blob>;
  refs: number;
}

/**
 * The key of a content in a language, redacted one way: the same bytes redacted under other
 * `privacy.redact_patterns` are another text, in memory and in the store alike.
 */
export function blobKey(sha256: string, language: string, redaction: string): string {
  return `${sha256}:${language}:${redaction}`;
}

/** A short tag of a policy's redaction patterns, for `blobKey`. */
export function redactionTag(patterns: readonly RegExp[]): string {
  return createHash('sha256').update(patterns.map((p) => `${p.source}/${p.flags}`).join('\n')).digest('hex').slice(0, 12);
}

/** Blobs with reference counts; a blob nobody references waits in a bounded orphan list. */
export class BlobCache {
  private readonly entries = new Map<string, Entry>();
  /** Keys with refs = 0, oldest first (Map keeps insertion order). */
  private readonly orphans = new Map<string, true>();
  private parseCount = 0;

  constructor(private readonly maxOrphans: number = DEFAULT_ORPHAN_BLOBS) {}

  /** `extractSymbols` calls so far. */
  get parses(): number {
    return this.parseCount;
  }

  /** Distinct contents held (referenced or orphaned). */
  get size(): number {
    return this.entries.size;
  }

  /** Whether this content is cached (then `acquire` will not parse). */
  has(key: string): boolean {
    return this.entries.has(key);
  }

  /**
   * Takes a reference to the blob for `key`, parsing `text` only when the content is new. Concurrent
   * acquires of the same new content share one parse.
   */
  acquire(key: string, language: string, text: string, degraded?: DegradeReason): Promise<Blob> {
    let entry = this.entries.get(key);
    if (entry === undefined) {
      this.parseCount++;
      // Parsed on a worker thread (references dropped: they are not a ranking input).
      const blob = symbolParserPool().parse(language, text).then((symbols): Blob => ({ key, content: packText(text), symbols, ...(degraded === undefined ? {} : { degraded }) }));
      entry = { blob, refs: 0 };
      this.entries.set(key, entry);
    }
    entry.refs++;
    this.orphans.delete(key);
    return entry.blob;
  }

  /**
   * Takes a reference to a blob whose symbols were parsed before (read back from the store), so a
   * restart or a replica parses nothing. A cached blob is shared as is.
   */
  adopt(key: string, text: string, symbols: FileSymbols, degraded?: DegradeReason): Promise<Blob> {
    let entry = this.entries.get(key);
    if (entry === undefined) {
      entry = { blob: Promise.resolve({ key, content: packText(text), symbols, ...(degraded === undefined ? {} : { degraded }) }), refs: 0 };
      this.entries.set(key, entry);
    }
    entry.refs++;
    this.orphans.delete(key);
    return entry.blob;
  }

  /** Drops a reference; an unreferenced blob becomes an orphan and the oldest orphans are evicted. */
  release(key: string): void {
    const entry = this.entries.get(key);
    if (entry === undefined || entry.refs === 0) return;
    entry.refs--;
    if (entry.refs > 0) return;
    this.orphans.set(key, true);
    while (this.orphans.size > this.maxOrphans) {
      const oldest = this.orphans.keys().next().value as string;
      this.orphans.delete(oldest);
      this.entries.delete(oldest);
    }
  }
}
