/**
 * A small disk of the test's own: a tmpfs mounted on a folder, which the test fills (ENOSPC for
 * every process writing there, root included) and frees again. Mounting needs root (CAP_SYS_ADMIN),
 * as on these machines and in CI; elsewhere the test fails and says so rather than skipping.
 */
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';

export interface SmallDisk {
  dir: string;
  /** Writes a filler file until the disk is full. */
  fill(): void;
  /** Removes the filler. */
  free(): void;
  unmount(): void;
}

export function mountSmallDisk(dir: string, sizeMiB: number): SmallDisk {
  fs.mkdirSync(dir, { recursive: true });
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${sizeMiB}m`, 'tmpfs', dir], { stdio: 'pipe' });
  } catch (err) {
    const why = err instanceof Error ? err.message.split('\n')[0] : String(err);
    throw new Error(`this test fills a small disk of its own: it needs to mount a tmpfs on ${dir}, which failed (${why}); run it as root, as CI does`);
  }
  const filler = path.join(dir, 'test-filler');
  return {
    dir,
    fill() {
      const chunk = Buffer.alloc(1024 * 1024, 1);
      const fd = fs.openSync(filler, 'a');
      try {
        for (;;) fs.writeSync(fd, chunk);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'ENOSPC') throw err;
      } finally {
        fs.closeSync(fd);
      }
    },
    free() {
      fs.rmSync(filler, { force: true });
    },
    unmount() {
      execFileSync('umount', ['-l', dir], { stdio: 'pipe' });
    },
  };
}
