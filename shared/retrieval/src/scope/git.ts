import { execFile, spawn } from 'node:child_process';
import * as readline from 'node:readline';
import * as fs from 'node:fs';
import { ScopeError } from './errors';

/*
 * Read-only git access. Sous reads the user's repository with git and must never write a byte of it:
 * no `.git/index` refresh, no `index.lock`, no hook or filter that could write for it. Every call
 * runs with READ_ONLY_GIT_FLAGS and readOnlyGitEnv; commands that read the working tree (status,
 * diff against it) add `worktreeReadConfig`. test/git-read-only-strace.test.ts proves it syscall by
 * syscall for everything Sous runs.
 */

/** Output of one git command may be large (a long `git log`); past this the call fails instead of truncating. */
const GIT_MAX_OUTPUT_BYTES = 512 * 1024 * 1024;

/**
 * Flags before the subcommand of every git call, each closing one way a read could write:
 * `--no-optional-locks`: `git status` skips its opportunistic index refresh (index.lock, rewrite);
 * `core.fsmonitor=false`: no fsmonitor hook process and no token saved into the index;
 * `diff.autoRefreshIndex=false`: `git diff` against the working tree, which ignores optional locks
 * (git 2.39 and its newer sources alike), does not rewrite `.git/index` after meeting a file whose
 * mtime changed but whose content did not. `git diff --name-only` then lists such a file (use
 * `git status` for names); a patch shows nothing for it.
 */
export const READ_ONLY_GIT_FLAGS: readonly string[] = ['--no-optional-locks', '-c', 'core.fsmonitor=false', '-c', 'diff.autoRefreshIndex=false'];

/** Variables that would point git at another repository, index or object store than `root`'s own. */
const REPOSITORY_ENV = ['GIT_DIR', 'GIT_WORK_TREE', 'GIT_INDEX_FILE', 'GIT_COMMON_DIR', 'GIT_OBJECT_DIRECTORY', 'GIT_ALTERNATE_OBJECT_DIRECTORIES', 'GIT_NAMESPACE', 'GIT_PREFIX'];

/**
 * The environment every git call runs with: inherited (minus variables that redirect git, which a
 * parent such as a git hook may have set), plus no optional locks, no prompts and the C locale (so
 * failures can be recognised by their text).
 */
export function readOnlyGitEnv(base: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...base, GIT_OPTIONAL_LOCKS: '0', GIT_TERMINAL_PROMPT: '0', LC_ALL: 'C', LANG: 'C' };
  for (const name of REPOSITORY_ENV) delete env[name];
  return env;
}

/** Per-call additions to READ_ONLY_GIT_FLAGS. */
export interface GitCallOptions {
  /** `key=value` settings passed with `-c` (see worktreeReadConfig). */
  config?: readonly string[];
}

function gitArgs(args: readonly string[], options: GitCallOptions): string[] {
  return [...READ_ONLY_GIT_FLAGS, ...(options.config ?? []).flatMap((c) => ['-c', c]), ...args];
}

/**
 * Settings for a command that reads working-tree files (`git status`, `git diff HEAD`): every
 * filter driver the repository configures is switched off. A clean filter is the user's program and
 * may write (git-lfs stores each file it cleans under `.git/lfs/`); without it git compares the raw
 * bytes, so a filtered file whose mtime changed shows as modified (an LFS file as its pointer vs its
 * content) until the user's own git refreshes the index.
 */
export async function worktreeReadConfig(root: string): Promise<string[]> {
  const out = await tryGit(root, ['config', '-z', '--name-only', '--get-regexp', '^filter\\..+\\.(clean|smudge|process|required)$']);
  const drivers = new Set<string>();
  for (const key of (out ?? '').split('\0')) {
    const driver = /^filter\.(.+)\.[a-z]+$/i.exec(key)?.[1];
    if (driver !== undefined) drivers.add(driver);
  }
  return [...drivers].flatMap((d) => [`filter.${d}.clean=`, `filter.${d}.smudge=`, `filter.${d}.process=`, `filter.${d}.required=false`]);
}

interface GitFailure {
  code: number | string | null;
  stderr: string;
}

/** Runs `git <args>` in `root` and resolves with stdout, or rejects with a `ScopeError` naming the cause. */
export async function runGit(root: string, args: readonly string[], options: GitCallOptions = {}): Promise<string> {
  await assertRootExists(root);
  return new Promise((resolve, reject) => {
    execFile(
      'git',
      gitArgs(args, options),
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
export async function tryGit(root: string, args: readonly string[], options: GitCallOptions = {}): Promise<string | null> {
  try {
    return await runGit(root, args, options);
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
    const child = spawn('git', gitArgs(args, {}), { cwd: root, env: readOnlyGitEnv(), windowsHide: true, stdio: ['ignore', 'pipe', 'pipe'] });
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
