/**
 * A new embedded data directory starts as a copy of an empty cluster made once per machine. PGlite's
 * initdb takes seconds of CPU (about 5 s idle, 8 s on a busy 2-core machine); copying its 40 MB
 * result takes well under one. The template lives in the user's cache directory, keyed by the PGlite
 * version and the postgresql.conf it was made with, so an upgrade makes a new one instead of reusing
 * a cluster of another format. Where the cache cannot be written (a read-only home in a container),
 * the cluster is made in place as before.
 */
import { randomBytes, createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { ensurePrivateDir, restrictTree } from '@sous/protocol';
import { EMBEDDED_POSTGRESQL_CONF, hasCluster, initializeInChild } from './pglite-initdb';

/** Environment variable naming Sous's cache directory (default $XDG_CACHE_HOME/sous, else ~/.cache/sous). */
export const SOUS_CACHE_DIR_ENV = 'SOUS_CACHE_DIR';

/** The directory Sous keeps machine-wide caches in. */
export function sousCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  const own = env[SOUS_CACHE_DIR_ENV];
  if (own) return path.resolve(own);
  const xdg = env.XDG_CACHE_HOME;
  return path.join(xdg && path.isAbsolute(xdg) ? xdg : path.join(os.homedir(), '.cache'), 'sous');
}

let installedPglite: string | undefined;

/** The installed PGlite's version, read once from its package.json (its exports do not include that file). */
function pgliteVersion(): string {
  installedPglite ??= readPgliteVersion();
  return installedPglite;
}

function readPgliteVersion(): string {
  let dir = path.dirname(require.resolve('@electric-sql/pglite'));
  for (;;) {
    const file = path.join(dir, 'package.json');
    try {
      const pkg = JSON.parse(fs.readFileSync(file, 'utf8')) as { name?: string; version?: string };
      if (pkg.name === '@electric-sql/pglite' && pkg.version) return pkg.version;
    } catch {
      // not this directory; go up
    }
    const parent = path.dirname(dir);
    if (parent === dir) return 'unknown';
    dir = parent;
  }
}

/** Where the template cluster for this PGlite and configuration lives. */
export function templatePath(env: NodeJS.ProcessEnv = process.env): string {
  const conf = createHash('sha256').update(EMBEDDED_POSTGRESQL_CONF).digest('hex').slice(0, 8);
  return path.join(sousCacheDir(env), `pglite-template-${pgliteVersion()}-${conf}`);
}

/**
 * Makes the template if there is none: initdb into a private scratch directory beside it, then one
 * rename, so a reader never sees half a cluster. Two processes racing both build; the first rename
 * wins and the other's copy is removed.
 */
async function ensureTemplate(template: string): Promise<void> {
  if (hasCluster(template)) return;
  ensurePrivateDir(path.dirname(template));
  const scratch = `${template}.tmp-${process.pid}-${randomBytes(4).toString('hex')}`;
  try {
    await initializeInChild(scratch);
    restrictTree(scratch);
    try {
      fs.renameSync(scratch, template);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code !== 'EEXIST' && code !== 'ENOTEMPTY') throw err;
    }
  } finally {
    fs.rmSync(scratch, { recursive: true, force: true });
  }
}

/**
 * Puts an empty cluster in `dataDir` (which exists and holds no cluster): a copy of the machine's
 * template, or, when the cache directory cannot be used, a fresh initdb in place.
 */
export async function createCluster(dataDir: string, env: NodeJS.ProcessEnv = process.env): Promise<void> {
  const template = templatePath(env);
  try {
    await ensureTemplate(template);
  } catch {
    // The cache is unwritable or full: the data directory itself is the one place that must work.
    return initializeInChild(dataDir);
  }
  // PG_VERSION goes last: it is what marks a cluster as there (hasCluster), so a copy cut short by a
  // full disk is made again on the next start instead of being opened half-written.
  for (const name of fs.readdirSync(template)) {
    if (name !== 'PG_VERSION') fs.cpSync(path.join(template, name), path.join(dataDir, name), { recursive: true, force: true });
  }
  fs.copyFileSync(path.join(template, 'PG_VERSION'), path.join(dataDir, 'PG_VERSION'));
}
