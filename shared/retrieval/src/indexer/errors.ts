/**
 * Stable codes of index errors. Internal: the HTTP and MCP edges validate input first and map what
 * still gets through (the CLI prints the message).
 */
export type IndexErrorCode = 'invalid_query' | 'invalid_path';

/** A one-line, user-facing error about a call to the index, with a stable `code`. */
export class IndexError extends Error {
  constructor(
    readonly code: IndexErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'IndexError';
  }
}
