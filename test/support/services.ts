/**
 * Where tests find PostgreSQL and Redis, in this order:
 *  1. SOUS_TEST_DATABASE_URL / DATABASE_URL (SOUS_TEST_REDIS_URL / REDIS_URL) from the environment;
 *  2. a testcontainers container when a Docker engine is reachable;
 *  3. the conventional local server (127.0.0.1:5432 database `test`, 127.0.0.1:6379).
 * If none answers, the suite fails with a message saying what to start. It never skips: CI must
 * not turn green because a service was missing.
 */
import * as net from 'node:net';
import { redactUrl } from '@sous/protocol';

const LOCAL_POSTGRES = 'postgres://postgres@127.0.0.1:5432/test';
const LOCAL_REDIS = 'redis://127.0.0.1:6379';

let containers: Array<{ stop(): Promise<unknown> }> = [];

function reachable(url: string, timeoutMs = 1500): Promise<boolean> {
  const u = new URL(url);
  const port = Number(u.port || (u.protocol.startsWith('redis') ? 6379 : 5432));
  return new Promise((resolve) => {
    const socket = net.connect({ host: u.hostname, port });
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

async function dockerReachable(): Promise<boolean> {
  try {
    const { getContainerRuntimeClient } = await import('testcontainers');
    await getContainerRuntimeClient();
    return true;
  } catch {
    return false;
  }
}

async function resolveService(kind: 'postgres' | 'redis'): Promise<string> {
  const fromEnv =
    kind === 'postgres'
      ? process.env.SOUS_TEST_DATABASE_URL ?? process.env.DATABASE_URL
      : process.env.SOUS_TEST_REDIS_URL ?? process.env.REDIS_URL;
  if (fromEnv) {
    if (await reachable(fromEnv)) return fromEnv;
    throw new Error(`${kind} at ${redactUrl(fromEnv)} (from the environment) does not answer: start it or unset the variable`);
  }
  if (await dockerReachable()) {
    const { GenericContainer, Wait } = await import('testcontainers');
    if (kind === 'postgres') {
      const c = await new GenericContainer('postgres:16-alpine')
        .withEnvironment({ POSTGRES_PASSWORD: 'test', POSTGRES_DB: 'test' })
        .withExposedPorts(5432)
        .withWaitStrategy(Wait.forLogMessage(/database system is ready to accept connections/, 2))
        .start();
      containers.push(c);
      return `postgres://postgres:test@${c.getHost()}:${c.getMappedPort(5432)}/test`;
    }
    const c = await new GenericContainer('redis:7-alpine').withExposedPorts(6379).start();
    containers.push(c);
    return `redis://${c.getHost()}:${c.getMappedPort(6379)}`;
  }
  const local = kind === 'postgres' ? LOCAL_POSTGRES : LOCAL_REDIS;
  if (await reachable(local)) return local;
  throw new Error(
    `no ${kind} for tests: set ${kind === 'postgres' ? 'DATABASE_URL' : 'REDIS_URL'}, start a Docker engine, ` +
      `or run ${kind} on ${local}`,
  );
}

/** A PostgreSQL URL for this test file. */
export function postgresUrl(): Promise<string> {
  return resolveService('postgres');
}

/** A Redis URL for this test file. */
export function redisUrl(): Promise<string> {
  return resolveService('redis');
}

/** Stops containers this file started (call in afterAll). */
export async function stopServices(): Promise<void> {
  const started = containers;
  containers = [];
  await Promise.all(started.map((c) => c.stop()));
}

/** A unique, SQL-safe name for a per-test schema, queue or prefix. */
export function uniqueName(prefix: string): string {
  return `${prefix}_${process.pid}_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 8)}`;
}
