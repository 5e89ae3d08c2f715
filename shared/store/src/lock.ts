import * as fs from 'node:fs';
import * as path from 'node:path';
import { randomBytes } from 'node:crypto';
import { PRIVATE_FILE_MODE, processAlive } from '@sous/protocol';
import { StoreError, firstLine } from './errors';

/** Name of the lock file inside a PGlite data directory. */
export const LOCK_FILE_NAME = '.sous-store.lock';

/** How many times a stale lock is cleared and the lock retried before giving up. */
const TAKEOVER_ATTEMPTS = 3;

/** An exclusive hold on a data directory; `release` is idempotent. */
export interface DataDirLock {
  /** Absolute path of the lock file. */
  readonly path: string;
  release(): void;
}

/** The pid written in a lock file, or undefined when the file is gone, empty or not a pid. */
export function readLockHolder(lockPath: string): number | undefined {
  let text: string;
  try {
    text = fs.readFileSync(lockPath, 'utf8');
  } catch {
    return undefined;
  }
  const pid = Number.parseInt(text.trim(), 10);
  return Number.isInteger(pid) && pid > 0 ? pid : undefined;
}

/** True when `pid` is this process or one that exists and has not exited (a zombie holds no lock). */
function holderAlive(pid: number): boolean {
  return pid === process.pid || processAlive(pid);
}

/**
 * Takes the exclusive lock of a PGlite data directory: a file holding our pid, created atomically
 * (a temp file hard-linked into place, so no reader ever sees it half-written). A lock whose pid is
 * dead, or whose content is not a pid, is stale and is taken over. A live holder — including this
 * same process — gets StoreError `store_locked` naming its pid.
 */
export function acquireDataDirLock(dataDir: string): DataDirLock {
  const lockPath = path.join(dataDir, LOCK_FILE_NAME);
  const temp = `${lockPath}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  try {
    fs.writeFileSync(temp, `${process.pid}\n`, { flag: 'wx', mode: PRIVATE_FILE_MODE });
  } catch (err) {
    throw new StoreError('store_open_failed', `cannot write the lock file in ${dataDir} (${firstLine(err)}): check the directory is writable`);
  }
  try {
    for (let attempt = 0; attempt < TAKEOVER_ATTEMPTS; attempt++) {
      try {
        fs.linkSync(temp, lockPath); // fails with EEXIST when someone holds the lock
        return heldLock(lockPath);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') {
          throw new StoreError('store_open_failed', `cannot take the lock ${lockPath} (${firstLine(err)}): check the directory is writable`);
        }
      }
      const holder = readLockHolder(lockPath);
      if (holder !== undefined && holderAlive(holder)) {
        throw new StoreError(
          'store_locked',
          `the data directory ${dataDir} is in use by process ${holder}: stop that process (sous down) or use another directory`,
          { pid: holder },
        );
      }
      clearStaleLock(lockPath, holder);
    }
  } finally {
    fs.rmSync(temp, { force: true });
  }
  throw new StoreError('store_locked', `the data directory ${dataDir} changed hands while opening: another process is starting on it; retry`);
}

/**
 * Moves a stale lock aside. The rename is atomic, and the moved file is checked to be the stale one:
 * if a racing process took the lock in between, its fresh lock is put back.
 */
function clearStaleLock(lockPath: string, stalePid: number | undefined): void {
  const aside = `${lockPath}.stale-${process.pid}-${randomBytes(4).toString('hex')}`;
  try {
    fs.renameSync(lockPath, aside);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return; // someone else cleared it
    throw new StoreError('store_open_failed', `cannot clear the stale lock ${lockPath} (${firstLine(err)}): remove it by hand`);
  }
  const moved = readLockHolder(aside);
  if (moved !== stalePid && moved !== undefined && holderAlive(moved)) {
    try {
      fs.linkSync(aside, lockPath);
    } catch {
      // The slot was taken again meanwhile; the next attempt reports whoever holds it now.
    }
  }
  fs.rmSync(aside, { force: true });
}

function heldLock(lockPath: string): DataDirLock {
  let released = false;
  return {
    path: lockPath,
    release() {
      if (released) return;
      released = true;
      // Remove only our own lock: never one a stale-lock takeover handed to another process.
      if (readLockHolder(lockPath) === process.pid) fs.rmSync(lockPath, { force: true });
    },
  };
}
