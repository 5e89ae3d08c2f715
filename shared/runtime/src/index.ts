export { writeRunState, readRunState, removeRunState, runFilePath, pidAlive } from './run-state';
export type { DaemonRunState, SupervisorRunState, RunFile } from './run-state';
export { DaemonClient, DaemonRequestError, DaemonUnreachableError, daemonBaseUrl, CLIENT_TOKEN_ENV } from './daemon-client';
export { parseProcessOptions, processPaths } from './process-options';
export type { ProcessOptions } from './process-options';
