/**
 * An emptied `.sous/config.toml` (an editor that crashed mid-save, `> config.toml`) is refused like
 * a broken one, never applied as "all defaults" (which would drop the user's exclusions): a running
 * daemon keeps its last good config and says why in status and doctor; a starting one refuses to start.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { embeddedEnv, freePort, sous } from './support/cli';
import { rawRequest } from './support/http';
import { makeGitRepo, rmTempDir } from './support/tmp';
import { until } from './support/wait';

test('an empty config is refused on hot reload and at start, and the file is left as it is', async () => {
  const repo = makeGitRepo();
  const env = embeddedEnv();
  const port = await freePort();
  const config = path.join(repo, '.sous', 'config.toml');
  try {
    expect((await sous(['init', '--path', repo, '--non-interactive'], { env })).code).toBe(0);
    expect((await sous(['config', 'set', 'privacy.excluded_patterns', '["*.env","src/internal/**"]', '--path', repo], { env })).code).toBe(0);
    expect((await sous(['up', '--path', repo, '--port', String(port), '--json'], { env })).code).toBe(0);

    fs.writeFileSync(config, '');
    const status = await until(async () => {
      const s = (await rawRequest({ port, path: '/status' })).json;
      return s.config.last_error ? s : undefined;
    }, 5000);
    expect(status.config.last_error).toContain(`${config} sets no key`);
    expect(status.config.last_error).toContain('keeping the last good configuration');
    expect(status.status).toBe('ok');

    const doctor = (await sous(['doctor', '--path', repo, '--json'], { env })).json;
    const byName = (name: string) => doctor.checks.find((c: { name: string }) => c.name === name);
    expect(byName('config')).toMatchObject({ status: 'fail', detail: expect.stringContaining('sets no key') });
    expect(byName('config reload')).toMatchObject({ status: 'warn', detail: expect.stringContaining('sets no key') });

    expect((await sous(['down', '--path', repo], { env })).code).toBe(0);
    const restart = await sous(['up', '--path', repo, '--port', String(port)], { env });
    expect(restart.code).not.toBe(0);
    expect(restart.stderr).toMatch(/^sous: the daemon could not start: .*config\.toml sets no key/);
    expect(fs.readFileSync(config, 'utf8')).toBe('');
  } finally {
    await sous(['down', '--path', repo], { env });
    rmTempDir(repo);
  }
}, 180_000);
