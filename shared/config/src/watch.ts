import * as fs from 'node:fs';
import * as path from 'node:path';
import { ConfigError, errorMessage, isErrnoException } from './errors';
import { parseConfigToml } from './toml';
import type { SousConfig } from './types';

/** What a config watcher reports. Handlers run on the event loop; they should not throw. */
export interface ConfigWatchHandlers {
  /** A new, valid configuration was written. */
  onChange(cfg: SousConfig): void;
  /** The file became invalid or unreadable; the last good configuration stays in effect. */
  onError(err: ConfigError): void;
}

/** A directory watcher factory with the shape of `fs.watch(dir, listener)`. */
export type NativeWatchFactory = (dir: string, listener: (event: string, filename: string | null) => void) => fs.FSWatcher;

export interface ConfigWatchOptions {
  /** Use `fs.watchFile` polling instead of native events. Default false (entry points map SOUS_WATCH_POLLING=1 to true). */
  polling?: boolean;
  /** Quiet time after the last event before the file is re-read, in ms. Default 100. */
  debounceMs?: number;
  /** Stat interval in polling mode, in ms. Default 250. */
  intervalMs?: number;
  /** Keep the process alive while watching. Default false (the owner's servers do that). */
  persistent?: boolean;
  /** Creates the native directory watcher. Default `fs.watch`; a seam for watch-limit failures. */
  watchFactory?: NativeWatchFactory;
}

export interface ConfigWatcher {
  /** `native` (directory events) or `polling` (fs.watchFile). */
  readonly mode: 'native' | 'polling';
  /** Why the watcher polls, when it does (forced, or the file-watch limit was reached). */
  readonly reason: string | undefined;
  /** The last valid configuration seen, if any. */
  current(): SousConfig | undefined;
  /** Stops watching; no handler runs afterwards. */
  close(): void;
}

const WATCH_LIMIT_CODES = new Set(['ENOSPC', 'EMFILE']);

/**
 * Watches a config file and delivers each valid change (debounced). The directory is watched, not
 * the file: atomic writes rename a new file over the old one, which silently ends a watch on the
 * file itself. When native watching is unavailable because the watch limit is exhausted (ENOSPC,
 * EMFILE) it falls back to polling and says so in `mode`/`reason` (spec 7.7).
 */
export function watchConfig(file: string, handlers: ConfigWatchHandlers, options: ConfigWatchOptions = {}): ConfigWatcher {
  const debounceMs = options.debounceMs ?? 100;
  const persistent = options.persistent ?? false;
  const base = path.basename(file);
  let closed = false;
  let timer: NodeJS.Timeout | undefined;
  let lastText: string | undefined;
  let lastGood: SousConfig | undefined;

  try {
    lastText = fs.readFileSync(file, 'utf8');
    lastGood = parseConfigToml(lastText, file);
  } catch {
    // A missing or invalid file at start is reported by whoever loaded it; the first change is delivered.
  }

  const reload = (): void => {
    if (closed) return;
    let text: string;
    try {
      text = fs.readFileSync(file, 'utf8');
    } catch (err) {
      if (lastText === undefined) return;
      lastText = undefined;
      const reason = isErrnoException(err) && err.code === 'ENOENT' ? 'was removed' : 'could not be read';
      handlers.onError(new ConfigError('io', `${file} ${reason}; keeping the last good configuration`, { file }));
      return;
    }
    if (text === lastText) return;
    lastText = text;
    let cfg: SousConfig;
    try {
      cfg = parseConfigToml(text, file);
    } catch (err) {
      if (!(err instanceof ConfigError)) throw err;
      handlers.onError(new ConfigError(err.code, `${err.message}; keeping the last good configuration`, err));
      return;
    }
    lastGood = cfg;
    handlers.onChange(cfg);
  };

  const schedule = (): void => {
    if (closed) return;
    if (timer) clearTimeout(timer);
    timer = setTimeout(reload, debounceMs);
    if (!persistent) timer.unref();
  };

  const forced = options.polling ?? false;
  let mode: 'native' | 'polling' = 'polling';
  let reason: string | undefined = forced ? 'polling was requested (SOUS_WATCH_POLLING=1 or the polling option)' : undefined;
  let native: fs.FSWatcher | undefined;

  if (!forced) {
    const factory: NativeWatchFactory = options.watchFactory ?? ((dir, listener) => fs.watch(dir, { persistent }, listener));
    try {
      native = factory(path.dirname(file), (_event, filename) => {
        if (filename === null || filename === base) schedule();
      });
      mode = 'native';
      native.on('error', (err: Error) => {
        handlers.onError(new ConfigError('io', `watching ${path.dirname(file)} failed (${err.message}); restart to resume hot reload`, { file }));
      });
    } catch (err) {
      if (!(isErrnoException(err) && err.code !== undefined && WATCH_LIMIT_CODES.has(err.code))) {
        throw new ConfigError('io', `could not watch ${path.dirname(file)}: ${errorMessage(err)}`, { file });
      }
      reason = `the file-watch limit is exhausted (${err.code}); polling every ${options.intervalMs ?? 250} ms instead (raise fs.inotify.max_user_watches to restore native watching)`;
    }
  }

  const poll = (): void => schedule();
  // fs.watchFile takes its first stat asynchronously: a write between the read above and that stat
  // would never be reported. One check after the first interval catches it (an unchanged text is a no-op).
  let settle: NodeJS.Timeout | undefined;
  if (mode === 'polling') {
    fs.watchFile(file, { interval: options.intervalMs ?? 250, persistent }, poll);
    settle = setTimeout(schedule, options.intervalMs ?? 250);
    if (!persistent) settle.unref();
  }

  return {
    mode,
    reason,
    current: () => lastGood,
    close: () => {
      closed = true;
      if (timer) clearTimeout(timer);
      if (settle) clearTimeout(settle);
      if (native) native.close();
      else fs.unwatchFile(file, poll);
    },
  };
}
