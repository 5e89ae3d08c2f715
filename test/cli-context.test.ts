/**
 * `sous context`: the one-shot ranking command for scripts and evaluation, on a real repository,
 * without a daemon: it indexes into the workspace's store on first use and reuses it after.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { firstRunNotice, gitSnapshot, sous } from './support/cli';
import { makeEmptyGitRepo, makeGitRepo, makeTempDir, rmTempDir, writeFile } from './support/tmp';

describe('sous context', () => {
  let repo: string;
  let before: { porcelain: string; head: string };

  beforeAll(() => {
    repo = makeGitRepo();
    fs.writeFileSync(path.join(repo, 'src', 'user.ts'), 'export function getUserName(id: string): string {\n  return lookup(id).name;\n}\n');
    fs.writeFileSync(path.join(repo, 'src', 'report.ts'), "import { getUserName } from './user';\nexport const line = (id: string) => `user ${getUserName(id)}`;\n");
    fs.writeFileSync(path.join(repo, 'src', 'config.ts'), "export const token = 'sk-abcdefghijklmnopqrstuvwxyz0123';\n");
    fs.writeFileSync(path.join(repo, '.env'), 'OPENAI_KEY=sk-zyxwvutsrqponmlkjihgfedcba9876\n');
    before = gitSnapshot(repo);
  });
  afterAll(() => rmTempDir(repo));

  test('ranks the file defining the identifier first, with a rationale, as JSON in rank order', async () => {
    const res = await sous(['context', '--path', repo, '--prompt', 'getUserName returns undefined for new users', '--json']);
    expect(res.stderr).toBe(firstRunNotice(repo)); // stdout stays pure JSON
    expect(res.code).toBe(0);
    expect(res.json.items[0].path).toBe('src/user.ts');
    expect(res.json.items[0].rationale.map((r: { signal: string }) => r.signal)).toContain('symbol_defined');
    const scores = res.json.items.map((i: { score: number }) => i.score);
    expect([...scores].sort((a, b) => b - a)).toEqual(scores);
    expect(gitSnapshot(repo)).toEqual(before);
  });

  test('never answers with excluded files, and redacts key-like strings in snippets', async () => {
    const res = await sous(['context', '--path', repo, '--prompt', 'where is the sk- token in .env and src/config.ts', '--json']);
    const paths = res.json.items.map((i: { path: string }) => i.path);
    expect(paths).not.toContain('.env');
    expect(res.stdout).not.toContain('sk-abcdefghijklmnopqrstuvwxyz0123');
    expect(res.stdout).not.toContain('sk-zyxwvutsrqponmlkjihgfedcba9876');
    const config = res.json.items.find((i: { path: string }) => i.path === 'src/config.ts');
    expect(config.snippet.text).toContain('[redacted]');
  });

  test('bad input gets one line and exit code 2; a non-repository is refused', async () => {
    const cases: Array<[string[], RegExp]> = [
      [['context', '--path', repo], /a prompt is required/],
      [['context', '--path', repo, '--prompt', '   '], /the prompt is empty/],
      [['context', '--path', repo, '--prompt', 'x', '--top-n', '0'], /--top-n must be an integer between 1 and 50 \(found 0\)/],
      [['context', '--path', repo, '--prompt', 'x'.repeat(40_000)], /the limit is 32000/],
    ];
    for (const [args, message] of cases) {
      const res = await sous(args);
      expect(res.code).toBe(2);
      expect(res.stderr.trim().split('\n')).toHaveLength(1);
      expect(res.stderr).toMatch(message);
    }
    const dir = makeTempDir();
    try {
      const res = await sous(['context', '--path', dir, '--prompt', 'x']);
      expect(res.code).toBe(1);
      expect(res.stderr).toMatch(/not a git repository/);
    } finally {
      rmTempDir(dir);
    }
  });

  test('indexes on first use and reuses .sous/ after: a second run reads only what changed', async () => {
    const first = await sous(['context', '--path', repo, '--prompt', 'getUserName', '--json']);
    expect(first.code).toBe(0);
    const again = await sous(['context', '--path', repo, '--prompt', 'getUserName', '--json']);
    expect(again.json.stats).toMatchObject({ answered_by: 'cli', reads: 0 });
    fs.writeFileSync(path.join(repo, 'src', 'audit.ts'), 'export function auditTrail() {}\n');
    const changed = await sous(['context', '--path', repo, '--prompt', 'auditTrail', '--json']);
    expect(changed.json.stats.reads).toBe(1);
    expect(changed.json.items[0].path).toBe('src/audit.ts');
    fs.rmSync(path.join(repo, 'src', 'audit.ts'));
    // The state folder is Sous's own and ignored by git: the repository looks untouched.
    expect(gitSnapshot(repo)).toEqual(before);
  });

  test('works on a repository with no commits and answers an empty list when nothing matches', async () => {
    const empty = makeEmptyGitRepo();
    try {
      const none = await sous(['context', '--path', empty, '--prompt', 'anything at all', '--json']);
      expect(none.code).toBe(0);
      expect(none.json.items).toEqual([]);
      // An empty answer says why: here the scope holds no file at all.
      expect(none.json.empty_reason).toMatch(/^no file is in scope: privacy\.allowed_paths \(src\/\*\*, docs\/\*\*\) matches no file/);
      writeFile(empty, 'src/a.ts', 'export function onlyUntracked() {}\n');
      const found = await sous(['context', '--path', empty, '--prompt', 'onlyUntracked', '--json']);
      expect(found.json.items.map((i: { path: string }) => i.path)).toEqual(['src/a.ts']);
      const text = await sous(['context', '--path', empty, '--prompt', 'zzz nothing here']);
      expect(text.stdout).toMatch(/Empty answer: none of the 1 files in scope \(src\/\*\*, docs\/\*\*\) matches this prompt/);
    } finally {
      rmTempDir(empty);
    }
  });
});
