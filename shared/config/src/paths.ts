import * as fs from 'node:fs';
import * as path from 'node:path';

/** Where Sous keeps its own state inside a workspace. Nothing outside `.sous/` is ever written. */
export interface SousPaths {
  /** The workspace (repository) root. */
  root: string;
  /** `<root>/.sous` */
  dir: string;
  /** `<root>/.sous/config.toml` */
  config: string;
  /** `<root>/.sous/data` (embedded PGlite) */
  data: string;
  /** `<root>/.sous/logs` (pino logs; never file contents, prompts or secrets) */
  logs: string;
  /** `<root>/.sous/run` (pid and port files of the running daemon) */
  run: string;
}

export const SOUS_DIR_NAME = '.sous';

/**
 * The state paths of a workspace. `stateDir` overrides `<root>/.sous` for the server topology, where
 * the repository is mounted read-only and state lives on a volume (entry points pass SOUS_STATE_DIR).
 */
export function sousPaths(root: string, options: { stateDir?: string } = {}): SousPaths {
  const abs = path.resolve(root);
  const dir = options.stateDir ? path.resolve(options.stateDir) : path.join(abs, SOUS_DIR_NAME);
  return {
    root: abs,
    dir,
    config: path.join(dir, 'config.toml'),
    data: path.join(dir, 'data'),
    logs: path.join(dir, 'logs'),
    run: path.join(dir, 'run'),
  };
}

/**
 * The workspace a command acts on: the nearest directory at or above `start` that holds `.sous/`,
 * or `start` itself when none does (so `sous init` and first runs work on a fresh repository).
 */
export function findWorkspaceRoot(start: string): string {
  let dir = path.resolve(start);
  for (;;) {
    if (fs.existsSync(path.join(dir, SOUS_DIR_NAME, 'config.toml'))) return dir;
    const parent = path.dirname(dir);
    if (parent === dir) return path.resolve(start);
    dir = parent;
  }
}
