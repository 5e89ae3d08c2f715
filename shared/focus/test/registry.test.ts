/** The focus registry in a Sous home of its own: ids, registration, actions under the lock, activity, bad files. */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { FocusRegistry, workspaceKey } from '../src';
import { makeTempDir, rmTempDir } from '../../../test/support/tmp';

describe('focus registry', () => {
  let home: string;
  beforeEach(() => (home = makeTempDir('sous-home-')));
  afterEach(() => rmTempDir(home));

  test('a workspace id is stable for its root and registering twice changes nothing', () => {
    const registry = new FocusRegistry(home);
    const id = registry.register('/repos/app');
    expect(id).toBe(workspaceKey('/repos/app/'));
    expect(id).toMatch(/^ws-[0-9a-f]{12}$/);
    const before = fs.readFileSync(registry.stateFile, 'utf8');
    expect(registry.register('/repos/app')).toBe(id);
    expect(fs.readFileSync(registry.stateFile, 'utf8')).toBe(before);
  });

  test('actions are stored and read back by another registry on the same home (another daemon)', () => {
    const a = new FocusRegistry(home);
    const id = a.register('/repos/app');
    expect(a.apply({ kind: 'pause', id }).ok).toBe(true);
    const b = new FocusRegistry(home);
    expect(b.read().workspaces[id]).toMatchObject({ root: '/repos/app', paused: true });
    const unknown = b.apply({ kind: 'pin', id: 'ws-000000000000' });
    expect(unknown.ok).toBe(false);
    expect(b.read().workspaces[id]?.pinned).toBe(false);
    expect(fs.existsSync(path.join(home, 'focus.lock'))).toBe(false);
  });

  test('an abandoned lock is taken over; a held one gives a clear error', () => {
    const registry = new FocusRegistry(home);
    const id = registry.register('/repos/app');
    const lock = path.join(home, 'focus.lock');
    fs.writeFileSync(lock, '');
    const old = new Date(Date.now() - 60_000);
    fs.utimesSync(lock, old, old);
    expect(registry.apply({ kind: 'pin', id }).ok).toBe(true);
    fs.writeFileSync(lock, '');
    expect(() => registry.apply({ kind: 'unpin', id })).toThrow(/is held by another Sous process/);
  });

  test('activity reports are kept per workspace and merged over the processes that report them', () => {
    const registry = new FocusRegistry(home);
    registry.recordActivity('ws-aaaaaaaaaaaa', { root: '/a', last_file_change: '2026-11-23T10:00:00.000Z', last_integration: '2026-11-23T09:00:00.000Z' });
    registry.recordActivity('ws-aaaaaaaaaaaa', { root: '/a', last_integration: '2026-11-23T10:05:00.000Z' }, 'context');
    registry.recordActivity('ws-bbbbbbbbbbbb', { root: '/b', last_integration: '2026-11-23T10:01:00.000Z' });
    expect(registry.activity()).toEqual({
      'ws-aaaaaaaaaaaa': { root: '/a', last_file_change: '2026-11-23T10:00:00.000Z', last_integration: '2026-11-23T10:05:00.000Z' },
      'ws-bbbbbbbbbbbb': { root: '/b', last_integration: '2026-11-23T10:01:00.000Z' },
    });
  });

  test('a missing home is the empty state; a broken focus.json is refused naming the file', () => {
    expect(new FocusRegistry(path.join(home, 'nope')).read()).toEqual({ mode: 'auto', workspaces: {} });
    fs.writeFileSync(path.join(home, 'focus.json'), '{ not json');
    expect(() => new FocusRegistry(home).read()).toThrow(/focus\.json is not valid JSON; fix it or delete it/);
  });
});
