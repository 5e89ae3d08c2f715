import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Command } from 'commander';
import {
  CONFIG_KEYS,
  ConfigError,
  formatTomlValue,
  getConfigValue,
  loadConfig,
  readConfigText,
  renderConfigToml,
  setConfigValue,
  writeConfigText,
  type ConfigValue,
  type SousPaths,
} from '@sous/config';
import { PRIVATE_FILE_MODE } from '@sous/protocol';
import { DaemonRequestError } from '@sous/runtime';
import { CliError } from '../cli-error';
import { clientFor } from '../daemon-control';
import { printJson, printLine, printTable } from '../output';
import { run } from '../run';
import { resolveWorkspace } from '../workspace';

interface PathOption {
  /** Workspace directory; default: nearest `.sous/` upward from the current directory. */
  path?: string;
}
interface JsonOption extends PathOption {
  /** Print machine-readable JSON instead of text. */
  json?: boolean;
}

/** `sous config show|keys|get|set|edit` (spec 4.7, 2.8). */
export function registerConfigCommands(program: Command): void {
  const config = program.command('config').description('show and change .sous/config.toml');

  config
    .command('show')
    .description('print the effective configuration (TOML, or JSON with --json)')
    .option('--path <dir>', 'workspace directory (default: nearest .sous/ upward)')
    .option('--json', 'print JSON')
    .action(
      run((opts: JsonOption) => {
        const paths = resolveWorkspace(opts.path);
        const { cfg, exists } = load(paths);
        if (opts.json) return printJson(cfg);
        if (!exists) printLine(`# ${missingNote(paths)}`);
        process.stdout.write(renderConfigToml(cfg));
      }),
    );

  config
    .command('keys')
    .description('list every key with its type and default')
    .option('--path <dir>', 'workspace directory (default: nearest .sous/ upward)')
    .option('--json', 'print JSON')
    .action(
      run((opts: JsonOption) => {
        const paths = resolveWorkspace(opts.path);
        if (opts.json) {
          return printJson(
            CONFIG_KEYS.map((k) => ({
              key: k.key,
              type: k.type,
              default: k.default ?? null,
              description: k.description,
              ...(k.values ? { values: k.values } : {}),
              sous_addition: k.addition === true,
              reserved: k.reserved !== undefined,
              ...(k.reserved !== undefined ? { reserved_reason: k.reserved } : {}),
            })),
          );
        }
        const typeWidth = Math.max(...CONFIG_KEYS.map((k) => k.type.length));
        printTable(
          CONFIG_KEYS.map((k) => {
            const shown = k.default === undefined ? '(none)' : formatTomlValue(k.default);
            // "reserved": validated, but nothing acts on it in this release (the reason is in --json).
            return [k.key, `${k.reserved !== undefined ? 'reserved  ' : '          '}${k.type.padEnd(typeWidth)}  ${shown}${k.values ? `  (one of ${k.values.join(', ')})` : ''}`];
          }),
        );
        printLine(`reserved: accepted and validated, but nothing acts on it yet (sous config keys --json gives the reason)`);
        if (!fs.existsSync(paths.config)) process.stderr.write(`sous: note: ${missingNote(paths)}\n`);
      }),
    );

  config
    .command('get <key>')
    .description('print one value (dotted key, e.g. compute.cpu_fraction)')
    .option('--path <dir>', 'workspace directory (default: nearest .sous/ upward)')
    .option('--json', 'print JSON')
    .action(
      run((key: string, opts: JsonOption) => {
        const paths = resolveWorkspace(opts.path);
        const { cfg, exists } = load(paths);
        const value = configCall(() => getConfigValue(cfg, key));
        if (opts.json) return printJson({ key, value });
        for (const line of formatForText(value)) printLine(line);
        if (!exists) process.stderr.write(`sous: note: ${missingNote(paths)}\n`);
      }),
    );

  config
    .command('set <key> <value>')
    .description('set one value; a running daemon reloads the file before this returns')
    .option('--path <dir>', 'workspace directory (default: nearest .sous/ upward)')
    .action(
      run(async (key: string, value: string, opts: PathOption) => {
        const paths = requireConfigFile(resolveWorkspace(opts.path));
        // Through a running daemon, which writes the file and answers once it has reloaded it: a command
        // run next (`sous prepare`) finds the new value, not the old one.
        const written = (await setThroughDaemon(paths, key, value)) ?? { value: getConfigValue(await configCallAsync(() => setConfigValue(paths.config, key, value)), key) };
        printLine(`${key} = ${formatTomlValue(written.value)}`);
      }),
    );

  config
    .command('edit')
    .description('edit the config in $VISUAL / $EDITOR, validated before it replaces the file')
    .option('--path <dir>', 'workspace directory (default: nearest .sous/ upward)')
    .action(
      run(async (opts: PathOption) => {
        await editConfig(requireConfigFile(resolveWorkspace(opts.path)));
      }),
    );
}

/**
 * `POST /config/set` on the workspace's running daemon (the same parser and validation, an atomic
 * write, answered after the hot reload); undefined when no daemon answers it, so the CLI writes the
 * file itself. A value the daemon refuses is the user's one-line error.
 */
async function setThroughDaemon(paths: SousPaths, key: string, value: string): Promise<{ value: ConfigValue } | undefined> {
  const client = clientFor(paths);
  if (client === undefined) return undefined;
  try {
    const answer = await client.post<{ value: ConfigValue; reloaded: boolean }>('/config/set', { key, value });
    if (!answer.reloaded) process.stderr.write(`sous: note: the running daemon has not reloaded ${paths.config} yet; it will on its next look at the file\n`);
    return { value: answer.value };
  } catch (err) {
    if (err instanceof DaemonRequestError && (err.status === 400 || err.status === 409)) throw new CliError(err.message);
    // Not answering, or not letting this client in: the file is written directly, as without a daemon.
    return undefined;
  }
}

/**
 * Copies the config to a temp file in `.sous/`, runs the editor on it, validates, then replaces the
 * config atomically. An invalid result leaves the config untouched and the copy in place.
 */
async function editConfig(paths: SousPaths): Promise<void> {
  const original = readConfigText(paths.config) ?? '';
  const copy = path.join(paths.dir, `config.edit-${randomBytes(4).toString('hex')}.toml`);
  fs.writeFileSync(copy, original, { flag: 'wx', mode: PRIVATE_FILE_MODE });

  const editor = process.env.VISUAL || process.env.EDITOR || 'vi';
  // Through the shell, like git: $EDITOR may carry arguments (`code --wait`).
  const result =
    process.platform === 'win32'
      ? spawnSync(editor, [copy], { stdio: 'inherit', shell: true })
      : spawnSync('/bin/sh', ['-c', `${editor} "$1"`, 'sous-editor', copy], { stdio: 'inherit' });
  if (result.error || result.status !== 0) {
    const why = result.error ? result.error.message : `exited with ${result.status ?? result.signal}`;
    throw new CliError(`editor "${editor}" ${why}; ${paths.config} is unchanged and your copy is in ${copy}`);
  }

  const edited = fs.readFileSync(copy, 'utf8');
  if (edited === original) {
    fs.rmSync(copy, { force: true });
    printLine(`no changes; ${paths.config} is unchanged`);
    return;
  }
  try {
    await writeConfigText(paths.config, edited, copy);
  } catch (err) {
    if (err instanceof ConfigError) {
      throw new CliError(`${err.message}; ${paths.config} is unchanged and your edits are kept in ${copy} (fix it and run sous config edit again, or copy it over)`);
    }
    throw err;
  }
  fs.rmSync(copy, { force: true });
  printLine(`saved ${paths.config}`);
}

function load(paths: SousPaths): { cfg: ReturnType<typeof loadConfig>; exists: boolean } {
  const exists = fs.existsSync(paths.config);
  return { cfg: configCall(() => loadConfig(paths.config)), exists };
}

function requireConfigFile(paths: SousPaths): SousPaths {
  if (!fs.existsSync(paths.config)) {
    throw new CliError(`no config file at ${paths.config}; run \`sous init --path ${paths.root}\` first`);
  }
  return paths;
}

function missingNote(paths: SousPaths): string {
  return `no config file at ${paths.config}; showing the defaults (run \`sous init --path ${paths.root}\` to create it)`;
}

/** Text form of a value: strings bare (handy in scripts), tables as `name = value` lines. */
function formatForText(value: unknown, prefix = ''): string[] {
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
    return Object.entries(value).flatMap(([k, v]) =>
      v !== null && typeof v === 'object' && !Array.isArray(v) ? formatForText(v, `${prefix}${k}.`) : [`${prefix}${k} = ${formatTomlValue(v)}`],
    );
  }
  return [typeof value === 'string' ? value : formatTomlValue(value)];
}

/** Config errors are already one readable line; surface them as CLI errors. */
function configCall<T>(fn: () => T): T {
  try {
    return fn();
  } catch (err) {
    if (err instanceof ConfigError) throw new CliError(err.message);
    throw err;
  }
}

async function configCallAsync<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (err instanceof ConfigError) throw new CliError(err.message);
    throw err;
  }
}
