// Client detection: which supported AI clients run (process names and executable paths only).
export { SUPPORTED_CLIENTS, clientForProcess, normalizeProcessName, normalizeExecutablePath } from './clients';
export type { ClientId, SupportedClient } from './clients';
export { linuxProcesses, psProcesses, tasklistProcesses, defaultProcessSource, processesUnder, parsePsOutput, parseTasklistCsv } from './processes';
export type { ProcessEntry, ProcessSource, ProcFs, CommandRunner } from './processes';
export { detectClients } from './detect';
export type { ClientDetection, DetectedClient } from './detect';
// Focus state: the persisted user choices and the pure transitions of the focus actions.
export { applyAction, emptyFocusState, registerWorkspace, FOCUS_MODES } from './state';
export type { FocusState, FocusMode, WorkspaceChoice, FocusAction, FocusActionResult, FocusActionError } from './state';
// Focus rules: which one workspace Sous may prepare for, and the standby/paused reasons.
export { decideFocus, DEFAULT_RECENT_MS } from './rules';
export type { FocusInput, FocusDecision, FocusClass, WorkspaceFocus, RunningClient } from './rules';
export type { FocusReason, SelectionBasis } from './reasons';
// Registry and monitor: what daemons share (in the Sous home), and one daemon's view of it.
export { FocusRegistry, IntegrationReporter, sousHome, workspaceKey, SOUS_HOME_ENV } from './registry';
export type { WorkspaceActivity } from './registry';
export { FocusMonitor, DEFAULT_DETECT_INTERVAL_MS, DEFAULT_STATE_POLL_MS } from './monitor';
export type { FocusMonitorOptions } from './monitor';
