export { ApiError, API_ERROR_STATUS, isApiErrorBody } from './errors';
export type { ApiErrorBody, ApiErrorCode } from './errors';
export { DEFAULT_DAEMON_PORT, DEFAULT_PROXY_PORT, DEFAULT_CONTEXT_PORT, DEFAULT_HOST } from './ports';
export { SOUS_VERSION } from './version';
export { compileRedactPatterns, redactText, redactUrl } from './redaction';
export { MAX_PROMPT_CHARS, MAX_TOP_N, DEFAULT_TOP_N, MAX_BUDGET_TOKENS } from './context';
export { CREDENTIAL_FORMATS, CREDENTIAL_NAME, CREDENTIAL_PATTERNS, REDACTED } from './credentials';
export type { CredentialFormat } from './credentials';
