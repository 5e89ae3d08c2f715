import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core';
import * as tables from './schema/index';

/** Every table of the store, as handed to drizzle for relational queries. */
export const storeSchema = tables;
export type StoreSchema = typeof tables;

/** The typed drizzle database; the same type over node-postgres and PGlite. */
export type StoreDb = PgDatabase<PgQueryResultHKT, StoreSchema>;

/** What a driver opener hands to openStore. */
export interface Backend {
  readonly kind: 'postgres' | 'pglite';
  readonly db: StoreDb;
  /** A one-line description without secrets, e.g. `postgres 127.0.0.1:5432/test schema s1`. */
  readonly describe: string;
  /** Runs a trivial query; rejects when the database does not answer. */
  ping(): Promise<void>;
  /** The last background connection error, if any (pg pools report idle-client errors this way). */
  lastError(): string | undefined;
  /** Why the store is out of service and since when (disk full, server down), or null. */
  outage(): { reason: string; since: string } | null;
  /** Releases every connection (and the data-directory lock). Called once. */
  shutdown(): Promise<void>;
}
