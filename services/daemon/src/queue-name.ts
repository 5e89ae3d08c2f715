import { createHash } from 'node:crypto';

/** One BullMQ queue per workspace, so daemons of several repositories can share a Redis. */
export function defaultQueueName(root: string): string {
  return `sous-${createHash('sha256').update(root).digest('hex').slice(0, 12)}`;
}
