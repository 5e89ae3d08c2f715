// Client detection: which supported AI clients run (process names and executable paths only).
export { SUPPORTED_CLIENTS, clientForProcess, normalizeProcessName, normalizeExecutablePath } from './clients';
export type { ClientId, SupportedClient } from './clients';
export { linuxProcesses, psProcesses, tasklistProcesses, defaultProcessSource, parsePsOutput, parseTasklistCsv } from './processes';
export type { ProcessEntry, ProcessSource, ProcFs, CommandRunner } from './processes';
export { detectClients } from './detect';
export type { ClientDetection, DetectedClient } from './detect';
