import { randomBytes, randomInt } from 'node:crypto';

/**
 * The last id's millisecond and its 12-bit sequence (RFC 9562 §6.2, method 1): ids made in the same
 * millisecond count up, so a process's ids sort in the order it made them. Rows stamped with the
 * same `created_at` (PGlite's clock ticks in milliseconds) then still read oldest first.
 */
let lastMs = -1;
let sequence = 0;

/**
 * A new record id: a UUID version 7 (RFC 9562). Its first 48 bits are the Unix time in milliseconds,
 * so ids sort by creation time as text, which keeps "most recent" lookups cheap and ids readable.
 */
export function newId(now: number = Date.now()): string {
  if (now > lastMs) {
    lastMs = now;
    // A random start leaves half the range free for ids made later in the same millisecond.
    sequence = randomInt(0, 0x800);
  } else if (++sequence > 0xfff) {
    // More than 4096 ids in one millisecond, or a clock that went back: borrow the next millisecond.
    lastMs += 1;
    sequence = randomInt(0, 0x800);
  }
  const bytes = randomBytes(16);
  bytes.writeUIntBE(lastMs, 0, 6);
  bytes[6] = 0x70 | (sequence >> 8); // version 7, then the sequence's high 4 bits
  bytes[7] = sequence & 0xff;
  bytes[8] = 0x80 | (bytes[8]! & 0x3f); // RFC 9562 variant
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
