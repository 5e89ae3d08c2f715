/**
 * The stop conditions of a running session other than the cost cap (which the meter checks before
 * each call) and the user's stop (which ends the record directly): its deadline (the duration, or
 * `compute.max_session_minutes` when that is shorter, also when lowered mid-session) and an Auto
 * Focus pause of the workspace. Pure: the caller passes the clock and the pause.
 */
import type { DeepRunEnd, DeepRunRow } from '@sous/store';
import { deadlineBy } from './view';

export type SessionEnd = Omit<DeepRunEnd, 'at'>;

/** Why `row` must end now, or null while it may go on. */
export function limitReached(row: Pick<DeepRunRow, 'startedAt' | 'deadline' | 'durationMinutes'>, nowMs: number, maxSessionMinutes: number, pausedReason: string | null): SessionEnd | null {
  if (pausedReason !== null) return { state: 'paused', reason: 'pause', detail: `the workspace was paused (${pausedReason}); start a new session after resuming it` };
  if (nowMs >= row.deadline.getTime()) {
    return deadlineBy(row) === 'duration'
      ? { state: 'finished', reason: 'duration', detail: `its duration of ${row.durationMinutes} minutes ended` }
      : { state: 'finished', reason: 'max_session_minutes', detail: `compute.max_session_minutes cut its ${row.durationMinutes} minutes short` };
  }
  // A lowered compute.max_session_minutes applies to a running session at once.
  if (nowMs >= row.startedAt.getTime() + maxSessionMinutes * 60_000) {
    return { state: 'finished', reason: 'max_session_minutes', detail: `compute.max_session_minutes (now ${maxSessionMinutes}) ended it` };
  }
  return null;
}
