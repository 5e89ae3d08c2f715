/**
 * Proof by syscalls: run `sous` under `strace -f` (every process it starts: the daemon, git, PGlite's
 * initdb child) and list what each process did to files under a directory: opened for writing,
 * created, renamed, removed, linked, truncated, or changed mode, owner or times. Reads are not writes.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { CLI } from './cli';

/** Syscalls that change a file or a directory entry (plus execve, to name processes, and chdir). */
const TRACED = [
  'execve', 'chdir', 'open', 'openat', 'openat2', 'creat', 'rename', 'renameat', 'renameat2', 'unlink', 'unlinkat', 'rmdir', 'mkdir',
  'mkdirat', 'link', 'linkat', 'symlink', 'symlinkat', 'truncate', 'chmod', 'fchmodat', 'chown', 'lchown', 'fchownat', 'utimensat',
  'utimes', 'utime', 'futimesat', 'mknod', 'mknodat',
];

/** Open flags that let a process change a file. */
const WRITE_FLAGS = /O_WRONLY|O_RDWR|O_CREAT|O_TRUNC|O_APPEND/;

/**
 * Fails with what to do when strace cannot run here (missing, or ptrace refused by the sandbox):
 * the proof must not turn into a silent pass.
 */
export function requireStrace(): void {
  const probe = spawnSync('strace', ['-f', '-qq', '-o', '/dev/null', 'true'], { encoding: 'utf8' });
  if (probe.error || probe.status !== 0) {
    throw new Error(`strace cannot trace here (${probe.error?.message ?? probe.stderr.trim()}): install strace (apt-get install -y strace) and allow ptrace (CAP_SYS_PTRACE, kernel.yama.ptrace_scope <= 1)`);
  }
}

/** Starts `sous <args>` under strace writing to `traceFile`; resolves when strace ends (every traced process has exited). */
export function tracedSous(args: string[], traceFile: string, env: NodeJS.ProcessEnv): { child: ChildProcess; done: Promise<{ code: number; stdout: string; stderr: string }> } {
  const child = spawn('strace', ['-f', '-y', '-qq', '--seccomp-bpf', '-s', '4096', '-e', `trace=${TRACED.join(',')}`, '-o', traceFile, process.execPath, CLI, ...args], {
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout?.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  child.stderr?.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const done = new Promise<{ code: number; stdout: string; stderr: string }>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code) => resolve({ code: code ?? -1, stdout, stderr }));
  });
  return { child, done };
}

/** One change a traced process made (or tried to make) to a path. */
export interface FileWrite {
  pid: number;
  /** argv of the program the process was running (its last successful execve), or [] when unknown. */
  program: string[];
  syscall: string;
  path: string;
}

export interface Trace {
  /** argv of every program started, in order. */
  programs: string[][];
  writes: FileWrite[];
}

/** Reads a trace file strace wrote with `-f -y` (see tracedSous). */
export function parseTrace(text: string): Trace {
  const program = new Map<number, string[]>();
  const cwd = new Map<number, string>();
  const pendingExec = new Map<number, string[]>();
  const programs: string[][] = [];
  const writes: FileWrite[] = [];
  for (const line of text.split('\n')) {
    // strace pads the pid to five columns: `123  openat(` has two spaces, `12345 openat(` one.
    const m = /^(\d+) +(?:<\.\.\. (\w+) resumed>(.*)|(\w+)\((.*))$/.exec(line);
    if (!m) continue;
    const pid = Number(m[1]);
    if (m[2] !== undefined) {
      // The second half of a call another process interrupted: only an execve's result matters.
      const argv = pendingExec.get(pid);
      if (m[2] === 'execve' && argv !== undefined && /= 0$/.test(m[3] ?? '')) {
        program.set(pid, argv);
        programs.push(argv);
      }
      pendingExec.delete(pid);
      continue;
    }
    const syscall = m[4] as string;
    const rest = m[5] as string;
    const args = splitArgs(rest.replace(/\) += .*$|<unfinished \.\.\.>$/, ''));
    for (const a of args) {
      const at = /^AT_FDCWD<(.*)>$/.exec(a);
      if (at) cwd.set(pid, at[1] as string);
    }
    if (syscall === 'execve') {
      const argv = [...(args[1] ?? '').matchAll(/"((?:[^"\\]|\\.)*)"/g)].map((x) => unescape(x[1] as string));
      if (/<unfinished \.\.\.>$/.test(rest)) pendingExec.set(pid, argv);
      else if (/\) += 0$/.test(rest)) {
        program.set(pid, argv);
        programs.push(argv);
      }
      continue;
    }
    if (syscall === 'chdir') {
      const dir = str(args[0]);
      if (dir !== undefined && /\) += 0$/.test(rest)) cwd.set(pid, path.resolve(cwd.get(pid) ?? '/', dir));
      continue;
    }
    const base = cwd.get(pid) ?? '/';
    for (const target of targets(syscall, args, base)) writes.push({ pid, program: program.get(pid) ?? [], syscall, path: target });
  }
  return { programs, writes };
}

/** The paths a call changes (none for an open without write flags). */
function targets(syscall: string, args: string[], cwd: string): string[] {
  const plain = (i: number): string[] => {
    const p = str(args[i]);
    return p === undefined ? [] : [path.resolve(cwd, p)];
  };
  const at = (dirIndex: number, pathIndex: number): string[] => {
    const dir = fdPath(args[dirIndex]) ?? cwd;
    const p = str(args[pathIndex]);
    if (p === undefined) return args[pathIndex] === 'NULL' ? [dir] : [];
    return [path.resolve(dir, p)];
  };
  switch (syscall) {
    case 'open':
      return WRITE_FLAGS.test(args[1] ?? '') ? plain(0) : [];
    case 'openat':
    case 'openat2':
      return WRITE_FLAGS.test(args[2] ?? '') ? at(0, 1) : [];
    case 'creat': case 'unlink': case 'rmdir': case 'mkdir': case 'truncate': case 'chmod': case 'chown': case 'lchown': case 'utimes': case 'utime': case 'mknod':
      return plain(0);
    case 'rename':
      return [...plain(0), ...plain(1)];
    case 'renameat':
    case 'renameat2':
      return [...at(0, 1), ...at(2, 3)];
    case 'link': case 'symlink':
      return plain(1);
    case 'linkat':
      return at(2, 3);
    case 'symlinkat':
      return at(1, 2);
    case 'unlinkat': case 'mkdirat': case 'fchmodat': case 'fchownat': case 'utimensat': case 'futimesat': case 'mknodat':
      return at(0, 1);
    default:
      return [];
  }
}

/** Writes to `dir` or anything under it, except under `allowed` (absolute paths). */
export function writesUnder(trace: Trace, dir: string, allowed: readonly string[] = []): FileWrite[] {
  const inside = (p: string, d: string) => p === d || p.startsWith(`${d}/`);
  return trace.writes.filter((w) => inside(w.path, dir) && !allowed.some((a) => inside(w.path, a)));
}

/** Whether a process was running git. */
export function isGit(argv: readonly string[]): boolean {
  return argv.length > 0 && path.basename(argv[0] as string) === 'git';
}

/** Reads and parses every trace file in `files`. */
export function readTraces(files: readonly string[]): Trace {
  const all: Trace = { programs: [], writes: [] };
  for (const file of files) {
    const t = parseTrace(fs.readFileSync(file, 'utf8'));
    all.programs.push(...t.programs);
    all.writes.push(...t.writes);
  }
  return all;
}

/** Splits strace's argument list at top-level commas (not inside quotes, brackets or braces). */
function splitArgs(text: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let quoted = false;
  let current = '';
  for (let i = 0; i < text.length; i++) {
    const c = text[i] as string;
    if (quoted) {
      current += c;
      if (c === '\\') current += text[++i] ?? '';
      else if (c === '"') quoted = false;
      continue;
    }
    if (c === '"') quoted = true;
    else if (c === '[' || c === '{' || c === '(') depth++;
    else if (c === ']' || c === '}' || c === ')') depth--;
    if (c === ',' && depth === 0) {
      out.push(current.trim());
      current = '';
      continue;
    }
    current += c;
  }
  if (current.trim() !== '') out.push(current.trim());
  return out;
}

/** The text of a quoted strace string argument (`"a\"b"`, possibly decorated `"x"</path>`), or undefined. */
function str(arg: string | undefined): string | undefined {
  const m = /^"((?:[^"\\]|\\.)*)"/.exec(arg ?? '');
  return m ? unescape(m[1] as string) : undefined;
}

/** The path strace's `-y` printed for a descriptor argument (`AT_FDCWD</x>`, `5</x/y>`). */
function fdPath(arg: string | undefined): string | undefined {
  return /^(?:AT_FDCWD|\d+)<(.*)>$/.exec(arg ?? '')?.[1];
}

function unescape(s: string): string {
  return s.replace(/\\(x[0-9a-fA-F]{2}|[0-7]{1,3}|.)/g, (_, e: string) => {
    if (e.startsWith('x')) return String.fromCharCode(parseInt(e.slice(1), 16));
    if (/^[0-7]+$/.test(e)) return String.fromCharCode(parseInt(e, 8));
    return ({ n: '\n', t: '\t', r: '\r', v: '\v', f: '\f' } as Record<string, string>)[e] ?? e;
  });
}
