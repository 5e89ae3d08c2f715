/**
 * Stable codes of scope errors. Internal: surfaces map them (the CLI prints the message). Ordinary
 * refusals to read one file are not errors; they are `ReadRefusal` values (see `read.ts`).
 */
export type ScopeErrorCode = 'not_a_repository' | 'root_not_found' | 'git_unavailable' | 'git_failed';

/** A one-line, user-facing error about the repository as a whole, with a stable `code`. */
export class ScopeError extends Error {
  constructor(
    readonly code: ScopeErrorCode,
    message: string,
    /** The repository root the error is about. */
    readonly root: string,
  ) {
    super(message);
    this.name = 'ScopeError';
  }
}
