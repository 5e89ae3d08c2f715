import { sql, type SQL } from 'drizzle-orm';
import { text, timestamp, type AnyPgColumn } from 'drizzle-orm/pg-core';
import { newId } from '../ids';

/** Text primary key filled with a sortable UUIDv7 when the caller gives none. */
export function idColumn() {
  return text('id').primaryKey().$defaultFn(() => newId());
}

/** A `timestamptz` column read and written as a JS Date. */
export function tstz(name: string) {
  return timestamp(name, { withTimezone: true, mode: 'date' });
}

/** `created_at` / `updated_at`, both defaulting to now(). */
export function timestamps() {
  return {
    createdAt: tstz('created_at').notNull().defaultNow(),
    updatedAt: tstz('updated_at').notNull().defaultNow(),
  };
}

/**
 * `<column> IN ('a', 'b', ...)` for a check constraint. Enumerations are text columns with check
 * constraints rather than pg enums: pg enums are schema-qualified types, which would defeat the
 * per-schema isolation tests rely on, and a check is changed by a plain migration.
 */
export function oneOf(column: AnyPgColumn, values: readonly string[]): SQL {
  const list = sql.raw(values.map((v) => `'${v.replace(/'/g, "''")}'`).join(', '));
  return sql`${column} IN (${list})`;
}
