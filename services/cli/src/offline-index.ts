/**
 * The workspace's store and index without a daemon (`sous context`, `sous prepare`): open the store
 * (PGlite under .sous/data, or DATABASE_URL), bring the stored index up to date (the first run reads
 * everything; later runs read only files that moved), hand both to `use`, then stop and close. The
 * store is the daemon's, so a later `sous up` starts from what this wrote.
 */
import { ensureConfigFile, loadConfig, type SousConfig, type SousPaths } from '@sous/config';
import { LiveIndex, ScopeError, scopePolicyFromConfig, type ScopePolicy } from '@sous/retrieval';
import { embeddedStoreExists, openStore, StoreError, type Store } from '@sous/store';
import { FocusRegistry, sousHome, workspaceKey } from '@sous/focus';
import { reRedactStoredWork } from '@sous/engine';
import { CliError } from './cli-error';

export interface OfflineIndex {
  config: SousConfig;
  policy: ScopePolicy;
  store: Store;
  workspaceId: string;
  live: LiveIndex;
}

export async function withOfflineIndex<T>(paths: SousPaths, progress: boolean, use: (index: OfflineIndex) => Promise<T>): Promise<T> {
  // A paused workspace is not read, by a daemon or by a one-shot command (docs/focus.md).
  if (new FocusRegistry(sousHome()).read().workspaces[workspaceKey(paths.root)]?.paused) {
    throw new CliError(`${paths.root} is paused: Sous reads nothing there; run sous focus resume ${paths.root} first`);
  }
  await ensureConfigFile(paths);
  const config = loadConfig(paths.config);
  const policy = scopePolicyFromConfig(config);
  // Creating the embedded database is the one slow step of a first run: say so rather than sit silent.
  if (!process.env.DATABASE_URL && !embeddedStoreExists(paths.data)) {
    process.stderr.write(`creating the embedded database in ${paths.data} (first run only; about 1 s, up to 15 s for the first workspace on this machine)\n`);
  }
  let store: Store;
  try {
    store = await openStore({ databaseUrl: process.env.DATABASE_URL, dataDir: paths.data, ...(process.env.SOUS_DB_SCHEMA ? { schema: process.env.SOUS_DB_SCHEMA } : {}) });
  } catch (err) {
    if (err instanceof StoreError) throw new CliError(err.message);
    throw err;
  }
  try {
    const workspaceId = (await store.workspaces.upsertByRoot({ rootPath: paths.root })).id;
    // Prepared work stored under other redact patterns is redacted again before anything reads it.
    await reRedactStoredWork(store, workspaceId, policy.redactPatterns);
    const live = new LiveIndex({
      root: paths.root,
      policy,
      store,
      workspaceId,
      watch: false,
      ...(progress ? { onProgress: (done: number, total: number) => process.stderr.write(`\rchecking ${done}/${total} files`) } : {}),
    });
    try {
      await live.start();
    } catch (err) {
      if (err instanceof ScopeError) throw new CliError(err.message);
      throw err;
    } finally {
      if (progress) process.stderr.write('\n');
    }
    try {
      return await use({ config, policy, store, workspaceId, live });
    } finally {
      await live.stop();
    }
  } catch (err) {
    if (err instanceof StoreError) throw new CliError(err.message);
    throw err;
  } finally {
    await store.close();
  }
}
