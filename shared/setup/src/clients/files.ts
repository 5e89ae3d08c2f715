import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';

/** File I/O of client wiring: read, atomic write (temp + rename), backup, sha256. */

export function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

export function readText(file: string): string | undefined {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}

/** Creates the missing directories above `file`; returns those it created, outermost first. */
export function ensureParents(file: string): string[] {
  const created: string[] = [];
  let dir = path.dirname(file);
  while (!fs.existsSync(dir)) {
    created.unshift(dir);
    dir = path.dirname(dir);
  }
  for (const d of created) fs.mkdirSync(d);
  return created;
}

/**
 * Writes `text` to a temp file beside `file`, then renames it over: a reader (the client starting
 * up) sees the old file or the new one, never half of one. An existing file keeps its mode.
 */
export function writeAtomic(file: string, text: string): void {
  let mode: number | undefined;
  try {
    mode = fs.statSync(file).mode & 0o777;
  } catch {
    mode = undefined;
  }
  const tmp = path.join(path.dirname(file), `.${path.basename(file)}.sous-${process.pid}-${Date.now()}.tmp`);
  fs.writeFileSync(tmp, text, mode === undefined ? {} : { mode });
  try {
    fs.renameSync(tmp, file);
  } catch (err) {
    fs.rmSync(tmp, { force: true });
    throw err;
  }
}

/** Removes directories (innermost first) that are empty; keeps any that hold something. */
export function removeEmptyDirs(dirs: string[]): void {
  for (const d of [...dirs].sort((a, b) => b.length - a.length)) {
    try {
      fs.rmdirSync(d);
    } catch {
      // not empty, or gone: either way not ours to remove
    }
  }
}
