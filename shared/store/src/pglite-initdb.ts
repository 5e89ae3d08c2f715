/**
 * Creating an embedded data directory (initdb) in a short-lived child process. PGlite's initdb grows
 * the WebAssembly memory of the process that runs it by about half a gigabyte, and WebAssembly memory
 * never shrinks: done in the daemon, that would stay its resident size for its whole life.
 */
import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';

/** postgresql.conf lines for an embedded store: a small buffer pool (the daemon's RSS matters more than cache). */
export const EMBEDDED_POSTGRESQL_CONF = 'shared_buffers = 16MB';

/** Whether `dataDir` already holds a database cluster. */
export function hasCluster(dataDir: string): boolean {
  return fs.existsSync(path.join(dataDir, 'PG_VERSION'));
}

/** Runs PGlite's initdb for `dataDir` in a child process; rejects with its one-line error. */
export function initializeInChild(dataDir: string): Promise<void> {
  const entry = require.resolve('@electric-sql/pglite');
  const script = [
    `const { PGlite } = require(${JSON.stringify(entry)});`,
    `PGlite.create(${JSON.stringify(dataDir)}, { postgresqlconf: ${JSON.stringify(EMBEDDED_POSTGRESQL_CONF)} })`,
    `  .then((db) => db.close())`,
    `  .then(() => process.exit(0), (err) => { process.stderr.write(String(err && err.message || err).split('\\n')[0]); process.exit(1); });`,
  ].join('\n');
  return new Promise((resolve, reject) => {
    // NODE_OPTIONS from a test runner (--experimental-vm-modules) is not needed by plain node.
    const env = { ...process.env };
    delete env.NODE_OPTIONS;
    execFile(process.execPath, ['-e', script], { env, timeout: 120_000 }, (err, _stdout, stderr) => {
      if (err) reject(new Error(stderr.trim() || err.message));
      else resolve();
    });
  });
}
