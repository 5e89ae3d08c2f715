import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import * as path from 'node:path';
import * as readline from 'node:readline';
import type { OpenStoreOptions } from '@sous/store';

const ROOT = path.join(__dirname, '..', '..', '..');
const FIXTURE = path.join(__dirname, 'fixtures', 'open-store.js');

/** One JSON line the fixture printed. */
export interface ChildEvent {
  pid: number;
  event: 'opened' | 'error' | 'closed';
  kind?: string;
  code?: string;
  message?: string;
}

/** A child process running fixtures/open-store.js. */
export interface StoreChild {
  process: ChildProcess;
  pid: number;
  /** Resolves with the first event of one of these kinds; rejects at the deadline or on exit. */
  next(kinds: ChildEvent['event'][], deadlineMs?: number): Promise<ChildEvent>;
  /** Resolves with the exit code. */
  exited: Promise<number | null>;
}

/** Builds dist/ of @sous/store (incremental; the fixture runs compiled code like production does). */
export function buildStore(): void {
  execFileSync(process.execPath, [path.join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-b', 'shared/store'], {
    cwd: ROOT,
    stdio: 'pipe',
  });
}

/** Starts a process that opens a store with `options` (and, with `hold`, keeps it open). */
export function spawnStore(options: OpenStoreOptions, hold = false): StoreChild {
  const child = spawn(process.execPath, [FIXTURE, JSON.stringify(options), ...(hold ? ['hold'] : [])], {
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const events: ChildEvent[] = [];
  const waiters = new Set<() => void>();
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  readline.createInterface({ input: child.stdout! }).on('line', (line) => {
    events.push(JSON.parse(line) as ChildEvent);
    for (const wake of waiters) wake();
  });
  const exited = new Promise<number | null>((resolve) =>
    child.once('exit', (code) => {
      for (const wake of waiters) wake();
      resolve(code);
    }),
  );
  return {
    process: child,
    pid: child.pid!,
    exited,
    next(kinds, deadlineMs = 60_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const found = events.find((e) => kinds.includes(e.event));
          if (found) return finish(() => resolve(found));
          if (child.exitCode !== null || child.signalCode !== null) {
            return finish(() => reject(new Error(`store child exited (${child.exitCode ?? child.signalCode}) before ${kinds.join('/')}: ${stderr.trim()}`)));
          }
        };
        const timer = setTimeout(() => finish(() => reject(new Error(`no ${kinds.join('/')} from the store child within ${deadlineMs} ms`))), deadlineMs);
        const finish = (settle: () => void) => {
          clearTimeout(timer);
          waiters.delete(check);
          settle();
        };
        waiters.add(check);
        check();
      });
    },
  };
}

/** The pid of a process that has certainly exited. */
export async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', ''], { stdio: 'ignore' });
  await new Promise((resolve) => child.once('exit', resolve));
  return child.pid!;
}
