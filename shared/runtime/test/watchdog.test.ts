/**
 * The watchdog every long-lived Sous process runs under (the daemon's supervisor, the container
 * roles): real child processes serving real HTTP on loopback. A child that stops answering is killed
 * and replaced, a crashed one is restarted, one that refuses to start (exit 2) is not.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { freePort } from '../../../test/support/cli';
import { until } from '../../../test/support/wait';
import { superviseChild, type Watchdog } from '../src/watchdog';

/** A node child serving `pid` on 127.0.0.1:port, or exiting with `exitCode` at once. */
function child(port: number, exitCode?: number): ChildProcess {
  const script =
    exitCode !== undefined
      ? `process.exit(${exitCode})`
      : `require('node:http').createServer((q, s) => s.end(String(process.pid))).listen(${port}, '127.0.0.1')`;
  return spawn(process.execPath, ['-e', script], { stdio: 'ignore' });
}

async function answer(port: number): Promise<number | undefined> {
  try {
    const res = await fetch(`http://127.0.0.1:${port}/healthz`, { signal: AbortSignal.timeout(500) });
    return Number(await res.text());
  } catch {
    return undefined;
  }
}

let dog: Watchdog | undefined;
const stopped: number[] = [];
afterEach(async () => {
  await dog?.stop();
  dog = undefined;
  for (const pid of stopped.splice(0)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // already gone: the watchdog killed it
    }
  }
});

test('a child that stops answering its health URL is killed and a new one started', async () => {
  const port = await freePort();
  const hung: Array<{ seconds: number; answered: boolean }> = [];
  let answered = 0;
  dog = superviseChild({
    spawn: () => child(port),
    healthUrl: `http://127.0.0.1:${port}/healthz`,
    hungMs: 1000,
    events: { hung: (_c, info) => hung.push(info), answered: () => (answered += 1) },
  });
  const watchdog = dog;
  const first = await until(() => answer(port), 20_000);
  // Armed once the watchdog's own probe had an answer (before that the longer start grace applies).
  await until(() => (answered > 0 ? true : undefined), 20_000);
  stopped.push(first);
  process.kill(first, 'SIGSTOP');
  const next = await until(async () => {
    const pid = await answer(port);
    return pid !== undefined && pid !== first ? pid : undefined;
  }, 30_000, 100);
  expect(next).not.toBe(first);
  expect(hung).toEqual([{ seconds: 1, answered: true }]);
  expect(watchdog.restarts()).toBe(1);
}, 60_000);

test('a crashed child is restarted with backoff; stop() ends it without a restart', async () => {
  const port = await freePort();
  let starts = 0;
  dog = superviseChild({ spawn: () => child(port, ++starts === 1 ? 1 : undefined), healthUrl: `http://127.0.0.1:${port}/healthz`, hungMs: 1000 });
  const watchdog = dog;
  const pid = await until(() => answer(port), 20_000);
  expect(starts).toBe(2);
  expect(watchdog.restarts()).toBe(1);
  await watchdog.stop();
  expect(watchdog.child()).toBeUndefined();
  await until(async () => ((await answer(port)) === undefined ? true : undefined), 5000);
  expect(() => process.kill(pid, 0)).toThrow();
});

test('a child that refuses to start (exit 2) is not restarted: the watchdog gives up', async () => {
  let starts = 0;
  dog = superviseChild({
    spawn: () => {
      starts += 1;
      return child(0, 2);
    },
  });
  await expect(dog.gaveUp).resolves.toEqual({ reason: 'the process refused to start (exit code 2)', refused: true });
  expect(starts).toBe(1);
  expect(dog.restarts()).toBe(0);
});
