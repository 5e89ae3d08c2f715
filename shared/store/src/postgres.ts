import { Pool, type PoolClient } from 'pg';
import { drizzle } from 'drizzle-orm/node-postgres';
import { migrate } from 'drizzle-orm/node-postgres/migrator';
import { storeSchema, type Backend, type StoreDb } from './db';
import { DEFAULT_MIGRATIONS_SCHEMA, MIGRATION_LOCK_CLASS } from './defaults';
import { StoreError, driverError, firstLine, outageReason, redactUrl } from './errors';

/** Settings of a PostgreSQL store (resolved by openStore). */
export interface PostgresSettings {
  url: string;
  schema: string | undefined;
  poolSize: number;
  connectTimeoutMs: number;
  migrationsFolder: string;
}

const UNREACHABLE_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ECONNRESET']);

/**
 * Opens a pool on PostgreSQL and applies the migrations under an advisory lock on a dedicated
 * connection, so processes starting together apply each migration once and the others wait.
 */
export async function openPostgres(settings: PostgresSettings): Promise<Backend> {
  const where = describeUrl(settings.url);
  const pool = new Pool({
    connectionString: settings.url,
    max: settings.poolSize,
    connectionTimeoutMillis: settings.connectTimeoutMs,
    // Applied at connection start-up, so every pooled connection sees the store's schema first.
    ...(settings.schema ? { options: `-c search_path=${settings.schema},public` } : {}),
  });
  let lastError: string | undefined;
  // Since when PostgreSQL has been failing, as seen by pings and lost connections; cleared by an answer.
  let outage: { reason: string; since: string } | null = null;
  const failing = (err: unknown): void => {
    const reason = outageReason(err) ?? firstLine(err);
    outage = { reason, since: outage?.since ?? new Date().toISOString() };
  };
  pool.on('error', (err) => {
    lastError = firstLine(err); // an idle client lost its connection; the pool replaces it
    failing(err);
  });
  try {
    const client = await pool.connect().catch((err: unknown) => {
      throw connectionError(err, settings.url);
    });
    await migrateLocked(client, settings, where);
  } catch (err) {
    await pool.end().catch(() => undefined);
    throw err;
  }
  const db: StoreDb = drizzle(pool, { schema: storeSchema });
  return {
    kind: 'postgres',
    db,
    describe: `postgres ${where}${settings.schema ? ` schema ${settings.schema}` : ''}`,
    async ping() {
      try {
        await pool.query('SELECT 1');
        outage = null;
      } catch (err) {
        failing(err);
        throw err;
      }
    },
    lastError: () => lastError,
    outage: () => outage,
    shutdown: () => pool.end(),
  };
}

async function migrateLocked(client: PoolClient, settings: PostgresSettings, where: string): Promise<void> {
  let broken: Error | undefined;
  try {
    const key = [MIGRATION_LOCK_CLASS, settings.schema ?? 'public'];
    await client.query('SELECT pg_advisory_lock($1, hashtext($2))', key);
    try {
      // Inside the lock: concurrent CREATE SCHEMA IF NOT EXISTS can otherwise fail on a duplicate key.
      if (settings.schema) {
        await client.query(`CREATE SCHEMA IF NOT EXISTS "${settings.schema}"`);
        // Set again, now that the schema exists: a session that resolved its search path before another
        // process created the schema (while waiting for this lock) could keep resolving to public only,
        // and this connection goes back to the pool for ordinary queries.
        await client.query(`SET search_path TO "${settings.schema}", public`);
      }
      await migrate(drizzle(client), {
        migrationsFolder: settings.migrationsFolder,
        migrationsSchema: settings.schema ?? DEFAULT_MIGRATIONS_SCHEMA,
      });
    } finally {
      await client.query('SELECT pg_advisory_unlock($1, hashtext($2))', key).catch((err: unknown) => {
        broken = new Error(firstLine(err));
      });
    }
  } catch (err) {
    if (err instanceof StoreError) throw err;
    throw new StoreError(
      'store_migration_failed',
      `applying migrations to PostgreSQL at ${where} failed: ${firstLine(driverError(err))}; nothing was applied, fix the cause and restart`,
    );
  } finally {
    // A connection whose unlock failed is discarded; the server drops its session locks with it.
    client.release(broken);
  }
}

/** `user@host:port/db` with the password redacted, for messages. */
function describeUrl(url: string): string {
  return redactUrl(url).replace(/^postgres(ql)?:\/\//, '');
}

/** A connection failure as a StoreError that says what to check. */
export function connectionError(err: unknown, url: string): StoreError {
  const driver = driverError(err);
  const code = typeof driver.code === 'string' ? driver.code : '';
  const shown = redactUrl(url);
  if (code === '28P01' || code === '28000') {
    return new StoreError('store_rejected', `PostgreSQL at ${shown} refused the login (${firstLine(driver)}): check the user and password in DATABASE_URL`, { sqlState: code });
  }
  if (code === '3D000') {
    return new StoreError('store_rejected', `PostgreSQL at ${shown} has no such database (${firstLine(driver)}): create it or fix DATABASE_URL`, { sqlState: code });
  }
  const reason = UNREACHABLE_CODES.has(code) ? code : /timeout/i.test(driver.message) ? 'timed out' : firstLine(driver);
  return new StoreError('store_unreachable', `cannot reach PostgreSQL at ${shown} (${reason}): check DATABASE_URL and that the server is running`, code ? { code } : {});
}
