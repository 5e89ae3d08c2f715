import * as fs from 'node:fs';
import * as path from 'node:path';
import { defaultConfig } from '@sous/config';
import { coChangedWith, gitSignals, headCommit, listCandidateFiles, readScopedFile, scopePolicyFromConfig } from '../src/scope';
import { git, makeGitRepo, makeTempDir, rmTempDir, writeFile } from '../../../test/support/tmp';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmTempDir(d);
});

/** Writes `files` and commits them at `isoDate` (author and committer). */
function commitAt(dir: string, isoDate: string, files: Record<string, string>): void {
  for (const [rel, content] of Object.entries(files)) writeFile(dir, rel, content);
  git(dir, ['add', '-A']);
  git(dir, ['commit', '-q', '-m', `change at ${isoDate}`], { GIT_AUTHOR_DATE: isoDate, GIT_COMMITTER_DATE: isoDate });
}

describe('gitSignals', () => {
  it('gives recency, churn and co-change per file', async () => {
    const dir = makeGitRepo();
    dirs.push(dir);
    commitAt(dir, '2024-01-01T00:00:00Z', { 'src/a.ts': '1', 'src/b.ts': '1' });
    commitAt(dir, '2024-02-01T00:00:00Z', { 'src/a.ts': '2', 'src/b.ts': '2', 'src/c.ts': '1' });
    commitAt(dir, '2024-03-01T00:00:00Z', { 'src/c.ts': '2' });
    const big: Record<string, string> = { 'src/a.ts': '3' };
    for (let i = 0; i < 51; i++) big[`gen/f${i}.ts`] = 'x';
    commitAt(dir, '2024-04-01T00:00:00Z', big);

    const signals = await gitSignals(dir);
    expect(signals.head).toBe(await headCommit(dir));
    expect(signals.commitsRead).toBe(5);
    expect(signals.files.get('src/a.ts')).toEqual({ path: 'src/a.ts', churn: 3, lastCommitTime: Date.parse('2024-04-01T00:00:00Z') });
    expect(signals.files.get('src/b.ts')?.churn).toBe(2);
    expect(signals.files.get('src/c.ts')?.lastCommitTime).toBe(Date.parse('2024-03-01T00:00:00Z'));
    const byRecency = ['src/a.ts', 'src/b.ts', 'src/c.ts'].sort(
      (x, y) => (signals.files.get(y)?.lastCommitTime ?? 0) - (signals.files.get(x)?.lastCommitTime ?? 0),
    );
    expect(byRecency).toEqual(['src/a.ts', 'src/c.ts', 'src/b.ts']);
    // The 52-file commit counts for churn but adds no pairs.
    expect(signals.files.get('gen/f0.ts')?.churn).toBe(1);
    expect(signals.coChange[0]).toEqual({ a: 'src/a.ts', b: 'src/b.ts', count: 2 });
    expect(coChangedWith(signals, 'src/c.ts')).toEqual([
      { path: 'src/a.ts', count: 1 },
      { path: 'src/b.ts', count: 1 },
    ]);
    expect(signals.coChange.some((p) => p.a.startsWith('gen/') || p.b.startsWith('gen/'))).toBe(false);

    const recent = await gitSignals(dir, { maxCommits: 2 });
    expect(recent.commitsRead).toBe(2);
    expect(recent.files.get('src/a.ts')?.churn).toBe(1);
    expect(recent.files.has('src/b.ts')).toBe(false);
  });

  it('is empty, not an error, without commits', async () => {
    const dir = makeTempDir('sous-nocommit-');
    dirs.push(dir);
    git(dir, ['init', '-q', '-b', 'main']);
    fs.writeFileSync(path.join(dir, 'a.ts'), 'x');
    const signals = await gitSignals(dir);
    expect(signals).toEqual({ head: null, commitsRead: 0, files: new Map(), coChange: [] });
    await expect(gitSignals(makeTempPlain())).rejects.toMatchObject({ code: 'not_a_repository' });
  });
});

function makeTempPlain(): string {
  const dir = makeTempDir('sous-plain-');
  dirs.push(dir);
  return dir;
}

interface Snapshot {
  status: string;
  head: string;
  index: Buffer;
  indexMtimeMs: number;
  mtimes: Record<string, number>;
}

function snapshot(dir: string): Snapshot {
  const mtimes: Record<string, number> = {};
  const walk = (rel: string): void => {
    for (const entry of fs.readdirSync(path.join(dir, rel), { withFileTypes: true })) {
      const child = rel === '' ? entry.name : `${rel}/${entry.name}`;
      mtimes[child] = fs.lstatSync(path.join(dir, child)).mtimeMs;
      if (entry.isDirectory()) walk(child);
    }
  };
  walk('');
  const index = path.join(dir, '.git', 'index');
  return {
    status: git(dir, ['status', '--porcelain']),
    head: git(dir, ['rev-parse', 'HEAD']).trim(),
    index: fs.readFileSync(index),
    indexMtimeMs: fs.statSync(index).mtimeMs,
    mtimes,
  };
}

describe('read-only', () => {
  it('listing, reading every file and git signals leave the repository untouched', async () => {
    const dir = makeGitRepo();
    dirs.push(dir);
    commitAt(dir, '2024-01-01T00:00:00Z', { 'src/a.ts': 'export const a = 1;\n', 'docs/x.md': '# x\n' });
    fs.writeFileSync(path.join(dir, 'src', 'untracked.ts'), 'export {};\n');
    fs.writeFileSync(path.join(dir, 'src', 'a.ts'), 'export const a = 2;\n'); // a modified tracked file
    // Stat-dirty index (mtime moved, content same): a plain `git status` would rewrite .git/index here.
    const readme = path.join(dir, 'README.md');
    fs.utimesSync(readme, new Date(), new Date(Date.now() + 5000));

    const before = snapshot(dir);
    const policy = scopePolicyFromConfig(defaultConfig());
    const files = await listCandidateFiles(dir);
    expect(files).toEqual(['README.md', 'docs/x.md', 'src/a.ts', 'src/index.ts', 'src/untracked.ts']);
    const read = await Promise.all(files.map((f) => readScopedFile(dir, f, policy)));
    expect(read.filter((r) => r.ok)).toHaveLength(4);
    await gitSignals(dir);
    await headCommit(dir);
    const after = snapshot(dir);

    expect(after.status).toBe(before.status);
    expect(after.head).toBe(before.head);
    expect(after.index.equals(before.index)).toBe(true);
    expect(after.indexMtimeMs).toBe(before.indexMtimeMs);
    expect(after.mtimes).toEqual(before.mtimes);
  });
});
