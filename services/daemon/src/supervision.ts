/**
 * The daemon's side of supervision. The supervisor starts the daemon with an IPC channel and its
 * own pid in SOUS_SUPERVISOR_PID; the channel closes the moment the supervisor dies, even by
 * SIGKILL. A daemon whose supervisor is gone stops (docs/cli.md, "Supervision"): unsupervised it
 * would keep the port while nothing restarts it after a crash or a hang, and `sous up` would call
 * it running.
 */

/** Environment variable holding the pid of the supervisor that started this daemon. */
export const SUPERVISOR_PID_ENV = 'SOUS_SUPERVISOR_PID';

/**
 * The pid of this process's supervisor, or undefined when it was started some other way (a
 * container, by hand): only a process that has both the variable and the IPC channel is supervised.
 */
export function supervisorPid(env: NodeJS.ProcessEnv = process.env): number | undefined {
  const pid = Number(env[SUPERVISOR_PID_ENV]);
  return Number.isInteger(pid) && pid > 0 && process.connected === true ? pid : undefined;
}

/** Calls `onGone` once, when the supervisor's IPC channel closes. No-op for an unsupervised process. */
export function onSupervisorGone(onGone: () => void): void {
  if (process.connected !== true) return;
  process.once('disconnect', onGone);
}
