/**
 * Symbol extraction on worker threads. A pool of workers (one per core but one, at least one) parses
 * while the main thread keeps reading and indexing; an idle pool ends its workers, and with them
 * tree-sitter's WebAssembly memory, which never shrinks while a worker lives. Where the compiled
 * worker is not available (running from TypeScript sources) parsing runs in-process.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Worker } from 'node:worker_threads';
import { extractSymbols } from './extract';
import type { FileSymbols } from './types';

/**
 * Workers: SOUS_PARSE_WORKERS, else one per core but one, at least one. The main thread reads,
 * hashes, tokenizes and indexes as much as a worker parses: on 2 cores a second worker only
 * competed with it for the cores (same cold-index time, about 50 MB more memory at the peak).
 */
function defaultSize(): number {
  const configured = Number(process.env.SOUS_PARSE_WORKERS);
  return Number.isInteger(configured) && configured >= 1 ? configured : Math.max(1, os.cpus().length - 1);
}

/** Workers stop after this long without work. */
export const DEFAULT_IDLE_MS = 10_000;

/**
 * A worker's young generation, in MB. A parse's garbage dies young; V8's default (two 16 MB
 * semi-spaces) would keep about 25 MB more resident per worker for no measurable speed.
 */
export const WORKER_YOUNG_GENERATION_MB = 8;

interface Pending {
  resolve(symbols: FileSymbols): void;
  reject(err: Error): void;
  language: string;
  text: string;
}

interface PoolWorker {
  worker: Worker;
  busy: number;
}

export class SymbolParserPool {
  private readonly workers: PoolWorker[] = [];
  private readonly pending = new Map<number, Pending & { owner: PoolWorker }>();
  private nextId = 1;
  private idleTimer: NodeJS.Timeout | undefined;
  /** Set by `release` while jobs run: the workers end as soon as the last one is done. */
  private releasing = false;
  private readonly script: string | null;

  constructor(private readonly size = defaultSize(), private readonly idleMs = DEFAULT_IDLE_MS) {
    const compiled = path.join(__dirname, 'parse-worker.js');
    this.script = fs.existsSync(compiled) ? compiled : null;
  }

  /** Whether parsing runs on worker threads (false: in-process). */
  get threaded(): boolean {
    return this.script !== null;
  }

  /** `extractSymbols` on a worker; in-process when no worker can run. */
  parse(language: string, text: string): Promise<FileSymbols> {
    if (this.script === null) return extractSymbols(language, text, { references: false });
    if (this.idleTimer !== undefined) clearTimeout(this.idleTimer);
    this.idleTimer = undefined;
    const owner = this.pick();
    const id = this.nextId++;
    owner.busy++;
    return new Promise<FileSymbols>((resolve, reject) => {
      this.pending.set(id, { resolve, reject, language, text, owner });
      owner.worker.postMessage({ id, language, text });
    });
  }

  /**
   * Ends the workers without waiting for the idle delay (a large batch is over, and their memory is
   * worth more than a warm start); with jobs still running, when the last one is done.
   */
  async release(): Promise<void> {
    if (this.pending.size > 0) {
      this.releasing = true;
      return;
    }
    await this.close();
  }

  /** Ends every worker now (shutdown); pending parses finish in-process. */
  async close(): Promise<void> {
    if (this.idleTimer !== undefined) clearTimeout(this.idleTimer);
    this.idleTimer = undefined;
    this.releasing = false;
    const workers = this.workers.splice(0);
    await Promise.all(workers.map((w) => w.worker.terminate()));
  }

  private pick(): PoolWorker {
    const free = this.workers.find((w) => w.busy === 0);
    if (free !== undefined) return free;
    if (this.workers.length < this.size) return this.spawn();
    return this.workers.reduce((a, b) => (b.busy < a.busy ? b : a));
  }

  private spawn(): PoolWorker {
    const worker = new Worker(this.script as string, { resourceLimits: { maxYoungGenerationSizeMb: WORKER_YOUNG_GENERATION_MB } });
    const entry: PoolWorker = { worker, busy: 0 };
    entry.worker.unref();
    entry.worker.on('message', (message: { id: number; symbols: FileSymbols }) => {
      const job = this.pending.get(message.id);
      if (job === undefined) return;
      this.pending.delete(message.id);
      entry.busy--;
      job.resolve(message.symbols);
      this.maybeIdle();
    });
    // A crashed worker must not lose parses: its jobs are parsed in-process instead.
    const fail = () => {
      const index = this.workers.indexOf(entry);
      if (index >= 0) this.workers.splice(index, 1);
      for (const [id, job] of this.pending) {
        if (job.owner !== entry) continue;
        this.pending.delete(id);
        extractSymbols(job.language, job.text, { references: false }).then((s) => job.resolve(s), (err: Error) => job.reject(err));
      }
    };
    entry.worker.on('error', fail);
    entry.worker.on('exit', fail);
    this.workers.push(entry);
    return entry;
  }

  private maybeIdle(): void {
    if (this.pending.size > 0) return;
    if (this.releasing) {
      void this.close();
      return;
    }
    if (this.idleTimer !== undefined) return;
    this.idleTimer = setTimeout(() => void this.close(), this.idleMs);
    this.idleTimer.unref();
  }
}

/** The process's shared pool. */
let shared: SymbolParserPool | undefined;
export function symbolParserPool(): SymbolParserPool {
  shared ??= new SymbolParserPool();
  return shared;
}
