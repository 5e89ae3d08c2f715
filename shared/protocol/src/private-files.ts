/**
 * Sous's state (config, store, logs, run files) is its user's alone: directories 0700, files 0600.
 * Entry points also set umask 077 (see PRIVATE_UMASK); these helpers cover what a umask cannot:
 * state left wider by an older version or by hand, and libraries that chmod their own files (PGlite
 * makes its data files 0666).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';

export const PRIVATE_DIR_MODE = 0o700;
export const PRIVATE_FILE_MODE = 0o600;
/** The umask every Sous process runs with: nothing it creates is group- or world-accessible. */
export const PRIVATE_UMASK = 0o077;

/** Group and other permission bits. */
const SHARED_BITS = 0o077;

/**
 * Creates `dir` and its missing parents as 0700; an existing `dir` that grants group or other access
 * is narrowed to 0700. A directory owned by someone else (a mounted volume) is left as its owner set it.
 */
export function ensurePrivateDir(dir: string): void {
  fs.mkdirSync(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
  narrow(dir, fs.statSync(dir));
}

/**
 * Removes group and other permission bits from `root` and everything under it. Symbolic links are
 * neither followed nor changed; entries that vanish during the walk are skipped.
 */
export function restrictTree(root: string): void {
  let stat: fs.Stats;
  try {
    stat = fs.lstatSync(root);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw err;
  }
  if (stat.isSymbolicLink()) return;
  narrow(root, stat);
  if (!stat.isDirectory()) return;
  let names: string[];
  try {
    names = fs.readdirSync(root);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw err;
  }
  for (const name of names) restrictTree(path.join(root, name));
}

function narrow(file: string, stat: fs.Stats): void {
  if ((stat.mode & SHARED_BITS) === 0) return;
  try {
    fs.chmodSync(file, stat.mode & 0o7700); // the owner's bits (and setuid/setgid/sticky) stay
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code !== 'ENOENT' && code !== 'EPERM') throw err;
  }
}
