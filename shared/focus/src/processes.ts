/**
 * The process-listing seam of client detection. A `ProcessSource` yields, for every running process,
 * its pid, its name and (where the platform gives it cheaply) its executable path: exactly the two
 * facts spec invariant 9 allows detection to use. No implementation reads argv, environment, working
 * directory, open files, window titles or anything else about a process.
 */
import { execFile } from 'node:child_process';
import * as fsp from 'node:fs/promises';
import * as path from 'node:path';

export interface ProcessEntry {
  pid: number;
  /** Executable base name (Linux comm, possibly a self-set title cut to 15 characters). */
  name: string;
  /** Executable path, when the platform tells it without reading anything else. */
  exe?: string;
}

export interface ProcessSource {
  /** One line saying exactly what is read, shown in focus status. */
  readonly method: string;
  list(): Promise<ProcessEntry[]>;
}

/** The part of `node:fs/promises` the /proc source uses; injected so a test can record every path. */
export interface ProcFs {
  readdir(path: string): Promise<string[]>;
  readFile(path: string, encoding: 'utf8'): Promise<string>;
  readlink(path: string): Promise<string>;
}

/** How many /proc entries are read at once (keeps file descriptors bounded on busy hosts). */
const PROC_BATCH = 64;

/**
 * Linux: lists the numeric entries of `procRoot` and reads, for each, only `<pid>/comm` and the
 * `<pid>/exe` link. The link of another user's process is not readable without privileges: such a
 * process is listed by name only. A process that exits mid-listing is left out.
 */
export function linuxProcesses(procRoot = '/proc', fs: ProcFs = fsp): ProcessSource {
  return {
    method: `linux: ${procRoot}/<pid>/comm and the ${procRoot}/<pid>/exe link`,
    async list() {
      const pids = (await fs.readdir(procRoot)).filter((name) => /^\d+$/.test(name)).map(Number);
      const entries: ProcessEntry[] = [];
      for (let i = 0; i < pids.length; i += PROC_BATCH) {
        const batch = await Promise.all(pids.slice(i, i + PROC_BATCH).map((pid) => readProcEntry(fs, procRoot, pid)));
        for (const entry of batch) if (entry) entries.push(entry);
      }
      return entries;
    },
  };
}

async function readProcEntry(fs: ProcFs, procRoot: string, pid: number): Promise<ProcessEntry | undefined> {
  const dir = `${procRoot}/${pid}`;
  let name: string;
  try {
    name = (await fs.readFile(`${dir}/comm`, 'utf8')).replace(/\n$/, '');
  } catch {
    return undefined; // exited between readdir and read
  }
  const entry: ProcessEntry = { pid, name };
  try {
    entry.exe = await fs.readlink(`${dir}/exe`);
  } catch {
    // EACCES (another user's process) or ENOENT (kernel thread, exited): name only.
  }
  return entry;
}

/** Runs a command without a shell and returns its stdout. */
export type CommandRunner = (command: string, args: readonly string[]) => Promise<string>;

const runCommand: CommandRunner = (command, args) =>
  new Promise((resolve, reject) => {
    execFile(command, [...args], { encoding: 'utf8', maxBuffer: 16 * 1024 * 1024, windowsHide: true }, (error, stdout) =>
      error ? reject(error) : resolve(stdout),
    );
  });

/**
 * macOS and BSD: `ps -axo pid=,comm=`. On macOS `comm` is the executable's full path, on the BSDs
 * its short name; no argument or environment column is requested.
 */
export function psProcesses(run: CommandRunner = runCommand): ProcessSource {
  return {
    method: 'ps -axo pid=,comm= (pid and executable only)',
    async list() {
      return parsePsOutput(await run('ps', ['-axo', 'pid=,comm=']));
    },
  };
}

/** Parses `ps -axo pid=,comm=` lines; the path may contain spaces, so it is the rest of the line. */
export function parsePsOutput(stdout: string): ProcessEntry[] {
  const entries: ProcessEntry[] = [];
  for (const line of stdout.split('\n')) {
    const match = /^\s*(\d+)\s+(.+?)\s*$/.exec(line);
    if (!match) continue;
    const comm = match[2] as string;
    const entry: ProcessEntry = { pid: Number(match[1]), name: comm.includes('/') ? path.posix.basename(comm) : comm };
    if (comm.startsWith('/')) entry.exe = comm;
    entries.push(entry);
  }
  return entries;
}

/** Windows: `tasklist /fo csv /nh`, of which only the image name and pid columns are kept. */
export function tasklistProcesses(run: CommandRunner = runCommand): ProcessSource {
  return {
    method: 'tasklist /fo csv /nh (image name and pid only)',
    async list() {
      return parseTasklistCsv(await run('tasklist', ['/fo', 'csv', '/nh']));
    },
  };
}

/** Parses `tasklist /fo csv /nh` rows: `"Image Name","PID",…` (columns are positional in every locale). */
export function parseTasklistCsv(stdout: string): ProcessEntry[] {
  const entries: ProcessEntry[] = [];
  for (const line of stdout.split(/\r?\n/)) {
    const match = /^"([^"]*)","(\d+)"/.exec(line.trim());
    if (match) entries.push({ pid: Number(match[2]), name: match[1] as string });
  }
  return entries;
}

/** The source for this platform: /proc on Linux, tasklist on Windows, ps elsewhere. */
export function defaultProcessSource(platform: NodeJS.Platform = process.platform): ProcessSource {
  if (platform === 'linux') return linuxProcesses();
  if (platform === 'win32') return tasklistProcesses();
  return psProcesses();
}

/**
 * Only processes whose executable lives under `dir` (tests: each test's own fake clients, so a
 * developer's running editor or another test's fake client never changes the outcome).
 */
export function processesUnder(source: ProcessSource, dir: string): ProcessSource {
  const prefix = dir.endsWith('/') ? dir : `${dir}/`;
  return {
    method: `${source.method} (only executables under ${prefix})`,
    list: async () => (await source.list()).filter((p) => p.exe !== undefined && p.exe.startsWith(prefix)),
  };
}
