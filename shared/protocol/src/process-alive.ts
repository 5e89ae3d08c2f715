import * as fs from 'node:fs';

/**
 * True when a process with this pid exists and has not exited (signal 0 checks without touching
 * it; EPERM means it exists but belongs to someone else). A zombie (exited, not yet reaped: a
 * container whose PID 1 does not reap, or this sandbox) counts as dead, or a killed supervisor would
 * look alive forever and a dead holder would keep the store lock.
 */
export function processAlive(pid: number | null | undefined): boolean {
  if (!pid || pid <= 0) return false;
  try {
    process.kill(pid, 0);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  return !isZombie(pid);
}

/**
 * Linux only (elsewhere false): the process has exited and only its entry remains. A killed
 * multi-threaded process shows `Z` while its other threads still tear down (and hold its files and
 * ports): it counts as exited once one thread is left.
 */
function isZombie(pid: number): boolean {
  if (process.platform !== 'linux') return false;
  try {
    const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
    return /^State:\s*[ZX]/m.test(status) && /^Threads:\s*1$/m.test(status);
  } catch {
    return false;
  }
}
