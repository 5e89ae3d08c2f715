import type { JobInfo, JobQueue, ListOptions } from '@sous/jobs';

/** What the job routes and the start-up settling read: one queue, or several read as one. */
export type JobView = Pick<JobQueue, 'get' | 'list' | 'cancel'>;

/**
 * The daemon's queues read as one: in the server topology the shared queue (preparation cycles, any
 * process) and the watcher's own queue (jobs that work on the watcher's memory, docs/jobs.md
 * "Scale-out"). A job id lives in exactly one of them.
 */
export function jobView(queues: JobQueue[]): JobView {
  const distinct = [...new Set(queues)];
  if (distinct.length === 1) return distinct[0] as JobQueue;
  return {
    async get(id) {
      for (const queue of distinct) {
        const info = await queue.get(id);
        if (info) return info;
      }
      return undefined;
    },
    async list(options: ListOptions = {}) {
      const lists = await Promise.all(distinct.map((q) => q.list(options)));
      const all: JobInfo[] = lists.flat();
      // Newest first, as each queue lists (ids start with the creation time and break ties).
      all.sort((a, b) => (a.createdAt === b.createdAt ? b.id.localeCompare(a.id) : b.createdAt.localeCompare(a.createdAt)));
      return all.slice(0, options.limit ?? 50);
    },
    async cancel(id) {
      for (const queue of distinct) {
        if (await queue.get(id)) return queue.cancel(id);
      }
      return undefined;
    },
  };
}
