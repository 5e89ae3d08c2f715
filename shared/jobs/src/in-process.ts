import { CANCEL_SETTLE_MS, DEFAULT_GRACE_MS, DEFAULT_LIST_LIMIT, MAX_LIST_LIMIT } from './defaults';
import { JobError } from './errors';
import { HandlerRegistry } from './registry';
import { startRun, type JobRun } from './run';
import { JobListeners, clampLimit, newJobId, runnerIdentity, settledWithin } from './support';
import type { CloseOptions, JobHandler, JobInfo, JobQueue, JobQueueHealth, ListOptions, RegisterOptions } from './types';

/** Settings of the in-process queue (resolved defaults, see JobQueueOptions). */
export interface InProcessSettings {
  concurrency: number;
  timeoutSeconds: () => number;
  timeoutSetting: string;
  historyLimit: number;
  onError: (error: Error) => void;
}

/**
 * A FIFO queue in this process's memory: `concurrency` slots, history capped at `historyLimit` finished
 * jobs. Jobs do not survive a restart; use BullMQ for that.
 */
export class InProcessJobQueue implements JobQueue {
  readonly kind = 'in-process' as const;
  private readonly registry = new HandlerRegistry();
  private readonly listeners: JobListeners;
  /** Every known job, in creation order (Map keeps insertion order). */
  private readonly jobs = new Map<string, JobInfo>();
  private readonly waiting: string[] = [];
  private readonly running = new Map<string, JobRun>();
  private finishedCount = 0;
  private started = false;
  private closing: Promise<void> | undefined;

  constructor(private readonly settings: InProcessSettings) {
    this.listeners = new JobListeners(settings.onError);
  }

  register<P>(name: string, handler: JobHandler<P>, options?: RegisterOptions): void {
    this.registry.register(name, handler, options);
  }

  async enqueue(name: string, payload: unknown): Promise<JobInfo> {
    if (this.closing) throw new JobError('closed', `cannot enqueue job '${name}': the job queue is closed`);
    const value = this.registry.preparePayload(name, payload);
    const info: JobInfo = { id: newJobId(), name, state: 'queued', payload: value, createdAt: new Date().toISOString() };
    this.jobs.set(info.id, info);
    this.waiting.push(info.id);
    this.listeners.emit(info);
    this.pump();
    return { ...info };
  }

  async get(id: string): Promise<JobInfo | undefined> {
    const info = this.jobs.get(id);
    return info ? { ...info } : undefined;
  }

  async list(options: ListOptions = {}): Promise<JobInfo[]> {
    const limit = clampLimit(options.limit, DEFAULT_LIST_LIMIT, MAX_LIST_LIMIT);
    const states = options.states ? new Set(options.states) : undefined;
    const out: JobInfo[] = [];
    for (const info of [...this.jobs.values()].reverse()) {
      if (states && !states.has(info.state)) continue;
      out.push({ ...info });
      if (out.length >= limit) break;
    }
    return out;
  }

  async cancel(id: string): Promise<JobInfo | undefined> {
    const info = this.jobs.get(id);
    if (!info) return undefined;
    if (info.state === 'queued') {
      this.waiting.splice(this.waiting.indexOf(id), 1);
      this.finish(info, { state: 'cancelled', error: 'cancelled before it started' });
    } else if (info.state === 'running') {
      const run = this.running.get(id);
      run?.stop('cancelled', 'cancelled while running');
      if (run) await settledWithin(run.done, CANCEL_SETTLE_MS);
    }
    return { ...info };
  }

  async start(): Promise<void> {
    if (this.closing) throw new JobError('closed', 'cannot start the job queue: it is closed');
    this.started = true;
    this.pump();
  }

  close(options: CloseOptions = {}): Promise<void> {
    this.closing ??= this.shutdown(options.graceMs ?? DEFAULT_GRACE_MS);
    return this.closing;
  }

  async health(): Promise<JobQueueHealth> {
    if (this.closing) return { ok: false, detail: 'in-process queue closed' };
    return {
      ok: true,
      detail: `in-process queue: ${this.running.size} running, ${this.waiting.length} queued${this.started ? '' : ' (not started)'}`,
    };
  }

  onJob(listener: (info: JobInfo) => void): () => void {
    return this.listeners.add(listener);
  }

  private async shutdown(graceMs: number): Promise<void> {
    // Queued jobs live only in memory and would vanish silently: record them cancelled.
    for (const id of this.waiting.splice(0)) {
      const info = this.jobs.get(id);
      if (info) this.finish(info, { state: 'cancelled', error: 'cancelled: the job queue closed before it started' });
    }
    const all = () => Promise.all([...this.running.values()].map((run) => run.done));
    if (!(await settledWithin(all(), graceMs))) {
      for (const run of this.running.values()) {
        run.stop('cancelled', `cancelled: the job queue closed and the job did not finish within ${graceMs} ms`);
      }
      await all();
    }
  }

  /** Starts queued jobs while slots are free. */
  private pump(): void {
    while (this.started && !this.closing && this.running.size < this.settings.concurrency && this.waiting.length) {
      const id = this.waiting.shift() as string;
      const info = this.jobs.get(id);
      if (info) this.begin(info);
    }
  }

  private begin(info: JobInfo): void {
    const handler = this.registry.handler(info.name);
    info.state = 'running';
    info.startedAt = new Date().toISOString();
    info.runner = runnerIdentity();
    if (!handler) {
      // Unreachable through enqueue (names are checked there); kept so a bad entry cannot wedge the queue.
      this.finish(info, { state: 'failed', error: `no handler registered for job '${info.name}'` });
      return;
    }
    const run = startRun({
      jobId: info.id,
      handler,
      payload: info.payload,
      timeoutSeconds: this.readTimeout(),
      timeoutSetting: this.settings.timeoutSetting,
      progress: async (fraction) => {
        info.progress = fraction;
      },
    });
    this.running.set(info.id, run);
    this.listeners.emit(info);
    void run.done.then((outcome) => {
      this.running.delete(info.id);
      if (outcome.state === 'completed') {
        info.result = outcome.result;
        this.finish(info, { state: 'completed' });
      } else {
        this.finish(info, { state: outcome.state, error: outcome.error });
      }
      this.pump();
    });
  }

  private readTimeout(): number {
    try {
      return this.settings.timeoutSeconds();
    } catch (err) {
      this.settings.onError(new Error(`timeoutSeconds() threw; running the job without a limit: ${String(err)}`));
      return 0;
    }
  }

  private finish(info: JobInfo, end: { state: JobInfo['state']; error?: string }): void {
    info.state = end.state;
    info.finishedAt = new Date().toISOString();
    if (end.error !== undefined) info.error = end.error;
    this.listeners.emit(info);
    this.finishedCount += 1;
    this.trimHistory();
  }

  /** Drops the oldest finished jobs beyond the history limit (queued and running jobs are never dropped). */
  private trimHistory(): void {
    let excess = this.finishedCount - this.settings.historyLimit;
    if (excess <= 0) return;
    for (const [id, info] of this.jobs) {
      if (excess <= 0) break;
      if (info.state === 'queued' || info.state === 'running') continue;
      this.jobs.delete(id);
      this.finishedCount -= 1;
      excess -= 1;
    }
  }
}
