/** The repository lease against a real Redis: one holder, renewals, takeover, never someone else's release. */
import { Redis } from 'ioredis';
import { RedisLease, leaseMsFromEnv, repositoryLeaseKey, type LeaseOptions } from '@sous/jobs';
import { redisUrl, uniqueName } from '../../../test/support/services';
import { until } from './helpers';

const TTL = 1_000;
let url: string;
let raw: Redis;
const keys: string[] = [];
let leases: RedisLease[] = [];

function lease(key: string, owner: string, extra: Partial<LeaseOptions> = {}): RedisLease {
  const l = new RedisLease({ redisUrl: url, key, owner, ttlMs: TTL, ...extra });
  leases.push(l);
  return l;
}

function newKey(): string {
  const key = repositoryLeaseKey(uniqueName('lease'));
  keys.push(key);
  return key;
}

beforeAll(async () => {
  url = await redisUrl();
  raw = new Redis(url);
});

afterEach(async () => {
  await Promise.all(leases.map((l) => l.stop()));
  leases = [];
});

afterAll(async () => {
  if (keys.length) await raw.del(...keys);
  await raw.quit();
});

test('only one of two contenders holds the lease, and renewals keep it past the lease time', async () => {
  const key = newKey();
  const a = lease(key, 'a');
  const b = lease(key, 'b');
  await a.start();
  await b.start();
  expect(a.held()).toBe(true);
  expect(b.held()).toBe(false);
  // Three lease times later (a's renewals running all along) a still holds it and b never got it.
  const end = Date.now() + 3 * TTL;
  await until(() => (Date.now() > end || !a.held() || b.held() ? true : false), (done) => done, 'three lease times', 10_000);
  expect(a.held()).toBe(true);
  expect(b.held()).toBe(false);
  expect(await raw.get(key)).toBe('a');
  expect(await raw.pttl(key)).toBeGreaterThan(0);
});

test('a holder that stops renewing (killed) is taken over once its lease runs out', async () => {
  const key = newKey();
  // A holder that took the lease and died: the key is there, nobody renews it.
  await raw.set(key, 'dead-holder', 'PX', TTL, 'NX');
  let acquired = 0;
  const b = lease(key, 'b', { onAcquired: () => acquired++ });
  await b.start();
  expect(b.held()).toBe(false);
  await until(() => b.held(), (held) => held, 'b to take the lease over', 10 * TTL);
  expect(acquired).toBe(1);
  expect(await raw.get(key)).toBe('b');
});

test('a holder whose lease another owner took is told at its next renewal, and its stop does not delete the other lease', async () => {
  const key = newKey();
  const lost: string[] = [];
  const a = lease(key, 'a', { onLost: (reason) => lost.push(reason) });
  await a.start();
  expect(a.held()).toBe(true);
  // The lease expired while a was paused and someone else took it.
  await raw.set(key, 'other', 'PX', 60_000);
  await until(() => lost.length, (n) => n > 0, 'a to notice it lost the lease', 10 * TTL);
  expect(a.held()).toBe(false);
  expect(lost[0]).toMatch(/another process holds the lease/);
  await a.stop();
  expect(await raw.get(key)).toBe('other');
});

test('stop releases a held lease at once, so a contender takes it without waiting for the lease time', async () => {
  const key = newKey();
  const a = lease(key, 'a');
  await a.start();
  await a.stop();
  expect(await raw.get(key)).toBeNull();
  const b = lease(key, 'b');
  await b.start();
  expect(b.held()).toBe(true);
});

test('a lease on an unreachable Redis is never held, and says why', async () => {
  const errors: Error[] = [];
  const a = new RedisLease({ redisUrl: 'redis://:secret@127.0.0.1:1', key: newKey(), owner: 'a', ttlMs: TTL, onError: (e) => errors.push(e) });
  leases.push(a);
  await a.start();
  expect(a.held()).toBe(false);
  expect(errors.length).toBeGreaterThan(0);
  expect(errors[0]!.message).toContain('redis://:***@127.0.0.1:1');
  expect(errors[0]!.message).not.toContain('secret');
});

test('SOUS_LEASE_MS: default, a valid value, and one line for a bad one', () => {
  expect(leaseMsFromEnv(undefined)).toBe(15_000);
  expect(leaseMsFromEnv('4000')).toBe(4000);
  expect(() => leaseMsFromEnv('10')).toThrow(/SOUS_LEASE_MS must be a whole number/);
  expect(() => leaseMsFromEnv('abc')).toThrow(/SOUS_LEASE_MS/);
});
