import * as fs from 'node:fs';
import { PGlite } from '@electric-sql/pglite';
import { PRIVATE_DIR_MODE, restrictTree } from '@sous/protocol';
import { drizzle } from 'drizzle-orm/pglite';
import { migrate } from 'drizzle-orm/pglite/migrator';
import { storeSchema, type Backend, type StoreDb } from './db';
import { DEFAULT_MIGRATIONS_SCHEMA } from './defaults';
import { StoreError, driverError, firstLine } from './errors';
import { acquireDataDirLock, type DataDirLock } from './lock';
import { PgliteGuard } from './pglite-guard';
import { EMBEDDED_POSTGRESQL_CONF, hasCluster } from './pglite-initdb';
import { createCluster } from './pglite-template';

/** Settings of an embedded store (resolved by openStore). */
export interface PgliteSettings {
  /** Absolute path of the data directory. */
  dataDir: string;
  schema: string | undefined;
  migrationsFolder: string;
  /** Free space below which the store pauses (see PgliteGuard); undefined = the default. */
  minFreeBytes: number | undefined;
}

/**
 * Opens embedded PGlite in `dataDir` (created on first use, which takes seconds) under the
 * directory's exclusive lock, and applies the migrations.
 */
export async function openPglite(settings: PgliteSettings): Promise<Backend> {
  const { dataDir } = settings;
  try {
    fs.mkdirSync(dataDir, { recursive: true, mode: PRIVATE_DIR_MODE });
  } catch (err) {
    throw new StoreError('store_open_failed', `cannot create the data directory ${dataDir} (${firstLine(err)}): check the path and its permissions`);
  }
  const lock = acquireDataDirLock(dataDir);
  let pg: PGlite | undefined;
  try {
    if (!hasCluster(dataDir)) {
      await createCluster(dataDir).catch((err: unknown) => {
        throw new StoreError('store_open_failed', `cannot create the embedded database in ${dataDir} (${firstLine(err)}): check free disk space and permissions`);
      });
    }
    pg = await openInstance(settings).catch((err: unknown) => {
      throw new StoreError(
        'store_open_failed',
        `cannot open the embedded database in ${dataDir} (${firstLine(driverError(err))}): if it is damaged, move the directory aside to start fresh`,
      );
    });
    await migrateEmbedded(pg, settings);
    // PGlite's file system layer chmods what initdb and the first start write to 0666, whatever the umask.
    restrictTree(dataDir);
  } catch (err) {
    await closeQuietly(pg, lock);
    throw err;
  }
  // Every query goes through the guard: a full disk or an unwritable directory must never leave a
  // PGlite instance that blocks the event loop (see pglite-guard.ts).
  const guard = new PgliteGuard(pg, { dataDir, reopen: () => openInstance(settings), ...(settings.minFreeBytes === undefined ? {} : { minFreeBytes: settings.minFreeBytes }) });
  const db: StoreDb = drizzle(guard as unknown as PGlite, { schema: storeSchema });
  return {
    kind: 'pglite',
    db,
    describe: `pglite ${dataDir}${settings.schema ? ` schema ${settings.schema}` : ''}`,
    ping: () => guard.ping(),
    lastError: () => undefined,
    outage: () => guard.status(),
    async shutdown() {
      try {
        await guard.close(); // flushes the data directory; must finish before the lock goes
      } finally {
        lock.release();
      }
    },
  };
}

/** A PGlite instance on the data directory, with the store's schema first on the search path. */
async function openInstance(settings: PgliteSettings): Promise<PGlite> {
  const pg = await PGlite.create(settings.dataDir, { postgresqlconf: EMBEDDED_POSTGRESQL_CONF });
  if (settings.schema) await pg.exec(`SET search_path TO "${settings.schema}", public;`);
  return pg;
}

async function migrateEmbedded(pg: PGlite, settings: PgliteSettings): Promise<void> {
  try {
    if (settings.schema) {
      await pg.exec(`CREATE SCHEMA IF NOT EXISTS "${settings.schema}"; SET search_path TO "${settings.schema}", public;`);
    }
    await migrate(drizzle(pg), {
      migrationsFolder: settings.migrationsFolder,
      migrationsSchema: settings.schema ?? DEFAULT_MIGRATIONS_SCHEMA,
    });
  } catch (err) {
    throw new StoreError(
      'store_migration_failed',
      `applying migrations to the embedded database in ${settings.dataDir} failed: ${firstLine(driverError(err))}; nothing was applied, fix the cause and restart`,
    );
  }
}

async function closeQuietly(pg: PGlite | undefined, lock: DataDirLock): Promise<void> {
  try {
    if (pg && !pg.closed) await pg.close();
  } catch {
    // Already failing with a clearer error; the lock is released below either way.
  } finally {
    lock.release();
  }
}
