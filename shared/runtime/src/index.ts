export { writeRunState, readRunState, removeRunState, runFilePath, pidAlive } from './run-state';
export type { DaemonRunState, SupervisorRunState, RunFile } from './run-state';
export { DaemonClient, DaemonRequestError, DaemonUnreachableError, daemonBaseUrl, CLIENT_TOKEN_ENV } from './daemon-client';
export { parseProcessOptions, processPaths } from './process-options';
export type { ProcessOptions } from './process-options';
export { superviseChild, hungMsFromEnv, WATCHDOG_BACKOFF_MS, WATCHDOG_HUNG_MS, WATCHDOG_MAX_FAST_CRASHES, WATCHDOG_STABLE_MS, WATCHDOG_STOP_TIMEOUT_MS } from './watchdog';
export type { Watchdog, WatchdogEvents, WatchdogOptions } from './watchdog';
