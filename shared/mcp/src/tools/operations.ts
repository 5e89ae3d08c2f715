/**
 * Operational tools (spec 4.6 `status`, `resources.status`, `jobs.*`, `sources.status`,
 * `debug.trace`): health, inventory and what the engine did and why, all read from the daemon's
 * snapshots (`GET /status`, `/resources`, `/jobs`, `/focus`; docs/http-api.md, docs/focus.md).
 */
import Joi from 'joi';
import { NO_ARGS, defineTool, toolResult, type ToolDefinition } from '../registry';
import { JOB_STATES, query, seg } from './wire';

/** The parts of `GET /status` the tools read (the full body is passed through). */
export interface DaemonStatus {
  status: string;
  version: string;
  workspace: { id: string; root: string };
  config: { path: string; loaded_at: string | null; last_error?: string };
  store: { kind: string; ok: boolean; detail?: string };
  queue: { kind: string; ok: boolean; detail?: string };
  policy: { bundle: string };
  backend: { name: string; base_url: string; model: string; reachable: boolean | null; model_present: boolean | null; error?: string };
  watch: { mode: string; reason?: string };
  index: { state: string; files_indexed: number; generation: number; head: string | null; error: string | null; suspended?: boolean; scope?: { suggested_globs?: string[]; out_of_scope_code?: number } | null };
  preparation: {
    last_cycle: { id: string; trigger: string; finished_at: string; duration_ms: number; candidates: number; ready: number; landed: number } | null;
    deferred: unknown;
    model: { mode: string; reason: string };
  };
  focus?: { class: string; reason: string; action: string; may_prepare: boolean };
}

interface JobInfo {
  id: string;
  name: string;
  state: string;
  createdAt: string;
  finishedAt: string | null;
  error: string | null;
  result?: unknown;
}

function jobLine(job: JobInfo): string {
  return `- ${job.name} ${job.state} (id ${job.id}, created ${job.createdAt}${job.error ? `, error: ${job.error}` : ''})`;
}

function lastCycleLine(s: DaemonStatus): string {
  const c = s.preparation.last_cycle;
  return c ? `Last cycle: ${c.trigger} at ${c.finished_at}, ${c.candidates} candidate(s), ${c.ready} ready, ${c.landed} landed.` : 'No preparation cycle has run yet.';
}

function deferredText(deferred: unknown): string | undefined {
  if (deferred === null || deferred === undefined) return undefined;
  if (typeof deferred === 'string') return deferred;
  const reason = (deferred as { reason?: unknown }).reason;
  return typeof reason === 'string' ? reason : JSON.stringify(deferred);
}


const status = defineTool<Record<string, never>>({
  id: 'status',
  title: 'Sous status',
  description: 'Health and readiness of Sous for this repository: index state, the last preparation cycle, whether the model takes part, and Auto Focus. Call it when a tool answers unexpectedly or before relying on fresh cards.',
  input: NO_ARGS,
  readOnly: true,
  async run(_args, ctx) {
    const s = await ctx.daemon.get<DaemonStatus>('/status');
    const lines = [
      `Sous ${s.version} ${s.status} for ${s.workspace.root}: index ${s.index.state} (${s.index.files_indexed} files, generation ${s.index.generation})${s.index.error ? `, error: ${s.index.error}` : ''}.`,
      lastCycleLine(s),
      `Model: ${s.preparation.model.mode} (${s.preparation.model.reason}).`,
      ...(s.focus ? [`Focus: ${s.focus.class}: ${s.focus.reason}`] : []),
    ];
    return toolResult(lines.join('\n'), { ...s });
  },
});

const resources = defineTool<Record<string, never>>({
  id: 'resources.status',
  title: 'Runtime and device inventory',
  description: 'The model backend, hardware tier, CPU, GPU, local model runtimes and compute limits Sous works within. Call it to explain why preparation is slow, deferred or heuristic-only.',
  input: NO_ARGS,
  readOnly: true,
  async run(_args, ctx) {
    const r = await ctx.daemon.get<{
      backend: { name: string; model: string; reachable: boolean | null };
      hardware: { tier: string; ram_gb: number; cpu: { class: string }; gpu: { kind: string } };
      compute: { idle_only_effective: boolean; cycle_concurrency: number; load: { cpu: number; gpu: number | null } };
    }>('/resources');
    const summary = [
      `Hardware tier ${r.hardware.tier}: ${r.hardware.ram_gb} GB RAM, CPU ${r.hardware.cpu.class}, GPU ${r.hardware.gpu.kind}.`,
      `Backend ${r.backend.name} (${r.backend.model}): ${r.backend.reachable === null ? 'not checked yet' : r.backend.reachable ? 'reachable' : 'not reachable'}.`,
      `Compute: ${r.compute.idle_only_effective ? 'idle-only' : 'not idle-only'}, ${r.compute.cycle_concurrency} detector(s) at once, CPU load ${r.compute.load.cpu}.`,
    ].join('\n');
    return toolResult(summary, { ...r });
  },
});

const jobs = defineTool<{ id?: string; state?: string; limit: number }>({
  id: 'jobs.status',
  title: 'Background jobs',
  description: 'Preparation cycles and maintenance jobs, newest first, or one job by id (state, progress, result, error; `state` and `limit` then do not apply). Call it to follow a cycle queued by warm or expand.',
  input: Joi.object({
    id: Joi.string().trim().min(1).max(200).description('one job'),
    state: Joi.string().valid(...JOB_STATES).description('only jobs in this state'),
    limit: Joi.number().integer().min(1).max(500).default(10),
  }),
  readOnly: true,
  async run(args, ctx) {
    if (args.id !== undefined) {
      const { job } = await ctx.daemon.get<{ job: JobInfo }>(`/jobs/${seg(args.id)}`);
      return toolResult(jobLine(job).slice(2), { job });
    }
    const out = await ctx.daemon.get<{ queue: string; jobs: JobInfo[] }>(`/jobs${query({ limit: args.limit, state: args.state })}`);
    const summary = out.jobs.length === 0 ? `No jobs on the ${out.queue} queue${args.state ? ` in state ${args.state}` : ''}.` : `${out.jobs.length} job(s) on the ${out.queue} queue, newest first:\n${out.jobs.map(jobLine).join('\n')}`;
    return toolResult(summary, { ...out });
  },
});

const cancel = defineTool<{ id: string }>({
  id: 'jobs.cancel',
  title: 'Cancel a job',
  description: 'Cancels a queued or running job (a preparation cycle stops at its next check; what it landed stays). Call it when a cycle competes with the user for the machine.',
  input: Joi.object({ id: Joi.string().trim().min(1).max(200).required().description('the job id, from jobs.status') }),
  readOnly: false,
  async run(args, ctx) {
    const { job } = await ctx.daemon.post<{ job: JobInfo }>(`/jobs/${seg(args.id)}/cancel`, {});
    return toolResult(`Job ${job.id} (${job.name}) is ${job.state}.`, { job });
  },
});

/** One source Sous reads from, with its health in a word and the detail that explains it. */
interface Source {
  name: string;
  ok: boolean;
  state: string;
  detail?: string;
}

/** The sources behind the cards: the repository (index and watcher), the store, the queue, the model, the config file. */
export function sourcesOf(s: DaemonStatus): Source[] {
  const scope = s.index.scope?.suggested_globs?.length ? `code outside the privacy scope: ${s.index.scope.suggested_globs.join(', ')}` : undefined;
  return [
    { name: 'repository_index', ok: s.index.state === 'ready', state: s.index.suspended ? 'suspended' : s.index.state, ...((s.index.error ?? scope) ? { detail: s.index.error ?? scope } : {}) },
    { name: 'file_watcher', ok: true, state: s.watch.mode, ...(s.watch.reason ? { detail: s.watch.reason } : {}) },
    { name: 'store', ok: s.store.ok, state: s.store.kind, ...(s.store.detail ? { detail: s.store.detail } : {}) },
    { name: 'job_queue', ok: s.queue.ok, state: s.queue.kind, ...(s.queue.detail ? { detail: s.queue.detail } : {}) },
    {
      name: 'model_backend',
      ok: s.backend.reachable === true,
      state: s.backend.reachable === null ? 'unchecked' : s.backend.reachable ? 'reachable' : 'unreachable',
      detail: s.backend.error ?? `${s.backend.name} ${s.backend.model}; cards are ${s.preparation.model.mode}`,
    },
    { name: 'config', ok: !s.config.last_error, state: s.config.last_error ? 'last edit refused' : 'loaded', detail: s.config.last_error ?? s.config.path },
  ];
}

const sources = defineTool<Record<string, never>>({
  id: 'sources.status',
  title: 'Source health',
  description: 'Health of what Sous prepares from: the repository index and watcher, the store, the job queue, the model backend and the config file. Call it when cards look outdated or missing.',
  input: NO_ARGS,
  readOnly: true,
  async run(_args, ctx) {
    const list = sourcesOf(await ctx.daemon.get<DaemonStatus>('/status'));
    const summary = list.map((x) => `- ${x.name}: ${x.ok ? 'ok' : 'attention'} (${x.state}${x.detail ? `; ${x.detail}` : ''})`).join('\n');
    return toolResult(`Sources:\n${summary}`, { sources: list });
  },
});

const trace = defineTool<{ limit: number }>({
  id: 'debug.trace',
  title: 'What Sous did and why',
  description: 'A diagnostic trace: the last preparation cycle and its trigger, why background cycles are deferred, whether the model took part, the Auto Focus decision and the latest jobs. Call it when preparation did not happen as expected.',
  input: Joi.object({ limit: Joi.number().integer().min(1).max(100).default(10).description('how many recent jobs') }),
  readOnly: true,
  async run(args, ctx) {
    const [s, jobList, focus] = await Promise.all([
      ctx.daemon.get<DaemonStatus>('/status'),
      ctx.daemon.get<{ queue: string; jobs: JobInfo[] }>(`/jobs${query({ limit: args.limit })}`),
      ctx.daemon.get<{ this_workspace: { class: string; reason: string; action: string }; selected: string | null; mode: string; reasons?: unknown }>('/focus'),
    ]);
    const deferred = deferredText(s.preparation.deferred);
    const summary = [
      lastCycleLine(s),
      deferred ? `Deferred: ${deferred}` : 'Background cycles are not deferred.',
      `Model: ${s.preparation.model.mode} (${s.preparation.model.reason}).`,
      `Focus: ${focus.this_workspace.class}: ${focus.this_workspace.reason} Action: ${focus.this_workspace.action}`,
      `Recent jobs:\n${jobList.jobs.map(jobLine).join('\n') || '- none'}`,
    ].join('\n');
    return toolResult(summary, {
      preparation: s.preparation,
      index: { state: s.index.state, generation: s.index.generation, head: s.index.head, files_indexed: s.index.files_indexed },
      focus,
      jobs: jobList.jobs,
    });
  },
});

export const operationsTools: ToolDefinition[] = [status, resources, jobs, cancel, sources, trace];
