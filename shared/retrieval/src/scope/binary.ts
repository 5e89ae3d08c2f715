/*
 * Text or binary. A file is binary when its first BINARY_SNIFF_BYTES hold a NUL byte (what git and
 * grep go by), or when more than MAX_INVALID_UTF8_RATIO of its decoded characters are invalid UTF-8
 * (images and archives without an early NUL; a Latin-1 file with a few accented letters stays text).
 * A text file with NUL bytes further in (a test table, an embedded header) keeps its text with each
 * NUL replaced by U+FFFD: nothing downstream (the store's text columns above all) can take a NUL.
 */
import type { DegradeReason } from './content-kind';

/** How much of a file the NUL check looks at: 8 KiB, like git. */
export const BINARY_SNIFF_BYTES = 8 * 1024;

/** Share of characters that may be invalid UTF-8 (decoded as U+FFFD) before a file counts as binary. */
export const MAX_INVALID_UTF8_RATIO = 0.1;

const REPLACEMENT_CHAR = 0xfffd;

/** The outcome of decoding a file's bytes; `degraded` says what had to be replaced. */
export type DecodedText = { binary: true } | { binary: false; text: string; degraded?: Extract<DegradeReason, 'nul_bytes' | 'invalid_utf8'> };

/** Decodes `bytes` as UTF-8 text (a leading BOM is dropped), or says the bytes are binary. */
export function decodeText(bytes: Uint8Array): DecodedText {
  const sniff = bytes.subarray(0, BINARY_SNIFF_BYTES);
  if (sniff.includes(0)) return { binary: true };
  const text = new TextDecoder('utf-8', { fatal: false }).decode(bytes);
  if (text.length === 0) return { binary: false, text };
  let invalid = 0;
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) === REPLACEMENT_CHAR) invalid++;
  if (invalid / text.length > MAX_INVALID_UTF8_RATIO) return { binary: true };
  if (bytes.includes(0, BINARY_SNIFF_BYTES)) return { binary: false, text: text.replace(/\0/g, '\uFFFD'), degraded: 'nul_bytes' };
  if (invalid > 0) return { binary: false, text, degraded: 'invalid_utf8' };
  return { binary: false, text };
}
