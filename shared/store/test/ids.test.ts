/**
 * Record ids (UUIDv7): they sort as text in the order a process made them, even many in one
 * millisecond, because "oldest first" reads (the skills loop, feeds) break `created_at` ties by id.
 */
import { newId } from '../src';

const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('newId', () => {
  test('ids made in a tight loop sort in the order they were made, and are UUIDv7', () => {
    const ids = Array.from({ length: 20_000 }, () => newId());
    expect([...ids].sort()).toEqual(ids);
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of ids) expect(id).toMatch(UUID_V7);
  });

  test('the first 48 bits are the millisecond it was made', () => {
    const before = Date.now();
    const id = newId();
    const ms = parseInt(id.replace(/-/g, '').slice(0, 12), 16);
    expect(ms).toBeGreaterThanOrEqual(before);
    expect(ms).toBeLessThanOrEqual(Date.now() + 1);
  });

  test('a clock that goes back still gives ids that sort after the earlier ones', () => {
    const later = newId(Date.now() + 5_000);
    const earlier = newId(Date.now());
    expect(earlier > later).toBe(true);
  });

  test('more than 4096 ids in one millisecond stay in order', () => {
    const ms = Date.now() + 60_000;
    const ids = Array.from({ length: 10_000 }, () => newId(ms));
    expect([...ids].sort()).toEqual(ids);
  });
});
