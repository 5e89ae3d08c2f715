import * as fs from 'node:fs';
import * as path from 'node:path';
import {
  ConfigError,
  ensureConfigFile,
  setConfigValue,
  sousPaths,
  watchConfig,
  writeFileAtomic,
  type ConfigWatcher,
  type SousConfig,
} from '@sous/config';
import { makeTempDir, rmTempDir } from '../../../test/support/tmp';

type Event = { kind: 'change'; cfg: SousConfig } | { kind: 'error'; err: ConfigError };

/** Collects watcher events; `next()` waits for the next one or fails at the deadline (generous: a loaded CI machine polls late). */
class Events {
  private queue: Event[] = [];
  private waiter: ((e: Event) => void) | undefined;
  readonly handlers = {
    onChange: (cfg: SousConfig) => this.push({ kind: 'change', cfg }),
    onError: (err: ConfigError) => this.push({ kind: 'error', err }),
  };

  private push(e: Event): void {
    if (this.waiter) {
      const w = this.waiter;
      this.waiter = undefined;
      w(e);
    } else this.queue.push(e);
  }

  next(deadlineMs = 10_000): Promise<Event> {
    const queued = this.queue.shift();
    if (queued) return Promise.resolve(queued);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiter = undefined;
        reject(new Error(`no config event within ${deadlineMs} ms`));
      }, deadlineMs);
      this.waiter = (e) => {
        clearTimeout(timer);
        resolve(e);
      };
    });
  }
}

describe.each([
  ['native', false],
  ['polling', true],
] as const)('watchConfig (%s)', (mode, polling) => {
  let root: string;
  let watcher: ConfigWatcher | undefined;
  beforeEach(() => {
    root = makeTempDir('sous-watch-');
  });
  afterEach(() => {
    watcher?.close();
    watcher = undefined;
    rmTempDir(root);
  });

  it('delivers an atomic (rename) write within 1 s and survives an invalid intermediate edit', async () => {
    const paths = sousPaths(root);
    await ensureConfigFile(paths);
    const events = new Events();
    watcher = watchConfig(paths.config, events.handlers, { polling });
    expect(watcher.mode).toBe(mode);
    if (polling) expect(watcher.reason).toContain('requested');

    await setConfigValue(paths.config, 'compute.cpu_fraction', '0.5');
    const first = await events.next();
    expect(first.kind === 'change' && first.cfg.compute.cpu_fraction).toBe(0.5);

    await writeFileAtomic(paths.config, '[compute]\ncpu_fraction = 9\n');
    const bad = await events.next();
    expect(bad.kind).toBe('error');
    if (bad.kind === 'error') {
      expect(bad.err.code).toBe('invalid_value');
      expect(bad.err.message).toContain('keeping the last good configuration');
    }
    expect(watcher.current()?.compute.cpu_fraction).toBe(0.5);

    // A plain in-place write (not a rename) is seen too.
    fs.writeFileSync(paths.config, '[compute]\ncpu_fraction = 0.75\n');
    const fixed = await events.next();
    expect(fixed.kind === 'change' && fixed.cfg.compute.cpu_fraction).toBe(0.75);
    expect(watcher.current()?.compute.cpu_fraction).toBe(0.75);
  });

  it('refuses an emptied file and keeps the last good configuration, exclusions included', async () => {
    const paths = sousPaths(root);
    await ensureConfigFile(paths);
    await setConfigValue(paths.config, 'privacy.excluded_patterns', '["*.env","internal/**"]');
    const events = new Events();
    watcher = watchConfig(paths.config, events.handlers, { polling });

    fs.writeFileSync(paths.config, ''); // an editor that crashed mid-save, or `> config.toml`
    const emptied = await events.next();
    expect(emptied.kind).toBe('error');
    if (emptied.kind === 'error') {
      expect(emptied.err.code).toBe('empty_file');
      expect(emptied.err.message).toContain('keeping the last good configuration');
    }
    expect(watcher.current()?.privacy.excluded_patterns).toEqual(['*.env', 'internal/**']);

    fs.writeFileSync(paths.config, '# nothing but a comment\n');
    const commented = await events.next();
    expect(commented.kind === 'error' && commented.err.code).toBe('empty_file');
    expect(watcher.current()?.privacy.excluded_patterns).toEqual(['*.env', 'internal/**']);
  });
});

describe('watchConfig fallback', () => {
  let root: string;
  beforeEach(() => {
    root = makeTempDir('sous-watch-');
  });
  afterEach(() => rmTempDir(root));

  it.each(['ENOSPC', 'EMFILE'])('polls and says why when the native watch limit is exhausted (%s)', async (code) => {
    const paths = sousPaths(root);
    await ensureConfigFile(paths);
    const events = new Events();
    const exhausted = (): fs.FSWatcher => {
      throw Object.assign(new Error(`${code}: System limit for number of file watchers reached`), { code });
    };
    const watcher = watchConfig(paths.config, events.handlers, { watchFactory: exhausted });
    try {
      expect(watcher.mode).toBe('polling');
      expect(watcher.reason).toContain(code);
      await setConfigValue(paths.config, 'mcp.http_port', '9001');
      const e = await events.next();
      expect(e.kind === 'change' && e.cfg.mcp.http_port).toBe(9001);
    } finally {
      watcher.close();
    }
  });

  it('reports a removed file and keeps the last good config', async () => {
    const paths = sousPaths(root);
    await ensureConfigFile(paths);
    const events = new Events();
    const watcher = watchConfig(paths.config, events.handlers);
    try {
      fs.rmSync(paths.config);
      const e = await events.next();
      expect(e.kind === 'error' && e.err.code).toBe('io');
      expect(watcher.current()).toBeDefined();
      expect(path.basename(paths.config)).toBe('config.toml');
    } finally {
      watcher.close();
    }
  });
});
