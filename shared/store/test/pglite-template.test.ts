/**
 * A new embedded store starts from the machine's template cluster (made once in the cache directory,
 * copied for each new data directory); each copy is a store of its own; an unusable cache falls back
 * to initdb in place; a copy cut short is made again. Real PGlite on real directories.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { openStore, templatePath, SOUS_CACHE_DIR_ENV } from '@sous/store';
import { makeTempDir, rmTempDir } from '../../../test/support/tmp';
import { requireVmModules } from './helpers';

describe('embedded store template', () => {
  let tmp: string;
  let savedCache: string | undefined;

  beforeAll(() => requireVmModules());
  beforeEach(() => {
    tmp = makeTempDir('sous-template-');
    savedCache = process.env[SOUS_CACHE_DIR_ENV];
  });
  afterEach(() => {
    if (savedCache === undefined) delete process.env[SOUS_CACHE_DIR_ENV];
    else process.env[SOUS_CACHE_DIR_ENV] = savedCache;
    rmTempDir(tmp);
  });

  test('the first new store makes the template; later ones copy it and stay independent of each other', async () => {
    process.env[SOUS_CACHE_DIR_ENV] = path.join(tmp, 'cache');
    const template = templatePath();
    expect(template.startsWith(path.join(tmp, 'cache', 'pglite-template-'))).toBe(true);
    expect(fs.existsSync(template)).toBe(false);

    const a = await openStore({ dataDir: path.join(tmp, 'a') });
    expect(fs.existsSync(path.join(template, 'PG_VERSION'))).toBe(true);
    // No scratch directory is left beside the template, and it is private like the data directories.
    expect(fs.readdirSync(path.dirname(template))).toEqual([path.basename(template)]);
    expect(fs.statSync(template).mode & 0o077).toBe(0);
    const templateTime = fs.statSync(path.join(template, 'PG_VERSION')).mtimeMs;

    const b = await openStore({ dataDir: path.join(tmp, 'b') });
    try {
      const ws = await a.workspaces.upsertByRoot({ rootPath: '/tmp/sous-template/a' });
      expect(await b.workspaces.get(ws.id)).toBeUndefined();
      expect((await a.workspaces.get(ws.id))?.rootPath).toBe('/tmp/sous-template/a');
    } finally {
      await a.close();
      await b.close();
    }
    // The template was made once and is not touched by the stores copied from it.
    expect(fs.statSync(path.join(template, 'PG_VERSION')).mtimeMs).toBe(templateTime);
    expect(fs.existsSync(path.join(template, '.sous-store.lock'))).toBe(false);

    // A reopened store keeps its own data (it was not replaced by a fresh copy).
    const again = await openStore({ dataDir: path.join(tmp, 'a') });
    try {
      expect(await again.workspaces.list()).toHaveLength(1);
    } finally {
      await again.close();
    }
  }, 120_000);

  test('a cache directory that cannot be made still gives a working store (initdb in place)', async () => {
    const blocker = path.join(tmp, 'not-a-dir');
    fs.writeFileSync(blocker, 'a file where the cache directory would go\n');
    process.env[SOUS_CACHE_DIR_ENV] = blocker;
    const store = await openStore({ dataDir: path.join(tmp, 'data') });
    try {
      await store.workspaces.upsertByRoot({ rootPath: '/tmp/sous-template/fallback' });
      expect(await store.workspaces.list()).toHaveLength(1);
    } finally {
      await store.close();
    }
    expect(fs.readFileSync(blocker, 'utf8')).toBe('a file where the cache directory would go\n');
  }, 120_000);

  test('a copy cut short (no PG_VERSION yet) is made again on the next open', async () => {
    process.env[SOUS_CACHE_DIR_ENV] = path.join(tmp, 'cache');
    await (await openStore({ dataDir: path.join(tmp, 'first') })).close();
    const dataDir = path.join(tmp, 'cut');
    fs.mkdirSync(path.join(dataDir, 'base'), { recursive: true });
    fs.writeFileSync(path.join(dataDir, 'base', 'half-written'), 'x');
    fs.cpSync(path.join(templatePath(), 'global'), path.join(dataDir, 'global'), { recursive: true });
    const store = await openStore({ dataDir });
    try {
      await store.workspaces.upsertByRoot({ rootPath: '/tmp/sous-template/cut' });
      expect(await store.workspaces.list()).toHaveLength(1);
    } finally {
      await store.close();
    }
  }, 120_000);
});
