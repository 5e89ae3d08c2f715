/**
 * Stable codes of configuration errors. They are internal (never cross the wire as-is); surfaces map
 * them: the CLI prints the message, the HTTP layer maps `invalid_value` / `unknown_key` to 400.
 * `empty_file`: a config file that sets no key at all (refused like a broken one, never read as
 * "all defaults").
 */
export type ConfigErrorCode = 'toml_syntax' | 'invalid_value' | 'unknown_key' | 'io' | 'empty_file';

/** Where a configuration error was found. Every field is optional: a CLI value has no file. */
export interface ConfigErrorWhere {
  /** The file the error is in, when it came from a file. */
  file?: string;
  /** 1-based line of a TOML syntax error. */
  line?: number;
  /** 1-based column of a TOML syntax error. */
  column?: number;
  /** The dotted key the error is about (`compute.cpu_fraction`). */
  key?: string;
}

/** A one-line, user-facing configuration error with a stable `code`. */
export class ConfigError extends Error {
  readonly file: string | undefined;
  readonly line: number | undefined;
  readonly column: number | undefined;
  readonly key: string | undefined;

  constructor(
    readonly code: ConfigErrorCode,
    message: string,
    where: ConfigErrorWhere = {},
  ) {
    super(message);
    this.name = 'ConfigError';
    this.file = where.file;
    this.line = where.line;
    this.column = where.column;
    this.key = where.key;
  }
}

/**
 * True for a Node system error carrying `code` (ENOENT, ENOSPC, …). Duck-typed: errors raised by
 * Node's own modules are not `instanceof Error` inside another realm (jest's vm context).
 */
export function isErrnoException(err: unknown): err is NodeJS.ErrnoException {
  return typeof err === 'object' && err !== null && typeof (err as { code?: unknown }).code === 'string';
}

/** The message of any thrown value, for one-line reports. */
export function errorMessage(err: unknown): string {
  if (typeof err === 'object' && err !== null && typeof (err as { message?: unknown }).message === 'string') {
    return (err as { message: string }).message;
  }
  return String(err);
}
