import * as fs from 'node:fs';
import * as path from 'node:path';
import { findWorkspaceRoot, sousPaths, type SousPaths } from '@sous/config';
import { CliError } from './cli-error';

/**
 * Resolves the workspace for a command from its `--path` option (default: the current directory,
 * walking up to the nearest `.sous/`), with state under SOUS_STATE_DIR when set. Refuses a path
 * that does not exist or is not a directory.
 */
export function resolveWorkspace(pathOption: string | undefined): SousPaths {
  const start = path.resolve(pathOption ?? process.cwd());
  let stat: fs.Stats;
  try {
    stat = fs.statSync(start);
  } catch {
    throw new CliError(`path ${start} does not exist`);
  }
  if (!stat.isDirectory()) throw new CliError(`path ${start} is not a directory`);
  // SOUS_STATE_DIR: the server topology keeps state outside a read-only repository mount.
  const stateDir = process.env.SOUS_STATE_DIR;
  return sousPaths(pathOption === undefined ? findWorkspaceRoot(start) : start, stateDir ? { stateDir } : {});
}
