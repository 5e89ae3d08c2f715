import * as vm from 'node:vm';
import { Client } from 'pg';
import { openStore, type Store } from '@sous/store';
import { postgresUrl, uniqueName } from '../../../test/support/services';
import { makeTempDir, rmTempDir } from '../../../test/support/tmp';

/** One store implementation under test: how to open it and how to clean up after it. */
export interface StoreFactory {
  name: 'pglite' | 'postgres';
  /** Opens the store (for PGlite, a new data directory: seconds, so once per file). */
  open(): Promise<Store>;
  /** Removes what open() created (schema or directory); call after closing the store. */
  cleanup(): Promise<void>;
}

/**
 * PGlite loads Node built-ins with dynamic import(), which jest's sandbox only allows when Node runs
 * with --experimental-vm-modules (pglite issue #224). Say so instead of failing deep inside PGlite.
 */
export function requireVmModules(): void {
  if (typeof (vm as { SourceTextModule?: unknown }).SourceTextModule !== 'function') {
    throw new Error('PGlite tests need NODE_OPTIONS=--experimental-vm-modules: run them with `npm test` or set it for jest');
  }
}

export function pgliteFactory(): StoreFactory {
  let dir: string | undefined;
  return {
    name: 'pglite',
    async open() {
      requireVmModules();
      dir = makeTempDir('sous-store-');
      return openStore({ dataDir: `${dir}/data` });
    },
    async cleanup() {
      if (dir) rmTempDir(dir);
    },
  };
}

export function postgresFactory(): StoreFactory {
  let url: string | undefined;
  const schema = uniqueName('store');
  return {
    name: 'postgres',
    async open() {
      url = await postgresUrl();
      return openStore({ databaseUrl: url, schema });
    },
    async cleanup() {
      if (url) await dropSchema(url, schema);
    },
  };
}

/** Drops a test schema and everything in it. */
export async function dropSchema(url: string, schema: string): Promise<void> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  } finally {
    await client.end();
  }
}

/** Runs a promise that must reject and returns what it rejected with. */
export async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (err) {
    return err;
  }
  throw new Error('expected the operation to be refused, but it succeeded');
}
