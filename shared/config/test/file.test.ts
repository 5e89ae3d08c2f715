import * as fs from 'node:fs';
import * as path from 'node:path';
import { ConfigError, defaultConfig, ensureConfigFile, loadConfig, setConfigValue, sousPaths, writeConfigText } from '@sous/config';
import { makeTempDir, rmTempDir } from '../../../test/support/tmp';

describe('config files', () => {
  let root: string;
  beforeEach(() => {
    root = makeTempDir('sous-config-');
  });
  afterEach(() => rmTempDir(root));

  it('loads the defaults when there is no file', () => {
    expect(loadConfig(path.join(root, '.sous', 'config.toml'))).toEqual(defaultConfig());
  });

  it('refuses a file that sets no key (empty, blank, comments or headers only) like a broken one', async () => {
    const paths = sousPaths(root);
    await ensureConfigFile(paths);
    await setConfigValue(paths.config, 'privacy.excluded_patterns', '["*.env","internal/**"]');
    for (const text of ['', '  \n\n\t\n', '# all my settings\n# were here\n', '[privacy]\n[compute]\n']) {
      fs.writeFileSync(paths.config, text);
      let caught: unknown;
      try {
        loadConfig(paths.config);
      } catch (err) {
        caught = err;
      }
      expect(caught).toBeInstanceOf(ConfigError);
      expect(caught).toMatchObject({ code: 'empty_file', file: paths.config });
      expect((caught as Error).message).toContain(`${paths.config} sets no key`);
      // `sous config edit` cannot save such a file either.
      await expect(writeConfigText(paths.config, text)).rejects.toMatchObject({ code: 'empty_file' });
    }
    // One key is enough: the others take their defaults, as always.
    fs.writeFileSync(paths.config, '[compute]\ncpu_fraction = 0.5\n');
    expect(loadConfig(paths.config).compute.cpu_fraction).toBe(0.5);
  });

  it('creates .sous/ with a .gitignore and the default config, touching nothing else, and only once', async () => {
    const paths = sousPaths(root);
    expect(await ensureConfigFile(paths)).toEqual({ created: true });
    expect(fs.readdirSync(root)).toEqual(['.sous']);
    expect(fs.readdirSync(paths.dir).sort()).toEqual(['.gitignore', 'config.toml']);
    expect(fs.readFileSync(path.join(paths.dir, '.gitignore'), 'utf8')).toBe('*\n');
    expect(loadConfig(paths.config)).toEqual(defaultConfig());

    fs.appendFileSync(paths.config, '# mine\n');
    const before = fs.readFileSync(paths.config);
    expect(await ensureConfigFile(paths)).toEqual({ created: false });
    expect(fs.readFileSync(paths.config).equals(before)).toBe(true);
  });

  it('refuses to create the state directory of a workspace that does not exist', async () => {
    const paths = sousPaths(path.join(root, 'missing'));
    await expect(ensureConfigFile(paths)).rejects.toMatchObject({ code: 'io' });
    expect(fs.existsSync(path.join(root, 'missing'))).toBe(false);
  });

  it('sets a value, validates the whole result and round-trips it', async () => {
    const paths = sousPaths(root);
    await ensureConfigFile(paths);
    const cfg = await setConfigValue(paths.config, 'compute.cpu_fraction', '0.5');
    expect(cfg.compute.cpu_fraction).toBe(0.5);
    await setConfigValue(paths.config, 'privacy.allowed_paths', '["src/**","lib/**"]');
    await setConfigValue(paths.config, 'backends.fast', '{ base_url = "http://127.0.0.1:8080/v1", model = "tiny" }');
    const loaded = loadConfig(paths.config);
    expect(loaded.compute.cpu_fraction).toBe(0.5);
    expect(loaded.privacy.allowed_paths).toEqual(['src/**', 'lib/**']);
    expect(loaded.backends.fast).toEqual({ base_url: 'http://127.0.0.1:8080/v1', model: 'tiny', api_key_env: '' });
    expect(fs.readdirSync(paths.dir).sort()).toEqual(['.gitignore', 'config.toml']);
  });

  it('leaves the file untouched byte for byte when a set is refused', async () => {
    const paths = sousPaths(root);
    await ensureConfigFile(paths);
    fs.appendFileSync(paths.config, '# a comment the user wrote\n');
    const before = fs.readFileSync(paths.config);
    for (const [key, raw, message] of [
      ['compute.cpu_fraction', '1.5', 'compute.cpu_fraction must be a number between 0 and 1 (found 1.5)'],
      ['compute.cpu_fractoin', '0.5', 'did you mean compute.cpu_fraction?'],
      ['backend.api_key_env', 'sk-' + 'x'.repeat(30), 'looks like a key value'],
      ['backends.fast.model', 'm', 'backends.fast.base_url is missing'],
    ] as const) {
      const err: unknown = await setConfigValue(paths.config, key, raw).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ConfigError);
      expect((err as ConfigError).message).toContain(message);
      expect(fs.readFileSync(paths.config).equals(before)).toBe(true);
    }
    expect(fs.readdirSync(paths.dir).sort()).toEqual(['.gitignore', 'config.toml']);
  });

  it('refuses to set a value when there is no config file yet', async () => {
    const err: unknown = await setConfigValue(sousPaths(root).config, 'compute.cpu_fraction', '0.5').catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'io' });
    expect((err as Error).message).toContain('sous init');
    expect(fs.existsSync(path.join(root, '.sous'))).toBe(false);
  });

  it('replaces the file with edited text only when it is valid, keeping the user layout', async () => {
    const paths = sousPaths(root);
    await ensureConfigFile(paths);
    const before = fs.readFileSync(paths.config);
    await expect(writeConfigText(paths.config, '[compute]\ncpu_fraction = 7\n')).rejects.toMatchObject({ code: 'invalid_value' });
    expect(fs.readFileSync(paths.config).equals(before)).toBe(true);
    const edited = '# short\n[compute]\ncpu_fraction = 0.75\n';
    expect((await writeConfigText(paths.config, edited)).compute.cpu_fraction).toBe(0.75);
    expect(fs.readFileSync(paths.config, 'utf8')).toBe(edited);
  });
});
