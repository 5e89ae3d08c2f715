/**
 * Goals end to end (spec 2.3, 3.3; docs/goals.md): a real daemon (`sous up`, embedded PGlite) on a
 * temporary git repository. Declared over HTTP and the CLI, goals round-trip, survive a daemon
 * restart, refuse bad input with the one JSON error shape, and are reconciled when a related file is
 * deleted, changed or created in the real repository (the daemon sees it through its watcher).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { embeddedEnv, freePort, gitSnapshot, sous, upAndIndexed } from './support/cli';
import { rawRequest, type RawResponse } from './support/http';
import { git, makeGitRepo, rmTempDir, writeFile } from './support/tmp';
import { until } from './support/wait';

let repo: string;
let env: NodeJS.ProcessEnv;
let port: number;

function request(method: string, urlPath: string, body?: unknown): Promise<RawResponse> {
  const text = body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body);
  return rawRequest({ port, method, path: urlPath, ...(text !== undefined ? { body: text, headers: { 'content-type': 'application/json' } } : {}) });
}

async function declare(body: Record<string, unknown>): Promise<{ id: string; [k: string]: unknown }> {
  const res = await request('POST', '/goals', body);
  expect(res.status).toBe(201);
  return res.json.goal;
}

/** The goal once its reconciliation state is `state` (the daemon reconciles after its watcher saw the change). */
function goalIn(id: string, state: string): Promise<{ reconciliation_state: string; reconciliation_reasons: string[] }> {
  return until(async () => {
    const res = await request('GET', `/goals/${id}`);
    return res.json.goal.reconciliation_state === state ? res.json.goal : undefined;
  }, 30_000, 100);
}

const start = (): Promise<void> => upAndIndexed(repo, port, env);

beforeAll(async () => {
  repo = makeGitRepo();
  writeFile(repo, 'src/keep.ts', 'export const keep = 1;\n');
  writeFile(repo, 'src/doomed.ts', 'export const doomed = 1;\n');
  writeFile(repo, 'src/edited.ts', 'export const edited = 1;\n');
  git(repo, ['add', '-A']);
  git(repo, ['commit', '-q', '-m', 'goal files']);
  env = embeddedEnv();
  port = await freePort();
  await start();
}, 120_000);

afterAll(async () => {
  await sous(['down', '--path', repo], { env });
  rmTempDir(repo);
  if (env.SOUS_HOME) rmTempDir(env.SOUS_HOME);
}, 60_000);

test('HTTP: declare (an active goal queues a cycle around its files), get, list by status, change status, delete', async () => {
  const goal = await declare({ title: 'Split the parser', description: 'one module per grammar', related_files: ['./src/keep.ts', 'src/keep.ts', 'src/new.ts'] });
  expect(goal).toMatchObject({ title: 'Split the parser', description: 'one module per grammar', status: 'active', related_files: ['src/keep.ts', 'src/new.ts'], reconciliation_state: 'current', reconciliation_reasons: [] });
  expect(typeof goal.created_at).toBe('string');
  expect((await request('GET', `/goals/${goal.id}`)).json.goal).toEqual(goal);

  // An active goal asks for preparation around its files: a cycle with trigger `goal` is queued.
  await until(async () => {
    const jobs = (await request('GET', '/jobs?limit=50')).json.jobs as Array<{ name: string; payload: { trigger?: string; paths?: string[] } }>;
    return jobs.find((j) => j.name === 'prepare.cycle' && j.payload.trigger === 'goal' && j.payload.paths?.includes('src/keep.ts'));
  }, 30_000, 100);

  const paused = await declare({ title: 'Later', status: 'paused' });
  expect((await request('GET', '/goals?status=paused')).json.goals.map((g: { id: string }) => g.id)).toEqual([paused.id]);
  const all = (await request('GET', '/goals')).json.goals.map((g: { id: string }) => g.id);
  expect(all).toEqual(expect.arrayContaining([goal.id, paused.id]));

  // Any status may follow any other (spec 3.3).
  for (const status of ['achieved', 'abandoned', 'paused', 'active']) {
    const res = await request('POST', `/goals/${goal.id}/status`, { status });
    expect([res.status, res.json.goal.status]).toEqual([200, status]);
  }
  const deleted = await request('POST', `/goals/${paused.id}/delete`, {});
  expect(deleted.json).toEqual({ deleted: paused.id });
  expect((await request('GET', `/goals/${paused.id}`)).status).toBe(404);
  await request('POST', `/goals/${goal.id}/delete`, {});
}, 60_000);

test('HTTP: bad input is a 4xx in the one JSON error shape, and changes nothing', async () => {
  const before = (await request('GET', '/goals')).json.goals.length;
  const cases: Array<[string, string, unknown, number, string, string]> = [
    ['POST', '/goals', { description: 'no title' }, 400, 'invalid_body', 'body.title'],
    ['POST', '/goals', { title: '   ' }, 400, 'invalid_body', 'body.title'],
    ['POST', '/goals', { title: 'x', status: 'done' }, 400, 'invalid_body', 'body.status'],
    ['POST', '/goals', { title: 'x', related_files: ['../outside.ts'] }, 400, 'invalid_body', 'body.related_files.0'],
    ['POST', '/goals', { title: 'x', related_files: ['/etc/passwd'] }, 400, 'invalid_body', 'body.related_files.0'],
    ['POST', '/goals', '{"title":"x","__proto__":{"status":"achieved"}}', 400, 'invalid_body', 'body.__proto__'],
    ['GET', '/goals?status=done', undefined, 400, 'invalid_query', 'query.status'],
    ['GET', '/goals/no-such-goal', undefined, 404, 'not_found', 'params.id'],
    ['POST', '/goals/no-such-goal/status', { status: 'paused' }, 404, 'not_found', 'params.id'],
    ['POST', '/goals/no-such-goal/delete', {}, 404, 'not_found', 'params.id'],
  ];
  const goal = await declare({ title: 'Target of bad updates' });
  cases.push(['POST', `/goals/${goal.id}/status`, { status: 'finished' }, 400, 'invalid_body', 'body.status']);
  cases.push(['POST', `/goals/${goal.id}/status`, {}, 400, 'invalid_body', 'body.status']);
  for (const [method, url, body, status, code, where] of cases) {
    const res = await request(method, url, body);
    expect({ url, body, status: res.status, code: res.json?.error?.code, where: res.json?.error?.where }).toEqual({ url, body, status, code, where });
    expect(typeof res.json.error.message).toBe('string');
  }
  expect((await request('GET', `/goals/${goal.id}`)).json.goal.status).toBe('active');
  expect((await request('GET', '/goals')).json.goals.length).toBe(before + 1);
  await request('POST', `/goals/${goal.id}/delete`, {});
});

test('CLI: sous goals declare, list, status, delete with --json; errors are one line with exit 2', async () => {
  const declared = await sous(['goals', 'declare', 'Ship goals', '--path', repo, '--file', 'src/keep.ts', '--description', 'from the CLI', '--json'], { env });
  expect(declared.code).toBe(0);
  const id = declared.json.goal.id as string;
  expect(declared.json.goal).toMatchObject({ title: 'Ship goals', description: 'from the CLI', status: 'active', related_files: ['src/keep.ts'], reconciliation_state: 'current' });

  const listed = await sous(['goals', 'list', '--path', repo, '--status', 'active', '--json'], { env });
  expect(listed.json.goals.map((g: { id: string }) => g.id)).toContain(id);
  const human = await sous(['goals', 'list', '--path', repo], { env });
  expect(human.stdout).toMatch(new RegExp(`${id}\\s+active\\s+current\\s+Ship goals`));

  const achieved = await sous(['goals', 'status', id, 'achieved', '--path', repo, '--json'], { env });
  expect([achieved.code, achieved.json.goal.status]).toEqual([0, 'achieved']);

  const badStatus = await sous(['goals', 'status', id, 'finished', '--path', repo], { env });
  expect(badStatus.code).toBe(2);
  expect(badStatus.stderr).toMatch(/^sous: status must be one of \[active, paused, abandoned, achieved\]\n$/);
  const unknown = await sous(['goals', 'delete', 'no-such-goal', '--path', repo], { env });
  expect(unknown.code).toBe(2);
  expect(unknown.stderr).toMatch(/^sous: no goal "no-such-goal" in this workspace; sous goals list shows the current ones\n$/);

  const deleted = await sous(['goals', 'delete', id, '--path', repo, '--json'], { env });
  expect([deleted.code, deleted.json]).toEqual([0, { deleted: id }]);
  expect((await sous(['goals', 'list', '--path', repo, '--json'], { env })).json.goals.map((g: { id: string }) => g.id)).not.toContain(id);
});

test('reconciliation: a deleted or edited related file demotes an active goal, a created one promotes; paused goals wait', async () => {
  const snapshot = gitSnapshot(repo);
  const doomed = await declare({ title: 'Keep doomed working', related_files: ['src/doomed.ts', 'src/keep.ts'] });
  const edited = await declare({ title: 'Tidy edited', related_files: ['src/edited.ts'] });
  const created = await declare({ title: 'Add a feature module', related_files: ['src/feature.ts'] });
  const paused = await declare({ title: 'Paused goal', status: 'paused', related_files: ['src/edited.ts'] });

  fs.rmSync(path.join(repo, 'src/doomed.ts'));
  fs.appendFileSync(path.join(repo, 'src/edited.ts'), 'export const more = 2;\n');
  writeFile(repo, 'src/feature.ts', 'export const feature = true;\n');

  expect((await goalIn(doomed.id, 'stale')).reconciliation_reasons).toEqual(['src/doomed.ts was deleted']);
  expect((await goalIn(edited.id, 'stale')).reconciliation_reasons).toEqual(['src/edited.ts changed since declared']);
  expect((await goalIn(created.id, 'confirmed')).reconciliation_reasons).toEqual(['src/feature.ts now exists']);
  // Only active goals are reconciled: the paused one keeps the state it had.
  expect((await request('GET', `/goals/${paused.id}`)).json.goal.reconciliation_state).toBe('current');

  // Re-activating is the user confirming the goal against the repository as it is now.
  const again = await request('POST', `/goals/${edited.id}/status`, { status: 'active' });
  expect(again.json.goal).toMatchObject({ reconciliation_state: 'current', reconciliation_reasons: [] });
  // Putting the file back as it was declared makes the first goal current again (deterministic: same files, same state).
  git(repo, ['checkout', '--', 'src/doomed.ts']);
  expect((await goalIn(doomed.id, 'current')).reconciliation_reasons).toEqual([]);

  // Sous only read the repository: the edits above are the test's own.
  git(repo, ['checkout', '--', 'src/edited.ts']);
  fs.rmSync(path.join(repo, 'src/feature.ts'));
  expect(gitSnapshot(repo)).toEqual(snapshot);
  for (const g of [doomed, edited, created, paused]) await request('POST', `/goals/${g.id}/delete`, {});
}, 90_000);

test('goals persist across a daemon restart; a file deleted while the daemon was down is reconciled at start', async () => {
  const goal = await declare({ title: 'Survive a restart', related_files: ['src/keep.ts'] });
  await request('POST', `/goals/${goal.id}/status`, { status: 'paused' });
  const before = (await request('GET', `/goals/${goal.id}`)).json.goal;
  const watched = await declare({ title: 'Watched while down', related_files: ['src/doomed.ts'] });
  expect((await sous(['down', '--path', repo], { env })).code).toBe(0);
  fs.rmSync(path.join(repo, 'src/doomed.ts'));
  try {
    await start();
    expect((await request('GET', `/goals/${goal.id}`)).json.goal).toEqual(before);
    expect(before).toMatchObject({ status: 'paused', reconciliation_state: 'current', related_files: ['src/keep.ts'] });
    expect((await goalIn(watched.id, 'stale')).reconciliation_reasons).toEqual(['src/doomed.ts was deleted']);
  } finally {
    git(repo, ['checkout', '--', 'src/doomed.ts']);
  }
}, 120_000);
