/**
 * File names holding a newline (legal in git) are read whole from git's output: the files of recent
 * commits and the name a file had before a rename. Real repositories, real git.
 */
import { defaultConfig } from '@sous/config';
import { scopePolicyFromConfig } from '@sous/retrieval';
import { gitHistory } from '../src/view/git-history';
import { git, makeEmptyGitRepo, rmTempDir, writeFile } from '../../../test/support/tmp';

const policy = scopePolicyFromConfig(defaultConfig());
const repos: string[] = [];
afterEach(() => {
  for (const r of repos.splice(0)) rmTempDir(r);
});

function repo(): string {
  const dir = makeEmptyGitRepo('sous-git-names-');
  repos.push(dir);
  writeFile(dir, 'src/base.py', 'x = 1\n');
  git(dir, ['add', '-A']);
  git(dir, ['commit', '-q', '-m', 'base']);
  return dir;
}

test("a recent commit's file keeps its whole name when it holds a newline", async () => {
  const dir = repo();
  writeFile(dir, 'src/a\nb.py', 'def odd_name():\n    return 1\n');
  git(dir, ['add', '-A']);
  git(dir, ['commit', '-q', '-m', 'odd name']);
  const [newest] = await gitHistory(dir, policy).recentCommits(1);
  expect(newest?.subject).toBe('odd name');
  expect(newest?.files.map((f) => [f.path, f.status])).toEqual([['src/a\nb.py', 'added']]);
});

test('the name before a rename is found when it holds a newline', async () => {
  const dir = repo();
  writeFile(dir, 'docs/old\nname.md', '# A guide\n\nRun the tool with care and read every line.\n');
  git(dir, ['add', '-A']);
  git(dir, ['commit', '-q', '-m', 'guide']);
  const before = git(dir, ['rev-parse', 'HEAD']).trim();
  git(dir, ['mv', 'docs/old\nname.md', 'docs/guide.md']);
  git(dir, ['commit', '-q', '-m', 'rename']);
  const history = gitHistory(dir, policy);
  expect(await history.nameAt(before, 'docs/guide.md')).toBe('docs/old\nname.md');
  expect(await history.showAt(before, await history.nameAt(before, 'docs/guide.md'))).toContain('# A guide');
});
