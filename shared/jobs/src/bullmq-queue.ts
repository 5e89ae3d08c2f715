import { Queue, Worker, type Job } from 'bullmq';
import type { Redis } from 'ioredis';
import { CANCEL_SETTLE_MS, DEFAULT_GRACE_MS, DEFAULT_LIST_LIMIT, MAX_LIST_LIMIT } from './defaults';
import { JobError, errorMessage } from './errors';
import { CancelledRecords, bullTypesFor, stopReason, toJobInfo } from './bullmq-records';
import { RedisLink } from './redis-link';
import { HandlerRegistry } from './registry';
import { startRun, type JobRun } from './run';
import { JobListeners, clampLimit, newJobId, runnerIdentity, settledWithin } from './support';
import { JOB_STATES, type CloseOptions, type JobHandler, type JobInfo, type JobQueue, type JobQueueHealth, type ListOptions, type RegisterOptions } from './types';

/** Settings of the BullMQ queue (resolved defaults, see JobQueueOptions). */
export interface BullmqSettings {
  redisUrl: string;
  queueName: string;
  concurrency: number;
  timeoutSeconds: () => number;
  timeoutSetting: string;
  historyLimit: number;
  onError: (error: Error) => void;
}

/** A job running in this process, and a promise that settles once BullMQ has recorded its end. */
interface LocalRun {
  run: JobRun;
  recorded: Promise<void>;
  markRecorded: () => void;
}

const PREFIX = 'bull';
const HEALTH_TIMEOUT_MS = 2_000;
/** How long a call waits for a Redis connection before it fails with `unavailable`. */
const CONNECT_TIMEOUT_MS = 3_000;
/** Longest wait for each BullMQ close step once running jobs are dealt with. */
const CLOSE_STEP_MS = 3_000;

/**
 * BullMQ on Redis: a Queue for enqueue and reads (so every process sees the same states), a Worker started
 * by start(), and a pub/sub channel so cancel() reaches a job running in another process.
 */
export class BullmqJobQueue implements JobQueue {
  readonly kind = 'bullmq' as const;
  private readonly registry = new HandlerRegistry();
  private readonly listeners: JobListeners;
  private readonly link: RedisLink;
  private readonly client: Redis;
  private readonly queue: Queue;
  private readonly cancelled: CancelledRecords;
  private readonly cancelChannel: string;
  private readonly local = new Map<string, LocalRun>();
  /** enqueue() calls in flight, so a job's `running` event never precedes its `queued` event. */
  private readonly pendingAdds = new Map<string, Promise<unknown>>();
  /** Cancels that arrived while a job was between BullMQ's `active` and its handler starting. */
  private readonly earlyCancels = new Set<string>();
  private worker: Worker | undefined;
  private subscriber: Redis | undefined;
  private closing: Promise<void> | undefined;

  constructor(private readonly settings: BullmqSettings) {
    this.listeners = new JobListeners(settings.onError);
    this.link = new RedisLink(settings.redisUrl, settings.onError);
    this.client = this.link.connect('queue');
    this.queue = new Queue(settings.queueName, { connection: this.client, prefix: PREFIX });
    this.queue.on('error', (err) => this.link.report(err));
    const keyBase = `${PREFIX}:${settings.queueName}`;
    this.cancelled = new CancelledRecords(this.client, keyBase, settings.historyLimit);
    this.cancelChannel = `${keyBase}:sous-cancel`;
  }

  register<P>(name: string, handler: JobHandler<P>, options?: RegisterOptions): void {
    this.registry.register(name, handler, options);
  }

  async enqueue(name: string, payload: unknown): Promise<JobInfo> {
    if (this.closing) throw new JobError('closed', `cannot enqueue job '${name}': the job queue is closed`);
    const value = this.registry.preparePayload(name, payload);
    const id = newJobId();
    const keep = { count: this.settings.historyLimit };
    try {
      await this.connected();
    } catch (err) {
      throw this.link.unavailable(`enqueue job '${name}'`, err);
    }
    const adding = this.queue.add(name, value, { jobId: id, attempts: 1, removeOnComplete: keep, removeOnFail: keep });
    this.pendingAdds.set(id, adding.catch(() => undefined));
    try {
      const job = await adding;
      const info = toJobInfo(job, 'waiting') as JobInfo;
      this.listeners.emit(info);
      return info;
    } catch (err) {
      throw this.link.unavailable(`enqueue job '${name}'`, err);
    } finally {
      this.pendingAdds.delete(id);
    }
  }

  async get(id: string): Promise<JobInfo | undefined> {
    try {
      await this.connected();
      let job = (await this.queue.getJob(id)) as Job | undefined;
      if (!job) return await this.cancelled.get(id);
      if (!job.finishedOn) {
        // The state is read after the job hash: if it finished in between, read the hash again so the
        // state and its result or reason agree.
        const state = await job.getState();
        if (state !== 'completed' && state !== 'failed') return toJobInfo(job, state);
        job = (await this.queue.getJob(id)) as Job | undefined;
        if (!job) return undefined;
      }
      return toJobInfo(job, job.failedReason ? 'failed' : 'completed');
    } catch (err) {
      throw this.link.unavailable(`read job ${id}`, err);
    }
  }

  async list(options: ListOptions = {}): Promise<JobInfo[]> {
    const limit = clampLimit(options.limit, DEFAULT_LIST_LIMIT, MAX_LIST_LIMIT);
    const states = new Set(options.states ?? JOB_STATES);
    try {
      await this.connected();
      const found: JobInfo[] = [];
      for (const type of new Set([...states].flatMap(bullTypesFor))) {
        for (const job of await this.queue.getJobs([type], 0, limit - 1)) {
          const info = job ? toJobInfo(job as Job, type) : undefined;
          if (info && states.has(info.state)) found.push(info);
        }
      }
      if (states.has('cancelled')) found.push(...(await this.cancelled.newest(limit)));
      // Ids start with the creation time, so they break ties within one millisecond.
      found.sort((a, b) => (a.createdAt === b.createdAt ? b.id.localeCompare(a.id) : b.createdAt.localeCompare(a.createdAt)));
      return found.slice(0, limit);
    } catch (err) {
      throw this.link.unavailable('list jobs', err);
    }
  }

  async cancel(id: string): Promise<JobInfo | undefined> {
    const info = await this.get(id);
    if (!info || (info.state !== 'queued' && info.state !== 'running')) return info;
    try {
      // remove() refuses a locked (active) job, so a queued job is either removed before it starts or running.
      if (info.state === 'queued' && (await this.queue.remove(id)) === 1) {
        const record: JobInfo = { ...info, state: 'cancelled', finishedAt: new Date().toISOString(), error: 'cancelled before it started' };
        await this.cancelled.put(record);
        this.listeners.emit(record);
        return record;
      }
      this.stopLocal(id);
      const mine = this.local.get(id);
      if (mine) {
        await settledWithin(mine.recorded, CANCEL_SETTLE_MS);
      } else {
        await this.client.publish(this.cancelChannel, id);
        await this.waitWhileRunning(id);
      }
    } catch (err) {
      throw this.link.unavailable(`cancel job ${id}`, err);
    }
    return this.get(id);
  }

  async start(): Promise<void> {
    if (this.closing) throw new JobError('closed', 'cannot start the job queue: it is closed');
    if (this.worker) return;
    const worker = new Worker(
      this.settings.queueName,
      // Three declared parameters: BullMQ only passes its AbortSignal to processors that take one.
      (job: Job, _token?: string, signal?: AbortSignal) => this.process(job, signal),
      {
        connection: this.link.connect('worker'),
        prefix: PREFIX,
        concurrency: this.settings.concurrency,
        autorun: false,
        name: runnerIdentity(),
        // A job that stalls (its process died) is failed, not run again: cycles are re-triggered by signals.
        maxStalledCount: 0,
      },
    );
    worker.on('error', (err) => this.link.report(err));
    worker.on('completed', (job) => this.recorded(job, 'completed'));
    worker.on('failed', (job) => {
      if (job) this.recorded(job, 'failed');
    });
    this.worker = worker;
    worker.run().catch((err: unknown) => this.settings.onError(new Error(`job worker stopped: ${errorMessage(err)}`)));
    this.subscriber = this.link.connect('subscriber');
    this.subscriber.on('message', (channel: string, id: string) => {
      if (channel === this.cancelChannel) this.stopLocal(id);
    });
    try {
      await this.subscriber.subscribe(this.cancelChannel);
    } catch (err) {
      throw this.link.unavailable('start the job queue', err);
    }
  }

  close(options: CloseOptions = {}): Promise<void> {
    this.closing ??= this.shutdown(options.graceMs ?? DEFAULT_GRACE_MS);
    return this.closing;
  }

  async health(): Promise<JobQueueHealth> {
    if (this.closing) return { ok: false, detail: `bullmq queue '${this.settings.queueName}' closed` };
    try {
      const pong = this.client.ping();
      pong.catch(() => undefined); // a late rejection after the deadline below is already reported as not ok
      if (!(await settledWithin(pong, HEALTH_TIMEOUT_MS))) throw new Error(`no answer within ${HEALTH_TIMEOUT_MS} ms`);
      await pong;
      return { ok: true, detail: `bullmq queue '${this.settings.queueName}' on ${this.link.where}` };
    } catch (err) {
      return { ok: false, detail: this.link.lastError ?? `Redis at ${this.link.where}: ${errorMessage(err)}` };
    }
  }

  onJob(listener: (info: JobInfo) => void): () => void {
    return this.listeners.add(listener);
  }

  private connected(): Promise<void> {
    if (this.closing) return Promise.reject(new JobError('closed', 'the job queue is closed'));
    return this.link.ready(this.client, CONNECT_TIMEOUT_MS);
  }

  /** The processor: runs the handler, turns a stop into a marked failure BullMQ records. */
  private async process(job: Job, signal: AbortSignal | undefined): Promise<unknown> {
    const id = job.id as string;
    await this.pendingAdds.get(id);
    const handler = this.registry.handler(job.name);
    if (!handler) throw new Error(`no handler registered for job '${job.name}' in the process that ran it`);
    let timeout = 0;
    try {
      timeout = this.settings.timeoutSeconds();
    } catch (err) {
      this.settings.onError(new Error(`timeoutSeconds() threw; running job ${id} without a limit: ${errorMessage(err)}`));
    }
    const run = startRun({
      jobId: id,
      handler,
      payload: job.data as unknown,
      timeoutSeconds: timeout,
      timeoutSetting: this.settings.timeoutSetting,
      progress: (fraction) => job.updateProgress(fraction),
    });
    let markRecorded!: () => void;
    const recorded = new Promise<void>((resolve) => (markRecorded = resolve));
    this.local.set(id, { run, recorded, markRecorded });
    if (this.earlyCancels.delete(id)) run.stop('cancelled', 'cancelled while running');
    // BullMQ aborts this signal on worker.cancelJob() or a forced close.
    signal?.addEventListener('abort', () => run.stop('cancelled', 'cancelled by the worker'), { once: true });
    this.listeners.emit({ ...(toJobInfo(job, 'active') as JobInfo), runner: job.processedBy ?? runnerIdentity() });
    const outcome = await run.done;
    if (outcome.state === 'completed') return outcome.result;
    throw new Error(outcome.state === 'failed' ? outcome.error : stopReason(outcome.state, outcome.error));
  }

  /** Stops job `id` if this process runs it; remembers the request if its handler has not started yet. */
  private stopLocal(id: string): void {
    const mine = this.local.get(id);
    if (mine) mine.run.stop('cancelled', 'cancelled while running');
    else if (this.worker) {
      this.earlyCancels.add(id);
      // Forget requests for jobs another process runs; bounded so the set cannot grow without limit.
      if (this.earlyCancels.size > 100) this.earlyCancels.delete(this.earlyCancels.values().next().value as string);
    }
  }

  /** A worker event after BullMQ moved a job to completed or failed. */
  private recorded(job: Job, bullState: 'completed' | 'failed'): void {
    const info = toJobInfo(job, bullState);
    if (info) this.listeners.emit(info);
    const id = job.id as string;
    this.local.get(id)?.markRecorded();
    this.local.delete(id);
  }

  private async waitWhileRunning(id: string): Promise<void> {
    const deadline = Date.now() + CANCEL_SETTLE_MS;
    while (Date.now() < deadline) {
      const state = await this.queue.getJobState(id);
      if (state !== 'active') return;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  private async shutdown(graceMs: number): Promise<void> {
    const stopLate = () => {
      for (const { run } of this.local.values()) {
        run.stop('cancelled', `cancelled: the job queue closed and the job did not finish within ${graceMs} ms`);
      }
    };
    let workerClosed: Promise<void> | undefined;
    if (this.worker && this.client.status === 'ready') {
      // close() stops fetching at once and resolves when running jobs are recorded.
      workerClosed = this.worker.close().catch((err: unknown) => this.link.report(err));
      if (!(await settledWithin(workerClosed, graceMs))) {
        stopLate();
        await settledWithin(workerClosed, CLOSE_STEP_MS);
      }
    } else if (this.worker) {
      // Redis is unreachable: nothing can be fetched or recorded, and a graceful BullMQ close would wait
      // for it forever. Give running handlers their grace, then force-close.
      const runs = Promise.all([...this.local.values()].map(({ run }) => run.done));
      if (!(await settledWithin(runs, graceMs))) stopLate();
      workerClosed = this.worker.close(true).catch((err: unknown) => this.link.report(err));
    }
    const queueClosed = this.queue.close().catch((err: unknown) => this.link.report(err));
    if (this.client.status === 'ready') await settledWithin(queueClosed, CLOSE_STEP_MS);
    // Closing our connections also releases BullMQ calls stuck waiting for an unreachable Redis.
    await this.link.close();
    await settledWithin(queueClosed, CLOSE_STEP_MS);
    if (workerClosed && !(await settledWithin(workerClosed, CLOSE_STEP_MS))) {
      this.settings.onError(new Error(`job worker did not close within ${CLOSE_STEP_MS} ms; Redis at ${this.link.where} may be unreachable`));
    }
  }
}
