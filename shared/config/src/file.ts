import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { PRIVATE_DIR_MODE, PRIVATE_FILE_MODE, restrictTree } from '@sous/protocol';
import { defaultConfig } from './defaults';
import { ConfigError, errorMessage, isErrnoException } from './errors';
import type { SousPaths } from './paths';
import { editConfigText } from './edit';
import { parseConfigToml, renderConfigToml } from './toml';
import type { SousConfig } from './types';
import { validateConfigObject } from './validate';
import { parseConfigValue, withConfigValue } from './values';
import type { ConfigValue } from './keys';

/**
 * Reads and validates a config file. A missing file gives the defaults (a fresh workspace works
 * before `sous init`); any other read problem is a `ConfigError` with code `io`.
 */
export function loadConfig(file: string): SousConfig {
  const text = readConfigText(file);
  return text === undefined ? defaultConfig() : parseConfigToml(text, file);
}

/** The text of a config file, or undefined when it does not exist. */
export function readConfigText(file: string): string | undefined {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch (err) {
    if (isErrnoException(err) && err.code === 'ENOENT') return undefined;
    throw ioError(`could not read ${file}`, err, file);
  }
}

/**
 * Creates `.sous/` (with a `.gitignore` holding `*`, so state never reaches the repository) and a
 * default `config.toml` when missing. Existing files are left alone, except that anything in `.sous/`
 * open to group or others (an older Sous made PGlite's files 0666) is narrowed to its owner. Nothing
 * outside `paths.dir` is written, and the workspace root itself must already exist.
 */
export async function ensureConfigFile(paths: SousPaths): Promise<{ created: boolean }> {
  try {
    await fs.promises.mkdir(paths.dir, { mode: PRIVATE_DIR_MODE });
  } catch (err) {
    if (!(isErrnoException(err) && err.code === 'EEXIST')) throw ioError(`could not create ${paths.dir}`, err, paths.dir);
  }
  try {
    restrictTree(paths.dir);
  } catch (err) {
    throw ioError(`could not make ${paths.dir} private to its owner`, err, paths.dir);
  }
  const gitignore = path.join(paths.dir, '.gitignore');
  try {
    await fs.promises.writeFile(gitignore, '*\n', { flag: 'wx', mode: PRIVATE_FILE_MODE });
  } catch (err) {
    if (!(isErrnoException(err) && err.code === 'EEXIST')) throw ioError(`could not write ${gitignore}`, err, gitignore);
  }
  if (fs.existsSync(paths.config)) return { created: false };
  await writeFileAtomic(paths.config, renderConfigToml(defaultConfig()));
  return { created: true };
}

/**
 * Sets one key from a command-line string: parses the value for the key's type, validates the whole
 * resulting config, then rewrites the file atomically with only that value changed (the user's
 * comments and layout stay; see `editConfigText`). On any error the file is left untouched, byte for
 * byte. The file must already exist.
 */
export async function setConfigValue(file: string, key: string, raw: string): Promise<SousConfig> {
  const value = parseConfigValue(key, raw);
  return (await setConfigValues(file, [[key, value]])).next;
}

/**
 * Sets several keys to typed values in one validated, atomic write (what `sous setup apply` and the
 * daemon's `POST /setup/apply` use). Either every value is written or, on any error, none is.
 * Returns the previous and the new config so callers can say what changed, and where the old text
 * was kept when the file had to be rendered again (`backup`; see `editConfigText`).
 */
export async function setConfigValues(file: string, values: ReadonlyArray<readonly [string, ConfigValue]>): Promise<{ previous: SousConfig; next: SousConfig; backup?: string }> {
  const text = requireConfigText(file);
  const previous = parseConfigToml(text, file);
  let draft = previous;
  for (const [key, value] of values) draft = withConfigValue(draft, key, value);
  const next = validateConfigObject(draft);
  const edited = await editConfigText(text, values, next, file);
  if (edited.inPlace) {
    await writeFileAtomic(file, edited.text);
    return { previous, next };
  }
  // The patcher could not follow this file's layout: the old text is kept beside it, comments included.
  const backup = `${file}.bak`;
  await writeFileAtomic(backup, text);
  await writeFileAtomic(file, edited.text);
  return { previous, next, backup };
}

/**
 * Replaces the config file with `text` after validating it (the `sous config edit` path; the user's
 * comments and layout are kept). `fileForMessages` names the file errors point at (default `file`).
 */
export async function writeConfigText(file: string, text: string, fileForMessages = file): Promise<SousConfig> {
  const cfg = parseConfigToml(text, fileForMessages);
  await writeFileAtomic(file, text);
  return cfg;
}

function requireConfigText(file: string): string {
  const text = readConfigText(file);
  if (text === undefined) {
    throw new ConfigError('io', `no config file at ${file}; run \`sous init --path <workspace>\` first`, { file });
  }
  return text;
}

/**
 * Writes `text` to `file` atomically: a temp file in the same directory, fsync, rename over the
 * target, then a best-effort fsync of the directory. Readers see the old or the new file, never half.
 */
export async function writeFileAtomic(file: string, text: string): Promise<void> {
  const dir = path.dirname(file);
  const tmp = path.join(dir, `.${path.basename(file)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
  try {
    const handle = await fs.promises.open(tmp, 'wx', PRIVATE_FILE_MODE);
    try {
      await handle.writeFile(text, 'utf8');
      await handle.sync();
    } finally {
      await handle.close();
    }
    await fs.promises.rename(tmp, file);
  } catch (err) {
    await fs.promises.rm(tmp, { force: true });
    throw ioError(`could not write ${file}`, err, file);
  }
  await syncDir(dir);
}

async function syncDir(dir: string): Promise<void> {
  let handle: fs.promises.FileHandle | undefined;
  try {
    handle = await fs.promises.open(dir, 'r');
    await handle.sync();
  } catch {
    // Directory fsync is not supported everywhere (e.g. Windows); the rename itself already happened.
  } finally {
    await handle?.close();
  }
}

function ioError(what: string, err: unknown, file: string): ConfigError {
  const reason = isErrnoException(err) ? (err.code ?? errorMessage(err)) : errorMessage(err);
  return new ConfigError('io', `${what}: ${reason}; check that the directory exists and is writable`, { file });
}
