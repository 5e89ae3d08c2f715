/**
 * The embedded store on a disk that fills up and is freed again (issue 15, item 3). PGlite, after a
 * write-ahead-log write failed for lack of space, spins forever on its next query and blocks the
 * event loop; the store must instead answer `store_unavailable` at once and come back by itself once
 * space is freed, with everything written before and after. The store runs in a child process
 * watched with a deadline (a spin would block this runner too), on a small tmpfs of the test's own.
 */
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as readline from 'node:readline';
import { DEFAULT_MIN_FREE_BYTES } from '@sous/store';
import { mountSmallDisk, type SmallDisk } from '../../../test/support/small-disk';
import { makeTempDir, rmTempDir } from '../../../test/support/tmp';
import { buildStore } from './processes';

const FIXTURE = path.join(__dirname, 'fixtures', 'fill-disk.js');

interface Step {
  step: 'opened' | 'wall' | 'during' | 'after' | 'closed' | 'error';
  [field: string]: any; // eslint-disable-line @typescript-eslint/no-explicit-any -- the fixture's JSON lines
}

/** Runs the fixture and collects its steps; kills it when it has not finished by the deadline. */
function runFixture(args: string[], deadlineMs: number, user: { uid?: number; gid?: number } = {}): Promise<{ steps: Step[]; killed: boolean }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [FIXTURE, ...args], { stdio: ['ignore', 'pipe', 'pipe'], ...user });
    const steps: Step[] = [];
    let killed = false;
    readline.createInterface({ input: child.stdout }).on('line', (line) => steps.push(JSON.parse(line) as Step));
    child.stderr.setEncoding('utf8').on('data', (d: string) => process.stderr.write(d));
    const timer = setTimeout(() => {
      killed = true;
      child.kill('SIGKILL');
    }, deadlineMs);
    child.once('close', () => {
      clearTimeout(timer);
      resolve({ steps, killed });
    });
  });
}

describe.each([
  { name: 'PGlite itself runs into the full disk (free-space check off)', minFree: 0 },
  { name: 'the free-space check stops writes first (default)', minFree: DEFAULT_MIN_FREE_BYTES },
])('embedded store on a disk that fills up: $name', ({ minFree }) => {
  let dir: string;
  let disk: SmallDisk;

  beforeAll(() => {
    buildStore();
    dir = makeTempDir('sous-disk-');
    disk = mountSmallDisk(path.join(dir, 'disk'), 96);
  });

  afterAll(() => {
    disk?.unmount();
    rmTempDir(dir);
  });

  test('answers store_unavailable instead of hanging, and resumes by itself once space is freed, losing nothing', async () => {
    const { steps, killed } = await runFixture([path.join(disk.dir, 'data'), 'fill', path.join(disk.dir, 'filler'), String(minFree)], 150_000);
    const step = (name: Step['step']) => steps.find((s) => s.step === name);
    // Killed at the deadline = the store hung (the old behaviour); stderr says more when it failed.
    expect({ killed, error: step('error'), last: steps.at(-1)?.step }).toEqual({ killed: false, error: undefined, last: 'closed' });
    expect(step('wall')).toMatchObject({ failed: true });
    const during = step('during') as Step;
    expect(during.health.ok).toBe(false);
    expect(during.health.detail).toMatch(/disk full/);
    expect(Date.parse(during.health.since)).not.toBeNaN();
    expect(during.write).toMatchObject({ code: 'store_unavailable' });
    expect(during.write.message).toMatch(/disk full/);
    expect(during.outage.reason).toMatch(/disk full/);
    expect(step('after')).toMatchObject({ ok: true, roots: ['/before', '/after'], outage: null });
    expect(step('closed')).toBeDefined();
  }, 180_000);
});

describe('embedded store whose data directory stops being writable (chmod a-w)', () => {
  let dir: string;
  // Root writes through any mode bits: the store then runs as `nobody`, whose files they are.
  const user = process.getuid?.() === 0 ? { uid: 65534, gid: 65534 } : {};

  beforeAll(() => {
    buildStore();
    dir = makeTempDir('sous-locked-');
    fs.chmodSync(dir, 0o755);
    if (user.uid !== undefined) fs.chownSync(dir, user.uid, user.gid);
  });

  afterAll(() => rmTempDir(dir));

  test('answers store_unavailable instead of hanging, and resumes by itself once writable again, losing nothing', async () => {
    const { steps, killed } = await runFixture([path.join(dir, 'data'), 'lock', '-', String(DEFAULT_MIN_FREE_BYTES)], 150_000, user);
    const step = (name: Step['step']) => steps.find((s) => s.step === name);
    expect({ killed, error: step('error'), last: steps.at(-1)?.step }).toEqual({ killed: false, error: undefined, last: 'closed' });
    const during = step('during') as Step;
    expect(during.health.ok).toBe(false);
    expect(during.write).toMatchObject({ code: 'store_unavailable' });
    expect(during.outage.reason).toMatch(/not writable/);
    expect(step('after')).toMatchObject({ ok: true, roots: ['/before', '/after'], outage: null });
  }, 180_000);
});
