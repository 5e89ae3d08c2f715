/** The settings the supervisor starts the daemon with: malloc defaults that an explicit environment overrides. */
import { spawnSync } from 'node:child_process';
import { DAEMON_MALLOC_ENV, DAEMON_NODE_FLAGS, daemonEnv } from '../src/memory-settings';

describe('daemon memory settings', () => {
  test('the daemon environment adds the malloc defaults and keeps what the user set', () => {
    const env = daemonEnv({ PATH: '/usr/bin', MALLOC_ARENA_MAX: '4' });
    expect(env.PATH).toBe('/usr/bin');
    expect(env.MALLOC_ARENA_MAX).toBe('4');
    expect(env.MALLOC_MMAP_THRESHOLD_).toBe(DAEMON_MALLOC_ENV.MALLOC_MMAP_THRESHOLD_);
  });

  test('every node flag is one this node accepts', () => {
    const run = spawnSync(process.execPath, [...DAEMON_NODE_FLAGS, '-e', 'process.exit(0)'], { encoding: 'utf8' });
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
  });
});
