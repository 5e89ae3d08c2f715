import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { JobInfo } from './types';

/** A set of onJob listeners. A throwing listener is reported, never allowed to break the queue. */
export class JobListeners {
  private readonly listeners = new Set<(info: JobInfo) => void>();

  constructor(private readonly onError: (error: Error) => void) {}

  add(listener: (info: JobInfo) => void): () => void {
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
    };
  }

  emit(info: JobInfo): void {
    for (const listener of this.listeners) {
      try {
        listener({ ...info });
      } catch (err) {
        this.onError(new Error(`onJob listener threw for job ${info.id} (${info.state}): ${String(err)}`));
      }
    }
  }
}

/** This process as a job runner, `hostname:pid`: recorded on every job it runs (JobInfo.runner). */
export function runnerIdentity(): string {
  return `${hostname()}:${process.pid}`;
}

let sequence = 0;

/**
 * A new job id: `job_` + base36 milliseconds + a per-process sequence + random, so ids sort by creation
 * (within one process) and never collide across processes. No ':' (BullMQ key separator).
 */
export function newJobId(now = Date.now()): string {
  sequence = (sequence + 1) % 36 ** 4;
  return `job_${now.toString(36).padStart(9, '0')}${sequence.toString(36).padStart(4, '0')}${randomBytes(3).toString('hex')}`;
}

/** A URL with its password (and a username-only secret) replaced by `***`, for messages. */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    else if (u.username) u.username = '***';
    return u.toString();
  } catch {
    return '<unparseable Redis URL>';
  }
}

/** Clamps a list limit into 1..max. */
export function clampLimit(limit: number | undefined, fallback: number, max: number): number {
  if (limit === undefined || !Number.isFinite(limit)) return fallback;
  return Math.min(max, Math.max(1, Math.floor(limit)));
}

/** Resolves after `ms` or when `promise` settles, whichever comes first; true when the promise won. */
export async function settledWithin(promise: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), Math.max(0, ms));
  });
  try {
    return await Promise.race([promise.then(() => true as const, () => true as const), deadline]);
  } finally {
    if (timer) clearTimeout(timer);
  }
}
