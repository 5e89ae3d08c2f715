/**
 * `compute.max_session_minutes`: a background preparation session lasts that long after the last
 * activity (a save, a commit, the daemon's start). Past it, background cycles wait for the next
 * change instead of retrying: Sous does not keep working on a repository nobody touches.
 */

/** Why a background cycle is past its session, or null while the session lasts. */
export function sessionRefusal(lastActivityMs: number, nowMs: number, maxSessionMinutes: number): string | null {
  if (nowMs - lastActivityMs <= maxSessionMinutes * 60_000) return null;
  return `Dormant: no change for more than compute.max_session_minutes (${maxSessionMinutes} min); background preparation resumes with the next change.`;
}
