import * as path from 'node:path';

/** Defaults of the store, in one place. */
export const DEFAULT_POOL_SIZE = 10;
export const DEFAULT_CONNECT_TIMEOUT_MS = 5_000;
export const DEFAULT_HEALTH_TIMEOUT_MS = 2_000;
export const DEFAULT_LIST_LIMIT = 50;
export const MAX_LIST_LIMIT = 500;

/**
 * First half of the two-part advisory lock key held while migrating PostgreSQL ("SOUS" in ASCII);
 * the second half is hashtext(<schema>), so separate schemas migrate independently.
 */
export const MIGRATION_LOCK_CLASS = 0x534f5553;

/** Where drizzle's migration history lives when no schema is given. */
export const DEFAULT_MIGRATIONS_SCHEMA = 'drizzle';

/** The committed migrations; `..` works from both src/ (ts-jest) and dist/ (built). */
export const MIGRATIONS_FOLDER = path.join(__dirname, '..', 'migrations');

/** Schema names the store accepts: plain lower-case identifiers, so they need no quoting anywhere. */
export const SCHEMA_NAME_PATTERN = /^[a-z_][a-z0-9_]{0,62}$/;

/** Clamps a list limit into 1..MAX_LIST_LIMIT. */
export function clampLimit(limit: number | undefined): number {
  if (limit === undefined || !Number.isFinite(limit)) return DEFAULT_LIST_LIMIT;
  return Math.min(MAX_LIST_LIMIT, Math.max(1, Math.floor(limit)));
}
