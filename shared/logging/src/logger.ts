import * as fs from 'node:fs';
import * as path from 'node:path';
import pino, { type Logger } from 'pino';
import { PRIVATE_FILE_MODE, ensurePrivateDir, redactText, restrictTree } from '@sous/protocol';

export type { Logger } from 'pino';

/**
 * Field names whose values never reach a log line: secrets, and anything that could carry file
 * contents or prompt text. Callers log identifiers, paths, counts and hashes instead.
 */
const CENSORED_FIELDS = [
  'prompt', 'prompts', 'content', 'contents', 'text', 'body', 'messages', 'draft',
  'api_key', 'apiKey', 'password', 'secret', 'token', 'authorization', 'cookie',
];

export interface LoggerOptions {
  /** Log file (JSON lines). Omit to log to stderr. */
  file?: string;
  /** pino level; default `info`, or LOG_LEVEL when the entry point passes it. */
  level?: string;
  /** Extra regexes (privacy.redact_patterns) applied to every message string. */
  redactPatterns?: () => RegExp[];
  /** Name of the process (daemon, proxy, context, supervisor). */
  name: string;
}

/** A structured logger that censors content-bearing fields and redacts key-like strings in messages. */
export function createLogger(options: LoggerOptions): Logger {
  const paths = CENSORED_FIELDS.flatMap((f) => [f, `*.${f}`]);
  const destination = options.file ? openDestination(options.file) : pino.destination(2);
  const patterns = options.redactPatterns ?? (() => []);
  return pino(
    {
      name: options.name,
      level: options.level ?? 'info',
      redact: { paths, censor: '[censored]' },
      hooks: {
        logMethod(args, method) {
          const res = patterns();
          const scrubbed = args.map((a) => (typeof a === 'string' ? redactText(a, res) : scrubFields(a, res)));
          return method.apply(this, scrubbed as Parameters<typeof method>);
        },
      },
      timestamp: pino.stdTimeFunctions.isoTime,
    },
    destination,
  );
}

/** Redacts string values one level deep (e.g. `{ error: err.message }`), leaving other values alone. */
function scrubFields(value: unknown, patterns: RegExp[]): unknown {
  if (patterns.length === 0 || typeof value !== 'object' || value === null || Array.isArray(value) || value instanceof Error) return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) out[k] = typeof v === 'string' ? redactText(v, patterns) : v;
  return out;
}

function openDestination(file: string) {
  ensurePrivateDir(path.dirname(file));
  // Created (or narrowed, when an older version left it wider) for its owner only, then appended to.
  fs.closeSync(fs.openSync(file, 'a', PRIVATE_FILE_MODE));
  restrictTree(file);
  return pino.destination({ dest: file, sync: true });
}
