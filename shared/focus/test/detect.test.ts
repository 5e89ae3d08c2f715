import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import * as fs from 'node:fs';
import * as fsp from 'node:fs/promises';
import * as path from 'node:path';
import { clientForProcess, SUPPORTED_CLIENTS } from '../src/clients';
import { detectClients, type ClientDetection } from '../src/detect';
import { linuxProcesses, parsePsOutput, parseTasklistCsv, type ProcFs, type ProcessSource } from '../src/processes';
import { makeTempDir, rmTempDir } from '../../../test/support/tmp';

// The real-process tests read this host's /proc (Sous's test runs are on Linux). They assert on the
// pids they started, so a real Cursor or VS Code running on the developer's machine does not matter.

const started: ChildProcess[] = [];
let dir: string;

/** Starts `file` (a copy or symlink of sleep, or node) and remembers it for cleanup. */
function start(file: string, args: string[]): ChildProcess {
  const child = spawn(file, args, { stdio: 'ignore' });
  started.push(child);
  if (child.pid === undefined) throw new Error(`could not start ${file}`);
  return child;
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  child.kill('SIGKILL');
  await exited;
}

function pidsOf(detection: ClientDetection, id: string): number[] {
  return detection.clients.find((client) => client.id === id)?.pids ?? [];
}

/** Detects until `ok` holds or the deadline passes; returns the last detection either way. */
async function detectUntil(ok: (d: ClientDetection) => boolean, source?: ProcessSource, deadlineMs = 10_000): Promise<ClientDetection> {
  const deadline = Date.now() + deadlineMs;
  for (;;) {
    const detection = await detectClients(source);
    if (ok(detection) || Date.now() > deadline) return detection;
    await new Promise((resolve) => setImmediate(resolve));
  }
}

beforeAll(() => {
  dir = makeTempDir('sous-focus-');
  fs.copyFileSync('/bin/sleep', path.join(dir, 'cursor'));
  fs.chmodSync(path.join(dir, 'cursor'), 0o755);
  fs.symlinkSync(fs.realpathSync('/bin/sleep'), path.join(dir, 'windsurf'));
});

afterAll(async () => {
  await Promise.all(started.map(stop));
  rmTempDir(dir);
});

describe('the supported client list', () => {
  it('holds the ten clients of the issue, each with a unique id and a process name', () => {
    const ids = SUPPORTED_CLIENTS.map((client) => client.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect([...ids].sort()).toEqual(
      ['claude-code', 'cline', 'codex-cli', 'continue', 'cursor', 'gemini-cli', 'goose', 'vscode-copilot', 'windsurf', 'zed'],
    );
    for (const client of SUPPORTED_CLIENTS) {
      expect(client.processNames.length).toBeGreaterThan(0);
      expect(client.note.length).toBeGreaterThan(0);
      for (const name of client.processNames) {
        // Linux cuts comm to 15 characters; matching is on lower case.
        expect(name.length).toBeLessThanOrEqual(15);
        expect(name).toBe(name.toLowerCase());
      }
      for (const pattern of client.executablePatterns) expect(pattern).toBe(pattern.toLowerCase());
    }
  });

  it('matches by exact name or executable path, ignoring case and .exe, and nothing else', () => {
    expect(clientForProcess({ name: 'Cursor.exe' })?.id).toBe('cursor');
    expect(clientForProcess({ name: 'Electron', exe: '/Applications/Visual Studio Code.app/Contents/MacOS/Electron' })?.id).toBe('vscode-copilot');
    expect(clientForProcess({ name: '2.0.64', exe: '/home/u/.local/share/claude/versions/2.0.64' })?.id).toBe('claude-code');
    expect(clientForProcess({ name: 'codex-x86_64-un', exe: '/usr/lib/node_modules/@openai/codex/bin/codex-x86_64-unknown-linux-musl' })?.id).toBe('codex-cli');
    expect(clientForProcess({ name: 'node', exe: '/usr/bin/node' })).toBeUndefined();
    expect(clientForProcess({ name: 'cursorx' })).toBeUndefined();
    expect(clientForProcess({ name: 'vscode' })).toBeUndefined();
  });
});

describe('detectClients on real processes', () => {
  it('sees a process named like a supported client, by copy or symlink, and forgets it when it exits', async () => {
    const cursor = start(path.join(dir, 'cursor'), ['30']);
    const windsurf = start(path.join(dir, 'windsurf'), ['30']);

    const seen = await detectUntil((d) => pidsOf(d, 'cursor').includes(cursor.pid!) && pidsOf(d, 'windsurf').includes(windsurf.pid!));
    expect(pidsOf(seen, 'cursor')).toContain(cursor.pid);
    expect(pidsOf(seen, 'windsurf')).toContain(windsurf.pid);
    expect(seen.clients.find((c) => c.id === 'cursor')?.name).toBe('Cursor');
    expect(seen.error).toBeUndefined();
    expect(seen.method).toContain('/comm');
    expect(Number.isNaN(Date.parse(seen.checked_at))).toBe(false);

    await stop(cursor);
    const after = await detectClients();
    expect(pidsOf(after, 'cursor')).not.toContain(cursor.pid);
    expect(pidsOf(after, 'windsurf')).toContain(windsurf.pid);
    await stop(windsurf);
  });

  it('ignores a process that is not a supported client', async () => {
    const sleep = start(fs.realpathSync('/bin/sleep'), ['30']);
    const detection = await detectClients();
    for (const client of detection.clients) expect(client.pids).not.toContain(sleep.pid);
    await stop(sleep);
  });

  it('sees a node CLI by the process title it sets (as Claude Code does), not by its script', async () => {
    const node = start(process.execPath, ['-e', "process.title = 'claude'; setInterval(() => {}, 1000)"]);
    const detection = await detectUntil((d) => pidsOf(d, 'claude-code').includes(node.pid!));
    expect(pidsOf(detection, 'claude-code')).toContain(node.pid);
    await stop(node);
  });

  it('reads only /proc, /proc/<pid>/comm and the /proc/<pid>/exe link', async () => {
    const cursor = start(path.join(dir, 'cursor'), ['30']);
    const touched: Array<{ op: string; path: string }> = [];
    const recorder: ProcFs = {
      readdir: (p) => (touched.push({ op: 'readdir', path: p }), fsp.readdir(p)),
      readFile: (p, encoding) => (touched.push({ op: 'readFile', path: p }), fsp.readFile(p, encoding)),
      readlink: (p) => (touched.push({ op: 'readlink', path: p }), fsp.readlink(p)),
    };

    const detection = await detectClients(linuxProcesses('/proc', recorder));
    expect(pidsOf(detection, 'cursor')).toContain(cursor.pid);

    expect(touched.filter((t) => t.op === 'readdir').map((t) => t.path)).toEqual(['/proc']);
    for (const t of touched.filter((t) => t.op !== 'readdir')) {
      expect(t.path).toMatch(t.op === 'readFile' ? /^\/proc\/\d+\/comm$/ : /^\/proc\/\d+\/exe$/);
    }
    expect(touched).toContainEqual({ op: 'readFile', path: `/proc/${cursor.pid}/comm` });
    expect(touched).toContainEqual({ op: 'readlink', path: `/proc/${cursor.pid}/exe` });
    expect(touched.some((t) => /cmdline|environ|\/fd|status|cwd|stat/.test(t.path))).toBe(false);
    await stop(cursor);
  });

  it('never throws: a failing process source gives no clients and an error line', async () => {
    const failing: ProcessSource = { method: 'test: always fails', list: () => Promise.reject(new Error('EPERM')) };
    const detection = await detectClients(failing);
    expect(detection.clients).toEqual([]);
    expect(detection.method).toBe('test: always fails');
    expect(detection.error).toMatch(/^process_list_failed: EPERM/);
  });

  it('skips a /proc entry that vanishes and keeps one whose exe link cannot be read', async () => {
    const root = makeTempDir('sous-proc-');
    try {
      fs.mkdirSync(path.join(root, '10'));
      fs.writeFileSync(path.join(root, '10', 'comm'), 'Cursor\n');
      fs.mkdirSync(path.join(root, '11')); // no comm: exited between readdir and read
      fs.mkdirSync(path.join(root, 'self'));
      const detection = await detectClients(linuxProcesses(root));
      expect(detection.clients).toEqual([{ id: 'cursor', name: 'Cursor', pids: [10] }]);
    } finally {
      rmTempDir(root);
    }
  });
});

describe('ps and tasklist output (macOS, BSD, Windows)', () => {
  it('reads the pid and the executable path, which may contain spaces', () => {
    const out = '  101 /Applications/Visual Studio Code.app/Contents/MacOS/Electron\n  202 /usr/libexec/logd\n 303 zed\n';
    expect(parsePsOutput(out)).toEqual([
      { pid: 101, name: 'Electron', exe: '/Applications/Visual Studio Code.app/Contents/MacOS/Electron' },
      { pid: 202, name: 'logd', exe: '/usr/libexec/logd' },
      { pid: 303, name: 'zed' },
    ]);
  });

  it('reads the image name and pid columns of tasklist', () => {
    const out = '"System Idle Process","0","Services","0","8 K"\r\n"Cursor.exe","4242","Console","1","120,000 K"\r\n';
    const entries = parseTasklistCsv(out);
    expect(entries).toEqual([{ pid: 0, name: 'System Idle Process' }, { pid: 4242, name: 'Cursor.exe' }]);
    expect(clientForProcess(entries[1]!)?.id).toBe('cursor');
  });
});
