/**
 * The two shapes Sous runs in, as environments for spawned `sous` processes: the embedded default
 * (PGlite under .sous/, in-process queue) and the server topology (PostgreSQL schema + BullMQ queue
 * of their own, dropped afterwards).
 */
import { Client } from 'pg';
import Redis from 'ioredis';
import { embeddedEnv } from './cli';
import { postgresUrl, redisUrl, uniqueName } from './services';

export interface Topology {
  name: string;
  /** The environment for `sous` processes of this topology. */
  env(): Promise<NodeJS.ProcessEnv>;
  /** Drops what env() created. */
  cleanup(): Promise<void>;
}

export function embeddedTopology(): Topology {
  return { name: 'embedded (PGlite)', env: async () => embeddedEnv(), cleanup: async () => undefined };
}

export function serverTopology(prefix: string): Topology {
  const schema = uniqueName(prefix);
  const queueName = uniqueName(`${prefix}q`);
  return {
    name: 'server (PostgreSQL + Redis)',
    env: async () => embeddedEnv({ DATABASE_URL: await postgresUrl(), SOUS_DB_SCHEMA: schema, REDIS_URL: await redisUrl(), SOUS_QUEUE_NAME: queueName }),
    cleanup: async () => {
      const pg = new Client({ connectionString: await postgresUrl() });
      await pg.connect();
      await pg.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      await pg.end();
      const redis = new Redis(await redisUrl());
      const keys = await redis.keys(`bull:${queueName}:*`);
      if (keys.length) await redis.del(...keys);
      redis.disconnect();
    },
  };
}
