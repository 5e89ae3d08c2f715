import * as fs from 'node:fs';
import * as path from 'node:path';

/**
 * Resolved paths for one pass of reads: the root and each folder are resolved once, not once per
 * file. Why: realpath walks every path component (an lstat each), and on a cold index of 5,000
 * files it cost more than reading them. A file that is not itself a symlink resolves to its
 * resolved folder plus its name. Use one instance per pass only: a folder swapped for a symlink
 * after the pass began is caught by the next pass, the same window that resolving and then
 * reading a file always has.
 */
export class RealPaths {
  private realRoot: Promise<string> | undefined;
  private readonly folders = new Map<string, Promise<string>>();
  /** Each file resolved once per pass: loading takes its fingerprint and then reads it. */
  private readonly files = new Map<string, Promise<{ real: string; stat?: fs.Stats }>>();

  constructor(private readonly root: string) {}

  /** The repository root, resolved. */
  resolvedRoot(): Promise<string> {
    return (this.realRoot ??= fs.promises.realpath(this.root));
  }

  /**
   * `relPath` (normalised, POSIX) resolved, with its stat when it is not a symlink (then lstat and
   * stat agree). Rejects like realpath: ENOENT for a missing file or folder.
   */
  file(relPath: string): Promise<{ real: string; stat?: fs.Stats }> {
    let resolved = this.files.get(relPath);
    if (resolved === undefined) {
      resolved = this.resolveFile(relPath);
      this.files.set(relPath, resolved);
    }
    return resolved;
  }

  /** Forgets `relPath`'s resolution once it is read, so a pass over 100,000 files holds a few at a time. */
  forget(relPath: string): void {
    this.files.delete(relPath);
  }

  private async resolveFile(relPath: string): Promise<{ real: string; stat?: fs.Stats }> {
    const realRoot = await this.resolvedRoot();
    const slash = relPath.lastIndexOf('/');
    const folder = slash < 0 ? '' : relPath.slice(0, slash);
    let realFolder = this.folders.get(folder);
    if (realFolder === undefined) {
      realFolder = folder === '' ? Promise.resolve(realRoot) : fs.promises.realpath(path.join(realRoot, ...folder.split('/')));
      this.folders.set(folder, realFolder);
    }
    const candidate = path.join(await realFolder, relPath.slice(slash + 1));
    const stat = await fs.promises.lstat(candidate);
    return stat.isSymbolicLink() ? { real: await fs.promises.realpath(candidate) } : { real: candidate, stat };
  }
}
