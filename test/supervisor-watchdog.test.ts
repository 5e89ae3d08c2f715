/**
 * The supervisor restarts a daemon that stops answering (a stopped process here, a blocked event loop
 * in life): past SOUS_SUPERVISOR_HUNG_MS without a /status answer it is killed and started again.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { embeddedEnv, freePort, sous } from './support/cli';
import { rawRequest } from './support/http';
import { makeGitRepo, rmTempDir } from './support/tmp';
import { until } from './support/wait';

test('a daemon that stops answering /status is restarted, and the run state says why', async () => {
  const repo = makeGitRepo();
  const env = embeddedEnv({ SOUS_SUPERVISOR_HUNG_MS: '2000' });
  const port = await freePort();
  let stopped: number | undefined;
  try {
    expect((await sous(['up', '--path', repo, '--port', String(port), '--json'], { env })).code).toBe(0);
    const first = (await rawRequest({ port, path: '/status' })).json.pid as number;
    // The watchdog is armed once the supervisor's own probe has had an answer (before that, the longer
    // start grace applies and a stop would go unnoticed for minutes).
    const runState = path.join(repo, '.sous', 'run', 'supervisor.json');
    await until(() => ((JSON.parse(fs.readFileSync(runState, 'utf8')) as { daemon_answered_at?: string | null }).daemon_answered_at ? true : undefined), 60_000, 100);
    stopped = first;
    process.kill(first, 'SIGSTOP');
    const next = await until(async () => {
      const res = await rawRequest({ port, path: '/status', timeoutMs: 1000 }).catch(() => undefined);
      return res?.status === 200 && res.json.pid !== first ? (res.json.pid as number) : undefined;
    }, 90_000, 200); // a busy CI machine: the restarted daemon reopens the embedded store first
    expect(next).not.toBe(first);
    const supervisor = JSON.parse(fs.readFileSync(runState, 'utf8')) as { restarts: number; last_error?: string };
    expect(supervisor.restarts).toBeGreaterThanOrEqual(1);
    expect(supervisor.last_error).toMatch(/stopped answering for 2 s and was restarted/);
  } finally {
    if (stopped !== undefined) {
      try {
        process.kill(stopped, 'SIGKILL');
      } catch {
        // already gone: the supervisor killed it
      }
    }
    await sous(['down', '--path', repo], { env });
    rmTempDir(repo);
  }
}, 240_000);
