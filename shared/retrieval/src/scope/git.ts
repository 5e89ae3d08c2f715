import { execFile, spawn } from 'node:child_process';
import * as readline from 'node:readline';
import * as fs from 'node:fs';
import { ScopeError } from './errors';

/*
 * Read-only git access. Every call runs a read command with GIT_OPTIONAL_LOCKS=0 (git then skips the
 * opportunistic index refresh that would take `index.lock` and rewrite `.git/index`), no prompts and
 * the C locale (so failures can be recognised by their text).
 */

/** Output of one git command may be large (a long `git log`); past this the call fails instead of truncating. */
const GIT_MAX_OUTPUT_BYTES = 512 * 1024 * 1024;

/** The environment every git call runs with: inherited, plus the read-only and non-interactive switches. */
export function readOnlyGitEnv(base: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  return { ...base, GIT_OPTIONAL_LOCKS: '0', GIT_TERMINAL_PROMPT: '0', LC_ALL: 'C', LANG: 'C' };
}

interface GitFailure {
  code: number | string | null;
  stderr: string;
}

/** Runs `git <args>` in `root` and resolves with stdout, or rejects with a `ScopeError` naming the cause. */
export async function runGit(root: string, args: readonly string[]): Promise<string> {
  await assertRootExists(root);
  return new Promise((resolve, reject) => {
    execFile(
      'git',
      ['--no-optional-locks', '-c', 'core.fsmonitor=false', ...args],
      { cwd: root, env: readOnlyGitEnv(), maxBuffer: GIT_MAX_OUTPUT_BYTES, encoding: 'utf8', windowsHide: true },
      (error, stdout, stderr) => {
        if (!error) return resolve(stdout);
        const failure: GitFailure = { code: (error as NodeJS.ErrnoException).code ?? null, stderr: String(stderr) };
        reject(gitError(root, args, failure));
      },
    );
  });
}

/** Whether `git <args>` succeeds in `root`; its output when it does, `null` when git exits non-zero. */
export async function tryGit(root: string, args: readonly string[]): Promise<string | null> {
  try {
    return await runGit(root, args);
  } catch (err) {
    if (err instanceof ScopeError && err.code === 'git_failed') return null;
    throw err;
  }
}

/**
 * Runs `git <args>` in `root` and hands each line of its output to `onLine` as it arrives, so a long
 * `git log -p` is read in one pass without holding it whole. Resolves true when git exits 0, false
 * when it exits non-zero (the lines already handed over stay with the caller); rejects like `runGit`
 * when git is missing or the root is not a repository.
 */
export async function streamGitLines(root: string, args: readonly string[], onLine: (line: string) => void): Promise<boolean> {
  await assertRootExists(root);
  return new Promise((resolve, reject) => {
    const child = spawn('git', ['--no-optional-locks', '-c', 'core.fsmonitor=false', ...args], { cwd: root, env: readOnlyGitEnv(), windowsHide: true, stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (chunk: string) => {
      if (stderr.length < 64 * 1024) stderr += chunk;
    });
    const lines = readline.createInterface({ input: child.stdout, crlfDelay: Infinity });
    lines.on('line', onLine);
    let failed: Error | undefined;
    child.on('error', (error: NodeJS.ErrnoException) => {
      failed = gitError(root, args, { code: error.code ?? null, stderr });
    });
    // 'close' comes after stdout has ended, so every line has been handed over by then.
    child.on('close', (code) => {
      if (failed !== undefined) return reject(failed);
      if (code === 0) return resolve(true);
      const error = gitError(root, args, { code, stderr });
      if (error.code === 'git_failed') resolve(false);
      else reject(error);
    });
  });
}

async function assertRootExists(root: string): Promise<void> {
  let stat: fs.Stats;
  try {
    stat = await fs.promises.stat(root);
  } catch {
    throw new ScopeError('root_not_found', `repository root ${root} does not exist; pass the path of a git repository`, root);
  }
  if (!stat.isDirectory()) {
    throw new ScopeError('root_not_found', `repository root ${root} is not a directory; pass the path of a git repository`, root);
  }
}

function gitError(root: string, args: readonly string[], failure: GitFailure): ScopeError {
  if (failure.code === 'ENOENT') {
    return new ScopeError('git_unavailable', 'git is not installed or not on PATH; install git to let Sous read the repository', root);
  }
  if (/not a git repository/i.test(failure.stderr)) {
    return new ScopeError('not_a_repository', `${root} is not a git repository; run \`git init\` there or pass the repository's path`, root);
  }
  if (/dubious ownership/i.test(failure.stderr)) {
    return new ScopeError(
      'not_a_repository',
      `git refuses to read ${root} (owned by another user); add it with \`git config --global --add safe.directory ${root}\``,
      root,
    );
  }
  const firstLine = failure.stderr.split('\n').find((l) => l.trim() !== '')?.trim() ?? `exit code ${String(failure.code)}`;
  return new ScopeError('git_failed', `git ${args[0] ?? ''} failed in ${root}: ${firstLine}`, root);
}
