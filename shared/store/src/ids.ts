import { randomBytes } from 'node:crypto';

/**
 * A new record id: a UUID version 7 (RFC 9562). Its first 48 bits are the Unix time in milliseconds,
 * so ids sort by creation time as text, which keeps "most recent" lookups cheap and ids readable.
 */
export function newId(now: number = Date.now()): string {
  const bytes = randomBytes(16);
  bytes.writeUIntBE(now, 0, 6);
  bytes[6] = 0x70 | (bytes[6]! & 0x0f); // version 7
  bytes[8] = 0x80 | (bytes[8]! & 0x3f); // RFC 9562 variant
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
