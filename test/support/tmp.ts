import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { execFileSync } from 'node:child_process';

/** A fresh temporary directory; remove it with `rmTempDir`. */
export function makeTempDir(prefix = 'sous-test-'): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

export function rmTempDir(dir: string): void {
  fs.rmSync(dir, { recursive: true, force: true });
}

/**
 * Runs git in `dir` for a test's arrangement. Optional locks stay off, so the test's own `git
 * status` never refreshes `.git/index` (read-only checks compare its bytes and mtime).
 */
export function git(dir: string, args: string[], env: NodeJS.ProcessEnv = {}): string {
  return execFileSync('git', args, { cwd: dir, stdio: 'pipe', encoding: 'utf8', env: { ...process.env, GIT_OPTIONAL_LOCKS: '0', ...env } });
}

/** Writes `content` at `rel` under `dir`, creating folders. */
export function writeFile(dir: string, rel: string, content: string | Buffer): void {
  fs.mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
  fs.writeFileSync(path.join(dir, rel), content);
}

/** A real git repository with no commits (branch main, a test identity). */
export function makeEmptyGitRepo(prefix = 'sous-repo-'): string {
  const dir = makeTempDir(prefix);
  git(dir, ['init', '-q', '-b', 'main']);
  git(dir, ['config', 'user.email', 'test@example.com']);
  git(dir, ['config', 'user.name', 'Sous Test']);
  return dir;
}

/** A real git repository with one commit (README.md and src/index.ts). */
export function makeGitRepo(prefix = 'sous-repo-'): string {
  const dir = makeEmptyGitRepo(prefix);
  writeFile(dir, 'README.md', '# demo\n');
  writeFile(dir, 'src/index.ts', 'export const answer = 42;\n');
  git(dir, ['add', '-A']);
  git(dir, ['commit', '-q', '-m', 'initial']);
  return dir;
}
