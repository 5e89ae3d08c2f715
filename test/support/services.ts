/**
 * Where tests find PostgreSQL and Redis. The jest globalSetup (global-services.js) resolves both once
 * per run, in this order: the environment (SOUS_TEST_*_URL, DATABASE_URL / REDIS_URL), one
 * testcontainers container per service when a Docker engine is reachable, the conventional local
 * server. Test files read the result from SOUS_TEST_DATABASE_URL / SOUS_TEST_REDIS_URL, so every
 * file shares the same two servers (and containers are started once, not per lookup).
 * A service that does not answer fails the suite with what to start. It never skips: CI must not
 * turn green because a service was missing.
 */
import { redactUrl } from '@sous/protocol';
// The globalSetup's own check, so both ask the same question the same way.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { reachable } = require('./global-services') as { reachable: (url: string, timeoutMs?: number) => Promise<boolean> };

const LOCAL_POSTGRES = 'postgres://postgres@127.0.0.1:5432/test';
const LOCAL_REDIS = 'redis://127.0.0.1:6379';

const resolved = new Map<string, Promise<string>>();

async function resolveService(kind: 'postgres' | 'redis'): Promise<string> {
  const setting = kind === 'postgres' ? 'DATABASE_URL' : 'REDIS_URL';
  // Set by global-services.js; a file run outside jest's globalSetup falls back to the environment.
  const url =
    (kind === 'postgres' ? process.env.SOUS_TEST_DATABASE_URL ?? process.env.DATABASE_URL : process.env.SOUS_TEST_REDIS_URL ?? process.env.REDIS_URL) ??
    (kind === 'postgres' ? LOCAL_POSTGRES : LOCAL_REDIS);
  if (await reachable(url)) return url;
  throw new Error(`no ${kind} for tests: ${redactUrl(url)} does not answer; set ${setting}, start a Docker engine, or run ${kind} on ${kind === 'postgres' ? LOCAL_POSTGRES : LOCAL_REDIS}`);
}

function once(kind: 'postgres' | 'redis'): Promise<string> {
  let found = resolved.get(kind);
  if (!found) {
    found = resolveService(kind);
    // A failed lookup is not remembered: the next suite asks again (the server may have come up).
    found.catch(() => resolved.delete(kind));
    resolved.set(kind, found);
  }
  return found;
}

/** A PostgreSQL URL for this test file. */
export function postgresUrl(): Promise<string> {
  return once('postgres');
}

/** A Redis URL for this test file. */
export function redisUrl(): Promise<string> {
  return once('redis');
}

/** A unique, SQL-safe name for a per-test schema, queue or prefix. */
export function uniqueName(prefix: string): string {
  return `${prefix}_${process.pid}_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 8)}`;
}
